/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/** @file topo-sched.h @brief Includes every public header of libtopo-sched. */
#ifndef TOPO_SCHED_H
#define TOPO_SCHED_H

#include "common.h"
#include "topology.h"
#include "workload.h"
#include "placement.h"
#include "routing.h"
#include "priority.h"
#include "sim.h"
#include "trace.h"
#include "vclos.h"
#include "cell.h"
#include "service.h"

#endif /* TOPO_SCHED_H */
