// libtopo-sched: network-topology-aware scheduling for GPU clusters.
// Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.

package toposched

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

var k8sLevels = []string{"example.com/block", "example.com/rack", "kubernetes.io/hostname"}

const trainJob = `{"format": "tsched.job.v1", "name": "train", "gpus": 16, "tp": 8, "pp": 2}`

// cliText runs topo-sched and returns its standard output and error as text (exit 0 expected).
func cliText(t *testing.T, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(cli(t), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("topo-sched %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), stderr.String()
}

func topoJSON(t *testing.T, topo *Topology) interface{} {
	t.Helper()
	b, err := topo.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, b)
}

// partitions is the fabric's domain partition: for each tier, the sorted sets of node names
// under one switch of that tier, from the document's leaves and switch links alone.
func partitions(t *testing.T, doc interface{}) map[int][]string {
	t.Helper()
	d := doc.(map[string]interface{})
	tier := map[string]int{}
	for _, s := range d["switches"].([]interface{}) {
		m := s.(map[string]interface{})
		tier[m["name"].(string)] = int(m["tier"].(float64))
	}
	parent := map[string][]string{}
	if links, ok := d["links"].([]interface{}); ok {
		for _, l := range links {
			m := l.(map[string]interface{})
			a, b := m["a"].(string), m["b"].(string)
			if tier[a] > tier[b] {
				a, b = b, a
			}
			if tier[b] == tier[a]+1 {
				parent[a] = append(parent[a], b)
			}
		}
	}
	groups := map[string][]string{}
	for _, n := range d["nodes"].([]interface{}) {
		m := n.(map[string]interface{})
		seen := map[string]bool{}
		ups := []string{m["leaf"].(string)}
		for len(ups) > 0 {
			var next []string
			for _, sw := range ups {
				if !seen[sw] {
					seen[sw] = true
					groups[sw] = append(groups[sw], m["name"].(string))
					next = append(next, parent[sw]...)
				}
			}
			ups = next
		}
	}
	out := map[int][]string{}
	for sw, names := range groups {
		sort.Strings(names)
		out[tier[sw]] = append(out[tier[sw]], strings.Join(names, ","))
	}
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

// The user's journey: kubectl's node list -> a placement with its pod order -> Kueue -> Slurm
// and back, each step as the topo-sched command does it on the same files.
func TestJourneyKubernetesKueueSlurm(t *testing.T) {
	dir := t.TempDir()
	nodesFile := data("import", "nodes.json")
	nodes := read(t, "import", "nodes.json")
	topo, err := ImportK8sNodes(nodes, K8sOptions{Levels: k8sLevels})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	want := runCLI(t, "topology", "import-k8s-nodes", nodesFile, "--levels", strings.Join(k8sLevels, ","))
	if got := topoJSON(t, topo); !reflect.DeepEqual(got, want) {
		t.Fatalf("ImportK8sNodes differs from the command")
	}
	fabric := filepath.Join(dir, "fabric.json")
	b, _ := json.Marshal(want)
	if err := os.WriteFile(fabric, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// with the Kueue Topology instead of the levels
	kq, err := ImportK8sNodes(nodes, K8sOptions{KueueTopology: string(read(t, "import", "kueue-topology.yaml"))})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(topoJSON(t, kq), want) {
		t.Error("ImportK8sNodes with the Kueue Topology differs")
	}
	kq.Close()

	// place a job with its pod order and host file
	job, err := LoadJob([]byte(trainJob))
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	jobFile := filepath.Join(dir, "job.json")
	os.WriteFile(jobFile, []byte(trainJob), 0o644)
	l, err := PlaceWithLaunch(topo, job, PlaceOptions{NoTiming: true, PodOrder: true, Hostfile: true})
	if err != nil {
		t.Fatal(err)
	}
	pods, hosts := filepath.Join(dir, "pods.json"), filepath.Join(dir, "hosts")
	wantPl := runCLI(t, "place", "-t", fabric, "-j", jobFile, "--no-timing", "--pod-order", pods, "--hostfile", hosts)
	if !reflect.DeepEqual(parse(t, l.Placement), wantPl) {
		t.Errorf("placement %s differs from the command's", l.Placement)
	}
	if !reflect.DeepEqual(parse(t, l.PodOrder), parse(t, mustRead(t, pods))) {
		t.Errorf("pod order %s differs from the command's", l.PodOrder)
	}
	if l.Hostfile != string(mustRead(t, hosts)) || strings.Count(l.Hostfile, "\n") != 2 {
		t.Errorf("host file %q differs from the command's", l.Hostfile)
	}
	// the pod order written where the Kubernetes side reads it
	if err := os.WriteFile(filepath.Join(dir, "mine.json"), l.PodOrder, 0o644); err != nil {
		t.Fatal(err)
	}
	// Place alone: the same placement
	if pl, err := Place(topo, job, PlaceOptions{NoTiming: true, PodOrder: true}); err != nil ||
		!reflect.DeepEqual(parse(t, pl), wantPl) {
		t.Errorf("Place with launch options: %v", err)
	}

	// export to Kueue: the command's bytes
	for _, c := range []struct {
		o    ExportOptions
		args []string
	}{{ExportOptions{To: "kueue"}, nil},
		{ExportOptions{To: "kueue", KueueAPI: "v1beta1", Format: "json"}, []string{"--kueue-api", "v1beta1", "--format", "json"}},
		{ExportOptions{To: "volcano", TierNames: true, Levels: []string{"a.io/block", "a.io/nvl", "a.io/rack"}},
			[]string{"--tier-names", "--levels", "a.io/block,a.io/nvl,a.io/rack"}}} {
		got, err := topo.Export(c.o)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := cliText(t, append([]string{"topology", "export", "-t", fabric, "--to", c.o.To}, c.args...)...)
		if got != out {
			t.Errorf("Export(%+v) differs from the command's text", c.o)
		}
	}

	// export to Slurm and import it back: the same domain partition
	conf, err := topo.Export(ExportOptions{To: "slurm-conf"})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := cliText(t, "topology", "export", "-t", fabric, "--to", "slurm-conf"); conf != out {
		t.Errorf("slurm-conf export %q differs from the command's %q", conf, out)
	}
	back, err := ImportSlurm([]byte(conf), SlurmOptions{GpusPerNode: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	confFile := filepath.Join(dir, "back.conf")
	os.WriteFile(confFile, []byte(conf), 0o644)
	if !reflect.DeepEqual(topoJSON(t, back), runCLI(t, "topology", "import-slurm", confFile, "--gpus-per-node", "8")) {
		t.Error("ImportSlurm differs from the command")
	}
	pw, pb := partitions(t, want), partitions(t, topoJSON(t, back))
	if len(pw) != 2 || !reflect.DeepEqual(pw, pb) {
		t.Errorf("domain partitions: imported %v, back from Slurm %v", pw, pb)
	}
	yml, err := topo.Export(ExportOptions{To: "slurm-yaml"})
	if err != nil {
		t.Fatal(err)
	}
	by, err := ImportSlurmYAML([]byte(yml), SlurmOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(partitions(t, topoJSON(t, by)), pw) {
		t.Error("domain partition back from topology.yaml differs")
	}
	by.Close()
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestExportWarning(t *testing.T) {
	doc := `{"format": "tsched.topology.v1", "name": "w",
	 "switches": [{"name": "r1", "tier": 0}, {"name": "r2", "tier": 0}, {"name": "b", "tier": 1}],
	 "links": [{"a": "r1", "b": "b", "gbps": 400}, {"a": "r2", "b": "b", "gbps": 400}],
	 "nodes": [{"name": "g0", "leaf": "r1", "gpus": 8, "nvl_domain": "x"}, {"name": "g1", "leaf": "r1", "gpus": 8, "nvl_domain": "y"},
	           {"name": "g2", "leaf": "r2", "gpus": 8, "nvl_domain": "x"}, {"name": "g3", "leaf": "r2", "gpus": 8, "nvl_domain": "y"}]}`
	topo, err := LoadTopology([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	f := filepath.Join(t.TempDir(), "w.json")
	os.WriteFile(f, []byte(doc), 0o644)
	text, warning, err := topo.ExportWithWarning(ExportOptions{To: "kai"})
	if err != nil {
		t.Fatal(err)
	}
	out, errText := cliText(t, "topology", "export", "-t", f, "--to", "kai")
	if text != out || warning == "" || !strings.Contains(errText, warning) {
		t.Errorf("warning %q, the command's stderr %q", warning, errText)
	}
	if _, warning, _ = topo.ExportWithWarning(ExportOptions{To: "slurm-conf"}); warning != "" {
		t.Errorf("slurm-conf: warning %q", warning)
	}
}

func TestSlurmImportsAreTheCommands(t *testing.T) {
	for _, c := range []struct {
		file string
		o    SlurmOptions
		args []string
	}{{"tree.conf", SlurmOptions{}, nil},
		{"block.conf", SlurmOptions{GpusPerNode: 4, NoNvl: true}, []string{"--gpus-per-node", "4", "--no-nvl"}},
		{"scontrol-tree.txt", SlurmOptions{NicGbps: 200, GpuType: "H100", Name: "x"},
			[]string{"--nic-gbps", "200", "--gpu-type", "H100", "--name", "x"}}} {
		topo, err := ImportSlurm(read(t, "import", c.file), c.o)
		if err != nil {
			t.Fatal(err)
		}
		want := runCLI(t, append([]string{"topology", "import-slurm", data("import", c.file)}, c.args...)...)
		if !reflect.DeepEqual(topoJSON(t, topo), want) {
			t.Errorf("%s: ImportSlurm differs from the command", c.file)
		}
		topo.Close()
	}
	topo, err := ImportSlurmYAML(read(t, "import", "topology.yaml"), SlurmOptions{NvlTopology: "nvlink"})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	want := runCLI(t, "topology", "import-slurm-yaml", data("import", "topology.yaml"), "--nvl-topology", "nvlink")
	if !reflect.DeepEqual(topoJSON(t, topo), want) {
		t.Error("ImportSlurmYAML differs from the command")
	}
	one, err := ImportK8sNodes(read(t, "import", "node-single.json"), K8sOptions{Levels: []string{"example.com/rack"},
		NvlLabel: String(""), GpuType: "X", NicsPerNode: 2, NicGbps: 100, Name: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	want = runCLI(t, "topology", "import-k8s-nodes", data("import", "node-single.json"), "--levels", "example.com/rack",
		"--nvl-label", "", "--gpu-type", "X", "--nics-per-node", "2", "--nic-gbps", "100", "--name", "prod")
	if !reflect.DeepEqual(topoJSON(t, one), want) {
		t.Error("ImportK8sNodes with node options differs from the command")
	}
}

func TestInteropErrorsNameTheField(t *testing.T) {
	topo, err := LoadTopologyFile(data("cli", "cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	job, _ := LoadJob([]byte(trainJob))
	defer job.Close()
	nodes := read(t, "import", "nodes.json")
	for _, c := range []struct {
		err   error
		field string
	}{
		{func() error { _, err := ImportSlurm([]byte("junk"), SlurmOptions{}); return err }(), "text: line 1"},
		{func() error { _, err := ImportSlurm([]byte{0xff}, SlurmOptions{}); return err }(), "text: not UTF-8"},
		{func() error { _, err := ImportK8sNodes(nodes, K8sOptions{}); return err }(), "options: give exactly one"},
		{func() error { _, err := ImportK8sNodes(nodes, K8sOptions{Levels: []string{"a", ""}}); return err }(), "options.levels[1]"},
		{func() error { _, err := ImportK8sNodes([]byte("{}"), K8sOptions{Levels: []string{"a"}}); return err }(), "nodes: "},
		{func() error { _, err := topo.Export(ExportOptions{}); return err }(), "options.to: missing"},
		{func() error { _, err := topo.Export(ExportOptions{To: "slurm-conf", TierNames: true}); return err }(), "options.tier-names"},
		{func() error { _, err := PlaceWithLaunch(topo, job, PlaceOptions{IndexLabel: "x"}); return err }(), "options.index-label"},
		{func() error {
			_, err := PlaceWithLaunch(topo, job, PlaceOptions{PodOrder: true, TasksPerNode: 5000})
			return err
		}(), "options.tasks-per-node"},
	} {
		e := libError(t, c.err)
		if !strings.HasPrefix(e.Msg, c.field) {
			t.Errorf("error %q does not start with %q", e.Msg, c.field)
		}
		if c.field != "text: not UTF-8" && e.Exit != 2 {
			t.Errorf("%q: exit %d", e.Msg, e.Exit)
		}
	}
}

// The Kueue options of issue 25 reach the library: the same text as the command with the
// same flags, and neither the hostname level nor a Node object in it.
func TestExportKueueOptions(t *testing.T) {
	doc := `{"format": "tsched.topology.v1", "name": "k",
	 "switches": [{"name": "r1", "tier": 0}, {"name": "r2", "tier": 0}, {"name": "b", "tier": 1}],
	 "links": [{"a": "r1", "b": "b", "gbps": 400}, {"a": "r2", "b": "b", "gbps": 400}],
	 "nodes": [{"name": "g0", "leaf": "r1", "gpus": 8}, {"name": "g1", "leaf": "r2", "gpus": 8}]}`
	topo, err := LoadTopology([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	f := filepath.Join(t.TempDir(), "k.json")
	os.WriteFile(f, []byte(doc), 0o644)
	full, err := topo.Export(ExportOptions{To: "kueue"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full, "kubernetes.io/hostname") || !strings.Contains(full, "kind: Node") {
		t.Fatalf("default export lacks the hostname level or the nodes:\n%s", full)
	}
	text, err := topo.Export(ExportOptions{To: "kueue", NoHostnameLevel: true, NoNodes: true, KueueAPI: "v1alpha1", Name: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cliText(t, "topology", "export", "-t", f, "--to", "kueue", "--no-hostname-level", "--no-nodes",
		"--kueue-api", "v1alpha1", "--name", "prod")
	if text != out {
		t.Errorf("binding %q, command %q", text, out)
	}
	if strings.Contains(text, "kubernetes.io/hostname") || strings.Contains(text, "kind: Node") ||
		!strings.Contains(text, "v1alpha1") || !strings.Contains(text, "name: prod") {
		t.Errorf("options not applied:\n%s", text)
	}
}
