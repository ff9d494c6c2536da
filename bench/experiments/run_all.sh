#!/bin/sh
# Regenerate every experiment's table and plot (doc/EXPERIMENTS.md) into bench/experiments/out.
# usage: bench/experiments/run_all.sh [--quick] [--topo-sched PATH] [--out DIR]
# Extra arguments go to every script. E4 and E6 skip with a message when ../shared/data is absent
# (E6 also while the cell module is not implemented).
set -e
here=$(cd "$(dirname "$0")" && pwd)
for e in e1_crux_examples e2_crux_trace e3_vclos_table5 e4_routing_allreduce e5_arnold_placement e6_crius; do
    echo "== $e"
    start=$(date +%s)
    python3 "$here/$e.py" "$@"
    echo "== $e: $(( $(date +%s) - start )) s"
done
