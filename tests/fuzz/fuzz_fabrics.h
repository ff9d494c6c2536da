/* The small fabrics the fuzz targets attach requests and documents to (one definition for
 * fuzz_topology.c and fuzz_service.c). Each returns NULL if generation fails. */
#ifndef FUZZ_FABRICS_H
#define FUZZ_FABRICS_H

#include <topo-sched/topo-sched.h>

/* A 3-tier Clos: 2 pods of 2 leaves and 2 spines, 2 cores, 2 nodes a leaf (8 nodes). */
static inline tsched_topology *fuzz_small_clos(void)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_CLOS3);
    g.pods = 2;
    g.leaves_per_pod = 2;
    g.spines_per_pod = 2;
    g.cores = 2;
    g.nodes_per_leaf = 2;
    tsched_topology *t = NULL;
    tsched_topology_generate(&t, &g);
    return t;
}

/* A 4 x 4 leaf-spine with 2 member links a pair, 2 nodes a leaf of 2 GPUs and 2 NICs (vclos). */
static inline tsched_topology *fuzz_leaf_spine(void)
{
    tsched_gen_params g;
    tsched_topology_params_init(&g, TSCHED_GEN_LEAF_SPINE);
    g.leaves = 4;
    g.spines = 4;
    g.uplinks = 2;
    g.nodes_per_leaf = 2;
    g.gpus_per_node = 2;
    g.nics_per_node = 2;
    tsched_topology *t = NULL;
    tsched_topology_generate(&t, &g);
    return t;
}

#endif
