/* Kubernetes exports (doc/export.md): a Kueue or KAI Topology with one labelled Node per
 * node, or Volcano HyperNodes, as a YAML stream or one v1 List in JSON. Each document is
 * built as a JSON value and written at once, so the memory held is one document's. Names and
 * values are checked, never silently changed; `sanitize` lower-cases them and turns each
 * invalid character into '-', and what is still invalid or collides is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/alloc.h"
#include "../../common/json.h"
#include "../../common/k8s_names.h"
#include "../../common/name_fit.h"
#include "../../common/strtab.h"
#include "../../common/text.h"
#include "../../common/yaml_emit.h"
#include "export_internal.h"

#define NONE TSCHED_NONE
#define HOSTNAME_KEY "kubernetes.io/hostname"
/* Kueue accepts at most this many levels (the hostname included). */
#define KUEUE_MAX_LEVELS 16
#define KUEUE_V1ALPHA1_MAX_LEVELS 8

static int is_lower_alnum(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
#define dns_subdomain_ok ts_k8s_dns_subdomain_ok
#define label_key_ok ts_k8s_label_key_ok

/* Lower-case, each character outside `keep` (besides [a-z0-9]) becoming '-'. The caller
 * frees the result. */
static char *sanitized(const char *s, const char *keep)
{
    size_t n = strlen(s);
    char *o = ts_malloc(n + 1, 1), *w = o;
    if (!o)
        return NULL;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            char l = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            *w++ = is_lower_alnum((unsigned char)l) || strchr(keep, l) ? l : '-';
            i++;
        } else {
            size_t cl = ts_text_char(s + i, n - i);
            *w++ = '-';
            i += cl ? cl : 1;
        }
    }
    *w = '\0';
    return o;
}

static const char *q80(char *buf, size_t cap, const char *s) { return ts_text_quote(buf, cap, s, strlen(s), 80); }
#define QCAP TS_TEXT_QUOTE_CAP(80)

/* ---- the context ------------------------------------------------------------------------ */

typedef struct kx {
    ts_export *x;
    uint32_t nlev;             /* written levels */
    const ts_dlevel *lev[TS_DT_MAX_TIERS + 1];
    const char *key[TS_DT_MAX_TIERS + 1];     /* label key per level, bottom-up */
    char defkey[TS_DT_MAX_TIERS + 1][40];
    const char **val[TS_DT_MAX_TIERS + 1];    /* label value or HyperNode name per domain */
    char **owned;              /* strings made here */
    size_t nowned, owned_cap;
    ts_sbuf out;
    size_t ndocs;
} kx;

static void kx_free(kx *k)
{
    for (uint32_t i = 0; i < k->nlev; i++)
        free((void *)k->val[i]);
    for (size_t i = 0; i < k->nowned; i++)
        free(k->owned[i]);
    free(k->owned);
    ts_sbuf_free(&k->out);
}

static tsched_status own(kx *k, char *s)
{
    if (!s)
        return TSCHED_E_NOMEM;
    if (TS_GROW(k->owned, k->owned_cap, k->nowned + 1) != TSCHED_OK) {
        free(s);
        return TSCHED_E_NOMEM;
    }
    k->owned[k->nowned++] = s;
    return TSCHED_OK;
}

/* Labels an import recorded (design: interop §1). */
static const char *import_key(const tsched_topology *t, const ts_dlevel *lv)
{
    const char *k = lv->nvl ? tsched_topology_label_nvl(t) : tsched_topology_label_tier(t, (uint32_t)lv->tier);
    return k && *k ? k : NULL;
}

static tsched_status choose_keys(kx *k)
{
    const tsched_export_options *o = &k->x->o;
    if (o->num_levels > 0) {
        uint32_t g = o->num_levels;
        for (uint32_t i = 0; i < g; i++)
            if (!o->levels[i])
                return ts_error(TSCHED_E_INVALID, "levels[%u] is NULL", i);
        if (g > 0 && strcmp(o->levels[g - 1], HOSTNAME_KEY) == 0)
            g--;
        if (g != k->nlev) {
            char names[200] = "", tn[16];
            for (uint32_t i = k->nlev; i-- > 0;) {
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "",
                         k->lev[i]->nvl ? "nvl" : ts_tier_name(tn, sizeof tn, k->lev[i]->tier));
            }
            return ts_error(TSCHED_E_RANGE, "levels: %u key%s given, but the export writes %u level%s (%s)", g,
                            g == 1 ? "" : "s", k->nlev, k->nlev == 1 ? "" : "s", names);
        }
        for (uint32_t i = 0; i < g; i++) {
            char q[QCAP];
            if (!label_key_ok(o->levels[i]))
                return ts_error(TSCHED_E_FORMAT, "levels[%u]: %s is not a valid Kubernetes label key", i,
                                q80(q, sizeof q, o->levels[i]));
            for (uint32_t j = 0; j < i; j++)
                if (strcmp(o->levels[i], o->levels[j]) == 0)
                    return ts_error(TSCHED_E_DUPLICATE, "levels[%u]: key %s is also levels[%u]", i,
                                    q80(q, sizeof q, o->levels[i]), j);
            if (strcmp(o->levels[i], HOSTNAME_KEY) == 0)
                return ts_error(TSCHED_E_FORMAT, "levels[%u]: %s may only come last", i, HOSTNAME_KEY);
            k->key[g - 1 - i] = o->levels[i];
        }
        return TSCHED_OK;
    }
    for (uint32_t i = 0; i < k->nlev; i++) {
        const ts_dlevel *lv = k->lev[i];
        const char *imp = import_key(k->x->t, lv);
        char tn[16];
        if (imp) {
            k->key[i] = imp;
        } else {
            snprintf(k->defkey[i], sizeof k->defkey[i], "tsched.topology/%s",
                     lv->nvl ? "nvl" : ts_tier_name(tn, sizeof tn, lv->tier));
            k->key[i] = k->defkey[i];
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(k->key[i], k->key[j]) == 0) {
                char q[QCAP];
                return ts_error(TSCHED_E_DUPLICATE, "labels: two levels have the key %s", q80(q, sizeof q, k->key[i]));
            }
    }
    return TSCHED_OK;
}

/* The characters of a label value (`dns` 0) or of a lower-case DNS subdomain, whatever the
 * length: the limits are checked apart, so that an over-long name is TSCHED_E_RANGE and
 * `sanitize` only shortens it. */
static int chars_ok(const char *s, size_t n, int dns)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_lower_alnum(c) || (!dns && c >= 'A' && c <= 'Z'))
            continue;
        if (dns && c == '.') { /* a part ends and the next starts with [a-z0-9] */
            if (i == 0 || i + 1 == n || !is_lower_alnum((unsigned char)s[i - 1]) ||
                !is_lower_alnum((unsigned char)s[i + 1]))
                return 0;
            continue;
        }
        if (i == 0 || i + 1 == n || !(c == '-' || (!dns && (c == '_' || c == '.'))))
            return 0;
    }
    return 1;
}

/* What a name must be: `dns` a lower-case RFC 1123 subdomain, else a label value; at most
 * `max` bytes. */
typedef struct name_rule {
    int dns;
    size_t max;
    const char *kind; /* "label value", "HyperNode name", "Topology name" */
    const char *why;  /* where the limit comes from */
} name_rule;

static const name_rule LABEL_VALUE = {0, 63, "label value", "a Kubernetes label value"};
static const name_rule OBJECT_NAME = {1, 253, "Topology name", "a Kubernetes object name, an RFC 1123 subdomain"};
/* Volcano's admission policy checks every member name with format.qualifiedName() (at most
 * 63 characters) and a HyperNode of tier t is a member of tier t + 1. */
static const name_rule HYPERNODE_NAME = {1, 63, "HyperNode name",
                                         "Volcano's admission policy: member names are qualified names"};

/* The checked form of `s`; with `sanitize`, lower-cased with invalid characters turned into
 * '-' and, over the limit, shortened by ts_name_shorten(). `what` names the element. */
static tsched_status checked(const char **res, kx *k, const char *s, const name_rule *r, const char *what)
{
    size_t n = strlen(s);
    int chars = chars_ok(s, n, r->dns);
    *res = s;
    if (chars && n <= r->max)
        return TSCHED_OK;
    const char *rule = r->dns ? "a lower-case RFC 1123 subdomain ([a-z0-9.-], each dot-separated part starting and "
                                "ending with [a-z0-9])"
                              : "a Kubernetes label value ([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)";
    char q[QCAP], q2[QCAP];
    if (!k->x->o.sanitize) {
        if (chars)
            return ts_error(TSCHED_E_RANGE, "%s: %s %s is %zu characters, over the limit of %zu (%s); sanitize shortens it",
                            what, r->kind, q80(q, sizeof q, s), n, r->max, r->why);
        return ts_error(TSCHED_E_FORMAT, "%s: %s %s is not %s of at most %zu characters; sanitize lower-cases it and "
                        "replaces invalid characters", what, r->kind, q80(q, sizeof q, s), rule, r->max);
    }
    char *z = chars ? ts_strdup(s) : sanitized(s, r->dns ? "-." : "-_.");
    tsched_status st = own(k, z);
    if (st != TSCHED_OK)
        return st;
    size_t zn = strlen(z);
    if (zn > r->max) {
        char *cut = ts_malloc(r->max + 1, 1);
        if ((st = own(k, cut)) != TSCHED_OK)
            return st;
        ts_name_shorten(cut, r->max + 1, z, zn, r->max);
        z = cut;
        zn = strlen(z);
    }
    if (!chars_ok(z, zn, r->dns))
        return ts_error(TSCHED_E_FORMAT, "%s: %s %s, sanitized to %s, is still not %s", what, r->kind,
                        q80(q, sizeof q, s), q80(q2, sizeof q2, z), rule);
    *res = z;
    return TSCHED_OK;
}

/* ---- label values (Kueue, KAI) --------------------------------------------------------- */

typedef struct sib {
    uint32_t parent, dom;
    const char *v;
} sib;

static int cmp_sib(const void *a, const void *b)
{
    const sib *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    int c = strcmp(x->v, y->v);
    return c ? c : (x->dom < y->dom ? -1 : x->dom > y->dom);
}

static tsched_status label_values(kx *k)
{
    tsched_status st = TSCHED_OK;
    for (uint32_t i = 0; i < k->nlev && st == TSCHED_OK; i++) {
        const ts_dlevel *lv = k->lev[i], *up = i + 1 < k->nlev ? k->lev[i + 1] : NULL;
        k->val[i] = ts_malloc(lv->ndom ? lv->ndom : 1, sizeof *k->val[i]);
        sib *s = ts_malloc(lv->ndom ? lv->ndom : 1, sizeof *s);
        if (!k->val[i] || !s) {
            free(s);
            return TSCHED_E_NOMEM;
        }
        for (uint32_t d = 0; d < lv->ndom && st == TSCHED_OK; d++) {
            char what[400];
            ts_export_domain_what(what, sizeof what, k->x, lv, d);
            st = checked(&k->val[i][d], k, ts_export_domain_value(k->x, lv, d), &LABEL_VALUE, what);
            s[d] = (sib){up ? ts_dlevel_parent(up, lv, d) : 0, d, k->val[i][d]};
        }
        if (st == TSCHED_OK) {
            /* Kueue tells domains apart by their path of values: siblings need distinct values */
            qsort(s, lv->ndom, sizeof *s, cmp_sib);
            for (uint32_t j = 1; j < lv->ndom; j++)
                if (s[j].parent == s[j - 1].parent && strcmp(s[j].v, s[j - 1].v) == 0) {
                    char a[400], b[400], q[QCAP];
                    st = ts_error(TSCHED_E_DUPLICATE, "label %s: %s and %s get one value %s under one parent", k->key[i],
                                  ts_export_domain_what(a, sizeof a, k->x, lv, s[j - 1].dom),
                                  ts_export_domain_what(b, sizeof b, k->x, lv, s[j].dom), q80(q, sizeof q, s[j].v));
                    break;
                }
        }
        free(s);
    }
    return st;
}

/* ---- HyperNode names (Volcano) -------------------------------------------------------- */

static tsched_status hypernode_names(kx *k)
{
    ts_strtab seen;
    ts_strtab_init(&seen);
    uint32_t *owner_lev = NULL, *owner_dom = NULL;
    size_t cap = 0;
    tsched_status st = TSCHED_OK;
    for (uint32_t i = 0; i < k->nlev; i++)
        cap += k->lev[i]->ndom;
    owner_lev = ts_malloc(cap ? cap : 1, sizeof *owner_lev);
    owner_dom = ts_malloc(cap ? cap : 1, sizeof *owner_dom);
    if (!owner_lev || !owner_dom)
        st = TSCHED_E_NOMEM;
    for (uint32_t i = 0; i < k->nlev && st == TSCHED_OK; i++) {
        const ts_dlevel *lv = k->lev[i];
        if (!(k->val[i] = ts_malloc(lv->ndom ? lv->ndom : 1, sizeof *k->val[i]))) {
            st = TSCHED_E_NOMEM;
            break;
        }
        for (uint32_t d = 0; d < lv->ndom && st == TSCHED_OK; d++) {
            const char *name = lv->name[d];
            if (strchr(name, '/')) {
                char *dots = ts_strdup(name);
                if ((st = own(k, dots)) != TSCHED_OK)
                    break;
                for (char *p = dots; *p; p++)
                    if (*p == '/')
                        *p = '.';
                name = dots;
            }
            char what[400];
            ts_export_domain_what(what, sizeof what, k->x, lv, d);
            if ((st = checked(&k->val[i][d], k, name, &HYPERNODE_NAME, what)) != TSCHED_OK)
                break;
            uint32_t id;
            int added = 0;
            if ((st = ts_strtab_intern(&seen, k->val[i][d], &id, &added)) != TSCHED_OK)
                break;
            if (!added) {
                char a[400], q[QCAP];
                st = ts_error(TSCHED_E_DUPLICATE, "HyperNode %s: %s and %s get this name",
                              q80(q, sizeof q, k->val[i][d]),
                              ts_export_domain_what(a, sizeof a, k->x, k->lev[owner_lev[id]], owner_dom[id]), what);
                break;
            }
            owner_lev[id] = i;
            owner_dom[id] = d;
        }
    }
    ts_strtab_free(&seen);
    free(owner_lev);
    free(owner_dom);
    return st;
}

/* ---- documents ---------------------------------------------------------------------------- */

/* Write one document (and drop it): YAML with `---` between documents, or one item of the
 * List, indented under `items`. */
static tsched_status emit(kx *k, json_t *doc)
{
    if (!doc)
        return ts_error(TSCHED_E_NOMEM, "out of memory building a document");
    if (!k->x->o.json) {
        if (k->ndocs++)
            ts_sbuf_puts(&k->out, "---\n");
        ts_yaml_emit(&k->out, doc, 0);
        json_decref(doc);
        return TSCHED_OK;
    }
    char *s;
    tsched_status st = ts_json_dump(&s, doc);
    json_decref(doc);
    if (st != TSCHED_OK)
        return st;
    ts_sbuf_puts(&k->out, k->ndocs++ ? ",\n    " : "\n    ");
    for (const char *p = s; *p; p++) {
        ts_sbuf_putc(&k->out, *p);
        if (*p == '\n')
            ts_sbuf_puts(&k->out, "    ");
    }
    free(s);
    return TSCHED_OK;
}

static json_t *object_head(const char *api, const char *kind, json_t **metadata)
{
    json_t *o = json_object();
    *metadata = json_object();
    if (!o || !*metadata || json_object_set_new(o, "apiVersion", json_string(api)) ||
        json_object_set_new(o, "kind", json_string(kind)) || json_object_set_new(o, "metadata", *metadata)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Node names are never changed (they are the nodes' identity). Kueue and KAI write Node
 * objects: a DNS subdomain. A Volcano member name is also a qualified name: 63 at most. */
static tsched_status node_name_ok(const tsched_topology *t, uint32_t n, size_t max)
{
    const char *name = tsched_topology_node_name(t, n);
    size_t len = strlen(name);
    char q[QCAP];
    if (!dns_subdomain_ok(name, len))
        return ts_error(TSCHED_E_FORMAT,
                        "node %s: not a valid Kubernetes node name (a lower-case RFC 1123 subdomain); node names are "
                        "never sanitized",
                        q80(q, sizeof q, name));
    if (len > max)
        return ts_error(TSCHED_E_RANGE,
                        "node %s: %zu characters, over the limit of %zu of a HyperNode member name (Volcano's "
                        "admission policy: a qualified name); node names are never sanitized",
                        q80(q, sizeof q, name), len, max);
    return TSCHED_OK;
}

static tsched_status topology_docs(kx *k)
{
    const ts_export *x = k->x;
    int kai = x->o.to == TSCHED_EXPORT_KAI;
    static const char *const kueue_api[] = {"kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1",
                                            "kueue.x-k8s.io/v1alpha1"};
    const char *api = kai ? "kai.scheduler/v1alpha1" : kueue_api[x->o.kueue_api];
    int host = !x->o.no_hostname_level;
    /* v1alpha1 CRDs of the first TAS releases allow 8 levels; later ones 16 */
    uint32_t max = !kai && x->o.kueue_api == TSCHED_KUEUE_V1ALPHA1 ? KUEUE_V1ALPHA1_MAX_LEVELS : KUEUE_MAX_LEVELS;
    tsched_status st;
    if (k->nlev + host > max)
        return ts_error(TSCHED_E_RANGE, "%u levels%s exceed the %u levels a %s Topology may have", k->nlev,
                        host ? " and the hostname" : "", max, api);
    const char *name;
    if ((st = checked(&name, k, x->name, &OBJECT_NAME, "Topology")) != TSCHED_OK)
        return st;
    if ((st = label_values(k)) != TSCHED_OK)
        return st;
    json_t *md, *doc = object_head(api, "Topology", &md), *spec = json_object(), *levels = json_array();
    if (!doc || !spec || !levels || ts_json_set(md, "name", json_string(name)) || ts_json_set(doc, "spec", spec) ||
        ts_json_set(spec, "levels", levels)) {
        json_decref(doc);
        if (!doc) {
            json_decref(spec);
            json_decref(levels);
        }
        return ts_error(TSCHED_E_NOMEM, "out of memory building a document");
    }
    for (uint32_t j = 0; j < k->nlev + host; j++) {
        json_t *l = json_object();
        if ((st = ts_json_push(levels, l)) ||
            (st = ts_json_set(l, "nodeLabel", json_string(j < k->nlev ? k->key[k->nlev - 1 - j] : HOSTNAME_KEY)))) {
            json_decref(doc);
            return st;
        }
    }
    if ((st = emit(k, doc)) != TSCHED_OK)
        return st;
    for (uint32_t n = 0; n < x->dt.nnodes && !x->o.no_nodes; n++) {
        if ((st = node_name_ok(x->t, n, 253)) != TSCHED_OK)
            return st;
        json_t *nmd, *node = object_head("v1", "Node", &nmd), *labels = json_object();
        if (!node || !labels || ts_json_set(nmd, "name", json_string(tsched_topology_node_name(x->t, n))) ||
            ts_json_set(nmd, "labels", labels)) {
            json_decref(node);
            if (!node)
                json_decref(labels);
            return ts_error(TSCHED_E_NOMEM, "out of memory building a document");
        }
        for (uint32_t i = k->nlev; i-- > 0;)
            if ((st = ts_json_set(labels, k->key[i], json_string(k->val[i][k->lev[i]->node_dom[n]])))) {
                json_decref(node);
                return st;
            }
        if ((st = emit(k, node)) != TSCHED_OK)
            return st;
    }
    return TSCHED_OK;
}

static tsched_status member(json_t *members, const char *type, const char *name)
{
    json_t *m = json_object(), *sel, *em;
    tsched_status st;
    if ((st = ts_json_push(members, m)) || (st = ts_json_set(m, "type", json_string(type))) ||
        (st = ts_json_set(m, "selector", sel = json_object())) ||
        (st = ts_json_set(sel, "exactMatch", em = json_object())) || (st = ts_json_set(em, "name", json_string(name))))
        return st;
    return TSCHED_OK;
}

static tsched_status volcano_docs(kx *k)
{
    const ts_export *x = k->x;
    tsched_status st;
    if ((st = hypernode_names(k)) != TSCHED_OK)
        return st;
    uint32_t nn = x->dt.nnodes;
    for (uint32_t n = 0; n < nn; n++)
        if ((st = node_name_ok(x->t, n, HYPERNODE_NAME.max)) != TSCHED_OK)
            return st;
    /* members of every domain, by a counting sort over the level below (nodes for level 0) */
    size_t cap = nn + 1;
    for (uint32_t i = 0; i < k->nlev; i++)
        if (k->lev[i]->ndom + 1 > cap)
            cap = k->lev[i]->ndom + 1;
    uint32_t *off = ts_malloc(cap, sizeof *off), *list = ts_malloc(cap, sizeof *list);
    if (!off || !list) {
        st = TSCHED_E_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < k->nlev; i++) {
        const ts_dlevel *lv = k->lev[i], *below = i > 0 ? k->lev[i - 1] : NULL;
        uint32_t nm = below ? below->ndom : nn;
        memset(off, 0, ((size_t)lv->ndom + 1) * sizeof *off);
        for (uint32_t m = 0; m < nm; m++)
            off[(below ? ts_dlevel_parent(lv, below, m) : lv->node_dom[m]) + 1]++;
        for (uint32_t d = 0; d < lv->ndom; d++)
            off[d + 1] += off[d];
        for (uint32_t m = 0; m < nm; m++)
            list[off[below ? ts_dlevel_parent(lv, below, m) : lv->node_dom[m]]++] = m;
        for (uint32_t d = lv->ndom; d > 0; d--)
            off[d] = off[d - 1];
        off[0] = 0;
        char tn[16];
        const char *tier_name = lv->nvl ? "nvl" : ts_tier_name(tn, sizeof tn, lv->tier);
        for (uint32_t d = 0; d < lv->ndom; d++) {
            json_t *md, *doc = object_head("topology.volcano.sh/v1alpha1", "HyperNode", &md), *spec = json_object(),
                        *members = json_array();
            if (!doc || !spec || !members || ts_json_set(md, "name", json_string(k->val[i][d])) ||
                ts_json_set(doc, "spec", spec) || ts_json_set(spec, "tier", json_integer((json_int_t)i + 1)) ||
                (x->o.tier_names && ts_json_set(spec, "tierName", json_string(tier_name))) ||
                ts_json_set(spec, "members", members)) {
                json_decref(doc);
                if (!doc) {
                    json_decref(spec);
                    json_decref(members);
                }
                st = ts_error(TSCHED_E_NOMEM, "out of memory building a document");
                goto out;
            }
            for (uint32_t j = off[d]; j < off[d + 1]; j++)
                if ((st = member(members, below ? "HyperNode" : "Node",
                                 below ? k->val[i - 1][list[j]] : tsched_topology_node_name(x->t, list[j])))) {
                    json_decref(doc);
                    goto out;
                }
            if ((st = emit(k, doc)) != TSCHED_OK)
                goto out;
        }
    }
out:
    free(off);
    free(list);
    return st;
}

tsched_status ts_export_k8s(char **out, ts_export *x)
{
    kx k;
    memset(&k, 0, sizeof k);
    k.x = x;
    ts_sbuf_init(&k.out);
    const ts_dtree *d = &x->dt;
    if (d->has_nvl && d->nvl_pos < 0) {
        /* a witness: an NVLink domain over two leaves */
        const char *dom = "", *l1 = "", *l2 = "";
        for (uint32_t n = 0; n < d->nnodes && d->ntiers > 0; n++) {
            uint32_t v = d->nvl.node_dom[n], f = d->nvl.first_node[v];
            if (d->tier[0].node_dom[n] != d->tier[0].node_dom[f]) {
                dom = d->nvl.name[v];
                l1 = d->tier[0].name[d->tier[0].node_dom[f]];
                l2 = d->tier[0].name[d->tier[0].node_dom[n]];
                break;
            }
        }
        char q[QCAP], q1[QCAP], q2[QCAP];
        ts_export_warn("the NVLink domains nest nowhere in the domain tree (NVLink domain %s spans leaves %s and %s, "
                       "and no tier lies between them either): the NVLink level is left out of the export",
                       q80(q, sizeof q, dom), q80(q1, sizeof q1, l1), q80(q2, sizeof q2, l2));
    }
    k.nlev = ts_dtree_nlevels(d);
    for (uint32_t i = 0; i < k.nlev; i++)
        k.lev[i] = ts_dtree_level(d, i);
    tsched_status st = choose_keys(&k);
    if (st == TSCHED_OK && x->o.json)
        ts_sbuf_puts(&k.out, "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [");
    if (st == TSCHED_OK)
        st = x->o.to == TSCHED_EXPORT_VOLCANO ? volcano_docs(&k) : topology_docs(&k);
    if (st == TSCHED_OK && x->o.json)
        ts_sbuf_puts(&k.out, k.ndocs ? "\n  ]\n}\n" : "]\n}\n");
    if (st == TSCHED_OK)
        st = ts_sbuf_take(out, &k.out);
    kx_free(&k);
    return st;
}
