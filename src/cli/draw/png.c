/* `topo-sched draw --format png`: our own SVG rendered by librsvg onto a cairo image surface,
 * so that there is one drawing code. Built only with meson -Dpng (TSCHED_HAVE_RSVG). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

#ifdef TSCHED_HAVE_RSVG
#include <cairo.h>
#include <librsvg/rsvg.h>

int draw_png_available(void) { return 1; }

typedef struct pngbuf {
    unsigned char *p;
    size_t len, cap;
    int oom;
} pngbuf;

static cairo_status_t png_write(void *closure, const unsigned char *data, unsigned int n)
{
    pngbuf *b = closure;
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap : 65536;
        while (nc < b->len + n)
            nc *= 2;
        unsigned char *g = realloc(b->p, nc);
        if (!g) {
            b->oom = 1;
            return CAIRO_STATUS_NO_MEMORY;
        }
        b->p = g;
        b->cap = nc;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return CAIRO_STATUS_SUCCESS;
}

int draw_png(unsigned char **png, size_t *len, const char *svg, size_t svglen, double w, double h)
{
    *png = NULL;
    *len = 0;
    GError *err = NULL;
    RsvgHandle *rh = rsvg_handle_new_from_data((const guint8 *)svg, svglen, &err);
    if (!rh) {
        fprintf(stderr, "topo-sched: draw: PNG: %s\n", err ? err->message : "librsvg refused the picture");
        if (err)
            g_error_free(err);
        return CLI_INTERNAL;
    }
    int iw = (int)(w + 0.5), ih = (int)(h + 0.5);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, iw, ih);
    cairo_t *cr = cairo_create(s);
    RsvgRectangle vp = {0, 0, iw, ih};
    int rc = CLI_OK;
    pngbuf b = {0};
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS || cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "topo-sched: draw: PNG: cannot make a %d x %d px image\n", iw, ih);
        rc = CLI_INTERNAL;
    } else if (!rsvg_handle_render_document(rh, cr, &vp, &err)) {
        fprintf(stderr, "topo-sched: draw: PNG: %s\n", err ? err->message : "librsvg failed");
        rc = CLI_INTERNAL;
    } else if (cairo_surface_write_to_png_stream(s, png_write, &b) != CAIRO_STATUS_SUCCESS) {
        rc = b.oom ? draw_nomem() : (fprintf(stderr, "topo-sched: draw: PNG: cairo could not encode the image\n"), CLI_INTERNAL);
    }
    if (err)
        g_error_free(err);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    g_object_unref(rh);
    if (rc != CLI_OK) {
        free(b.p);
        return rc;
    }
    *png = b.p;
    *len = b.len;
    return CLI_OK;
}

#else

int draw_png_available(void) { return 0; }

int draw_png(unsigned char **png, size_t *len, const char *svg, size_t svglen, double w, double h)
{
    (void)svg, (void)svglen, (void)w, (void)h;
    *png = NULL;
    *len = 0;
    return CLI_BAD_INPUT;
}

#endif
