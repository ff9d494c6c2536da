// A scheduler's decision loop in Go with the toposched package: load a fabric, take the
// queued jobs in order, place each one (the MIP), mark the GPUs it took as used, turn its
// data-parallel ring into flows and route them; a job that does not fit waits.
//
// Runs as it is from a build tree through meson's developer environment, which points
// PKG_CONFIG_PATH at the build's uninstalled topo-sched.pc and LD_LIBRARY_PATH at the
// just-built library:
//
//	meson devenv -C build -w examples/go go run .
//
// or, after `meson install` into /usr/local and `ldconfig`, as `go run .` in this folder
// (another prefix: PKG_CONFIG_PATH and LD_LIBRARY_PATH as README's "Linking it" says).
// Usage: go run . [FABRIC.json]
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	toposched "github.com/libtopo-sched/libtopo-sched/bindings/go"
)

const fabric = `{"format": "tsched.topology.v1", "name": "example",
 "generate": {"kind": "clos3", "pods": 4, "leaves_per_pod": 8, "spines_per_pod": 8, "cores": 8,
              "nodes_per_leaf": 8, "gpus_per_node": 8, "nic_gbps": 400, "gpu_type": "H800"}}`

var queue = []string{
	`{"format": "tsched.job.v1", "name": "llm-a", "gpus": 512, "tp": 8, "pp": 4, "alpha": 0.3}`,
	`{"format": "tsched.job.v1", "name": "bert", "gpus": 64, "tp": 8, "pp": 1}`,
	`{"format": "tsched.job.v1", "name": "too-big", "gpus": 4096, "tp": 8, "pp": 8}`,
	`{"format": "tsched.job.v1", "name": "llm-b", "gpus": 1024, "tp": 8, "pp": 8, "alpha": 0.7}`,
}

type placement struct {
	Rows, Cols int
	PodsUsed   int `json:"pods_used"`
	Spread     struct{ Weighted float64 }
	Assignment []struct{ Node string }
}

func freeGPUs(t *toposched.Topology) int {
	b, err := t.Summary()
	check(err)
	var s struct {
		FreeGPUs int `json:"free_gpus"`
	}
	check(json.Unmarshal(b, &s))
	return s.FreeGPUs
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
}

func main() {
	var topo *toposched.Topology
	var err error
	if len(os.Args) > 1 {
		topo, err = toposched.LoadTopologyFile(os.Args[1])
	} else {
		topo, err = toposched.LoadTopology([]byte(fabric))
	}
	check(err)
	defer topo.Close()
	fmt.Println("libtopo-sched", toposched.LibraryVersion())

	doc, err := topo.ToJSON()
	check(err)
	var f struct {
		Nodes []struct {
			Name string
			Gpus int
		}
	}
	check(json.Unmarshal(doc, &f))
	gpusOf := map[string]int{}
	for _, n := range f.Nodes {
		gpusOf[n.Name] = n.Gpus
	}

	before, placedGPUs := freeGPUs(topo), 0
	taken := map[string]bool{}
	for _, text := range queue {
		job, err := toposched.LoadJob([]byte(text))
		check(err)
		var meta struct {
			Name string
			Gpus int
		}
		check(json.Unmarshal([]byte(text), &meta))
		out, err := toposched.Place(topo, job, toposched.PlaceOptions{Algo: "mip", TimeLimitMs: 5000})
		job.Close()
		var e *toposched.Error
		if errors.As(err, &e) && e.Exit == 1 { // no feasible placement now: the job waits
			fmt.Printf("%-8s waits: %s\n", meta.Name, e.Msg)
			continue
		}
		check(err)
		var pl placement
		check(json.Unmarshal(out, &pl))
		perNode := meta.Gpus / len(pl.Assignment)
		for _, a := range pl.Assignment { // the job's GPUs are now in use
			if taken[a.Node] {
				check(fmt.Errorf("node %s placed twice", a.Node))
			}
			taken[a.Node] = true
			check(topo.SetFreeGPUs(a.Node, gpusOf[a.Node]-perNode))
		}
		placedGPUs += meta.Gpus
		flows, err := toposched.Flows(topo, out, toposched.FlowsOptions{Pattern: "dp-ring", Gbits: 10})
		check(err)
		routes, err := toposched.Route(topo, flows, toposched.RouteOptions{Algo: "greedy"})
		check(err)
		var r struct {
			Flows        []json.RawMessage
			MaxLinkFlows int     `json:"max_link_flows"`
			MinRateGbps  float64 `json:"min_rate_gbps"`
		}
		check(json.Unmarshal(routes, &r))
		fmt.Printf("%-8s %d x %d nodes, %d pods, weighted spread %.2f; %d ring flows, at most %d on one trunk, slowest %.1f Gbit/s\n",
			meta.Name, pl.Rows, pl.Cols, pl.PodsUsed, pl.Spread.Weighted, len(r.Flows), r.MaxLinkFlows, r.MinRateGbps)
	}
	after := freeGPUs(topo)
	fmt.Printf("free GPUs: %d -> %d\n", before, after)
	if after != before-placedGPUs || placedGPUs == 0 {
		os.Exit(1)
	}
}
