// libtopo-sched: network-topology-aware scheduling for GPU clusters.
// Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.

package toposched

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The live state (issue 25 item 3) through the import functions: the options pods-json and
// nodes-json reach the service (through Extra), and the fabric has the free GPUs and down
// nodes of the command line on the same files.

// liveState is (free GPUs of every node, sorted down nodes) of a tsched.topology.v1 document.
func liveState(t *testing.T, doc interface{}) (map[string]int, []string) {
	t.Helper()
	d := doc.(map[string]interface{})
	state, _ := d["state"].(map[string]interface{})
	freeGpus, _ := state["free_gpus"].(map[string]interface{})
	free := map[string]int{}
	for _, n := range d["nodes"].([]interface{}) {
		m := n.(map[string]interface{})
		name := m["name"].(string)
		free[name] = int(m["gpus"].(float64))
		if f, ok := freeGpus[name]; ok {
			free[name] = int(f.(float64))
		}
	}
	down := []string{}
	if ds, ok := state["down"].([]interface{}); ok {
		for _, x := range ds {
			down = append(down, x.(string))
		}
	}
	sort.Strings(down)
	return free, down
}

func TestLiveK8sPods(t *testing.T) {
	// tests/data/k8s/README.md: worked out by hand
	want := map[string]int{"gpu01": 2, "gpu02": 5, "gpu03": 0, "gpu04": 0, "gpu07": 3}
	levels := []string{"example.com/block", "example.com/rack"}
	cliDoc := runCLI(t, "topology", "import-k8s-nodes", data("import", "nodes.json"), "--levels",
		strings.Join(levels, ","), "--pods-json", data("k8s", "pods-small.json"))
	if free, down := liveState(t, cliDoc); !reflect.DeepEqual(free, want) || !reflect.DeepEqual(down, []string{"gpu02", "gpu03"}) {
		t.Fatalf("the command: free %v down %v", free, down)
	}
	topo, err := ImportK8sNodes(read(t, "import", "nodes.json"), K8sOptions{Levels: levels,
		Extra: map[string]interface{}{"pods-json": string(read(t, "k8s", "pods-small.json"))}})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	doc := topoJSON(t, topo)
	if free, down := liveState(t, doc); !reflect.DeepEqual(free, want) || !reflect.DeepEqual(down, []string{"gpu02", "gpu03"}) {
		t.Fatalf("the binding: free %v down %v", free, down)
	}
	if !reflect.DeepEqual(doc, cliDoc) {
		t.Fatal("the binding's fabric differs from the command's")
	}
	// a malformed pod list: the error names the option and the field
	_, err = ImportK8sNodes(read(t, "import", "nodes.json"), K8sOptions{Levels: levels,
		Extra: map[string]interface{}{"pods-json": `{"kind": "List", "items": [{"spec": {}, "status": {"phase": "running"}}]}`}})
	if err == nil || !strings.Contains(err.Error(), `options.pods-json: items[0].status.phase: "running" is not a pod phase`) {
		t.Fatalf("want the pod list's error, got %v", err)
	}
}

func TestLiveSlurmNodes(t *testing.T) {
	cliDoc := runCLI(t, "topology", "import-slurm", data("slurm", "topology-16.conf"), "--nodes-json",
		data("slurm", "sinfo-22.05.json"))
	free, down := liveState(t, cliDoc)
	busy := len(down) > 0
	for _, f := range free {
		busy = busy || f < 8
	}
	if !busy {
		t.Fatal("the recorded sinfo has no busy or down node")
	}
	topo, err := ImportSlurm(read(t, "slurm", "topology-16.conf"),
		SlurmOptions{Extra: map[string]interface{}{"nodes-json": string(read(t, "slurm", "sinfo-22.05.json"))}})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	doc := topoJSON(t, topo)
	if f2, d2 := liveState(t, doc); !reflect.DeepEqual(f2, free) || !reflect.DeepEqual(d2, down) {
		t.Fatalf("the binding: free %v down %v; the command: %v %v", f2, d2, free, down)
	}
}
