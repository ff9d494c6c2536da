/* The fabric model's size limits, apart from its internals: the readers of foreign formats
 * (import/slurm_conf.c) refuse a value with its line number before the builder sees it, and
 * need these numbers and nothing else of the model. */
#ifndef TS_TOPOLOGY_LIMITS_H
#define TS_TOPOLOGY_LIMITS_H

/* Limits that keep every index in 32 bits and a fabric well inside memory. */
#define TS_MAX_NODES (1u << 22)     /* 4,194,304 nodes */
#define TS_MAX_SWITCHES (1u << 20)  /* 1,048,576 switches */
#define TS_MAX_TRUNKS (1u << 22)    /* 4,194,304 trunks */
#define TS_MAX_GPUS_PER_NODE 1024u
#define TS_MAX_NICS_PER_NODE 256u
#define TS_MAX_LINK_COUNT 1000000u
#define TS_MAX_MEMBERS (1u << 28)   /* member links of all trunks together */
#define TS_MAX_GBPS 1e9             /* 1 Pbit/s per link */
#define TS_MIN_GBPS 1e-6            /* 1 kbit/s: a trunk's capacity is never 0 or denormal */
#define TS_MAX_PROFILE_MATRIX 512u  /* path-count profiles tabulated up to this many */
#define TS_INDEX_RESERVE (1u << 24) /* profile items reserved at build at most (64 MiB) */

#endif
