/* The cycle's fabric from the controller: the switches of slurm_load_topo() (or a topology
 * file) and the node state of slurm_load_node(), turned into the texts the library's Slurm
 * import reads (text.c), so that ONE implementation -- the library's -- decides each node's
 * GPUs, free GPUs and whether it may be used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "placer.h"

/* A topology file larger than this is refused (the library's own input limit is larger;
 * no real topology file comes near it). */
#define TOPO_FILE_MAX ((size_t)256 << 20)

static int slurm_fail(char *err, size_t cap, const char *call)
{
    snprintf(err, cap, "%s: %s", call, slurm_strerror(slurm_get_errno()));
    return PS_E_SLURM;
}

static int lib_fail(char *err, size_t cap, const char *what)
{
    snprintf(err, cap, "%s: %s", what, tsched_last_error());
    return PS_E_OTHER;
}

/* Base states as `sinfo --json` (Slurm 22.05) spells them, by enum node_states. */
static const char *const base_names[] = {"unknown", "down", "idle", "allocated", "error", "mixed", "future"};

/* State flags as `sinfo --json` spells them (node_state_flag_string_single() of 22.05). */
static const struct {
    uint32_t bit;
    const char *name;
} flag_names[] = {
    {NODE_STATE_NET, "NET"},
    {NODE_STATE_RES, "RESERVED"},
    {NODE_STATE_UNDRAIN, "UNDRAIN"},
    {NODE_STATE_CLOUD, "CLOUD"},
    {NODE_RESUME, "RESUME"},
    {NODE_STATE_DRAIN, "DRAIN"},
    {NODE_STATE_COMPLETING, "COMPLETING"},
    {NODE_STATE_NO_RESPOND, "NOT_RESPONDING"},
    {NODE_STATE_POWERED_DOWN, "POWERED_DOWN"},
    {NODE_STATE_FAIL, "FAIL"},
    {NODE_STATE_POWERING_UP, "POWERING_UP"},
    {NODE_STATE_MAINT, "MAINTENANCE"},
    {NODE_STATE_REBOOT_REQUESTED, "REBOOT_REQUESTED"},
    {NODE_STATE_REBOOT_CANCEL, "REBOOT_CANCELED"},
    {NODE_STATE_POWERING_DOWN, "POWERING_DOWN"},
    {NODE_STATE_DYNAMIC_FUTURE, "DYNAMIC_FUTURE"},
    {NODE_STATE_REBOOT_ISSUED, "REBOOT_ISSUED"},
    {NODE_STATE_PLANNED, "PLANNED"},
    {NODE_STATE_INVALID_REG, "INVALID_REG"},
    {NODE_STATE_POWER_DOWN, "POWER_DOWN"},
    {NODE_STATE_POWER_UP, "POWER_UP"},
    {NODE_STATE_POWER_DRAIN, "POWER_DRAIN"},
    {NODE_STATE_DYNAMIC_NORM, "DYNAMIC_NORM"},
};

/* The node-state JSON of the controller's nodes (NULL on failure, err set). */
static int load_nodes_json(char **out, char *err, size_t cap)
{
    node_info_msg_t *msg = NULL;
    /* SHOW_DETAIL: gres_used; SHOW_MIXED: the controller reports partly used nodes as MIXED */
    if (slurm_load_node((time_t)0, &msg, SHOW_ALL | SHOW_DETAIL | SHOW_MIXED) != SLURM_SUCCESS)
        return slurm_fail(err, cap, "slurm_load_node");
    ps_node *nodes = calloc(msg->record_count ? msg->record_count : 1, sizeof *nodes);
    if (!nodes) {
        slurm_free_node_info_msg(msg);
        snprintf(err, cap, "out of memory");
        return PS_E_OTHER;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const node_info_t *ni = &msg->node_array[i];
        if (!ni->name) /* a hole left by a removed dynamic node */
            continue;
        ps_node *x = &nodes[n++];
        x->name = ni->name;
        x->gres = ni->gres;
        x->gres_used = ni->gres_used;
        uint32_t base = ni->node_state & NODE_STATE_BASE;
        x->state = base < sizeof base_names / sizeof base_names[0] ? base_names[base] : "unknown";
        for (size_t f = 0; f < sizeof flag_names / sizeof flag_names[0]; f++)
            if ((ni->node_state & flag_names[f].bit) && x->nflags < sizeof x->flags / sizeof x->flags[0])
                x->flags[x->nflags++] = flag_names[f].name;
    }
    int rc = ps_nodes_json(out, nodes, n);
    free(nodes);
    slurm_free_node_info_msg(msg);
    if (rc != 0) {
        snprintf(err, cap, "out of memory");
        return PS_E_OTHER;
    }
    return PS_OK;
}

/* The topology.conf text of the controller's switches. */
static int load_topo_conf(char **out, char *err, size_t cap)
{
    topo_info_response_msg_t *msg = NULL;
    if (slurm_load_topo(&msg) != SLURM_SUCCESS)
        return slurm_fail(err, cap, "slurm_load_topo");
    if (!msg || msg->record_count == 0) {
        if (msg)
            slurm_free_topo_info_msg(msg);
        snprintf(err, cap, "slurm_load_topo: the controller reports no switches (TopologyPlugin is not "
                           "topology/tree?); give the fabric with --topology FILE");
        return PS_E_OTHER;
    }
    ps_switch *sw = calloc(msg->record_count, sizeof *sw);
    int rc = sw ? 0 : -1;
    for (uint32_t i = 0; sw && i < msg->record_count; i++) {
        const topo_info_t *t = &msg->topo_array[i];
        sw[i] = (ps_switch){t->name ? t->name : "", t->level, t->nodes, t->switches};
    }
    if (sw)
        rc = ps_topology_conf(out, sw, msg->record_count);
    free(sw);
    slurm_free_topo_info_msg(msg);
    if (rc != 0) {
        snprintf(err, cap, "out of memory");
        return PS_E_OTHER;
    }
    return PS_OK;
}

static int read_file(char **out, size_t *len, const char *path, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "--topology %s: %s", path, strerror(errno));
        return PS_E_OTHER;
    }
    ps_buf b = {0};
    char chunk[65536];
    size_t n;
    ps_buf_str(&b, "");
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= TOPO_FILE_MAX)
        ps_buf_add(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad || b.failed || b.len > TOPO_FILE_MAX) {
        snprintf(err, cap, "--topology %s: %s", path, bad ? "read error" : b.failed ? "out of memory" : "file too large");
        free(b.s);
        return PS_E_OTHER;
    }
    *out = b.s;
    *len = b.len;
    return PS_OK;
}

/* What a topology file is, by its content: 'j' tsched.topology.v1 JSON, 'c' topology.conf
 * (a line starting with SwitchName= or BlockName=), 'y' topology.yaml. */
static char file_kind(const char *s)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p == '{')
        return 'j';
    for (const char *line = s; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (!strncasecmp(line, "SwitchName=", 11) || !strncasecmp(line, "BlockName=", 10))
            return 'c';
    }
    return 'y';
}

int ps_live_fabric(tsched_topology **out, const ps_config *cfg, char *err, size_t errcap)
{
    *out = NULL;
    char *topo = NULL, *nodes = NULL;
    size_t topo_len = 0;
    char kind = 'c';
    int rc;
    if (cfg->topology) {
        if ((rc = read_file(&topo, &topo_len, cfg->topology, err, errcap)) != PS_OK)
            return rc;
        kind = file_kind(topo);
    } else {
        if ((rc = load_topo_conf(&topo, err, errcap)) != PS_OK)
            return rc;
        topo_len = strlen(topo);
    }
    if ((rc = load_nodes_json(&nodes, err, errcap)) != PS_OK)
        goto out;
    tsched_slurm_options so;
    tsched_slurm_options_init(&so);
    if (cfg->gpus_per_node)
        so.gpus_per_node = cfg->gpus_per_node;
    if (cfg->nic_gbps > 0)
        so.nic_gbps = cfg->nic_gbps;
    tsched_status st;
    if (kind == 'j') {
        if ((st = tsched_topology_load_string(out, topo, topo_len)) != TSCHED_OK)
            rc = lib_fail(err, errcap, cfg->topology);
        else if (tsched_topology_apply_slurm_nodes(*out, nodes) != TSCHED_OK)
            rc = lib_fail(err, errcap, "live state");
    } else {
        so.nodes_json = nodes;
        st = kind == 'y' ? tsched_topology_import_slurm_yaml_string(out, topo, topo_len, &so)
                         : tsched_topology_import_slurm_string(out, topo, topo_len, &so);
        if (st != TSCHED_OK)
            rc = lib_fail(err, errcap, cfg->topology ? cfg->topology : "slurm_load_topo");
    }
    if (rc != PS_OK) {
        tsched_topology_free(*out);
        *out = NULL;
    }
out:
    free(topo);
    free(nodes);
    return rc;
}
