// libtopo-sched: network-topology-aware scheduling for GPU clusters.
// Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.

package toposched

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const leafSpine = `{"format": "tsched.topology.v1", "name": "ls",
 "generate": {"kind": "leaf_spine", "leaves": 4, "spines": 2, "nodes_per_leaf": 3,
              "gpus_per_node": 8, "nic_gbps": 400, "gpu_type": "H100"}}`

const jobDoc = `{"format": "tsched.job.v1", "name": "j", "gpus": 32, "tp": 8, "pp": 2, "alpha": 0.3}`

// data is a file of the project's tests/data (TOPO_SCHED_SOURCE, else two levels up).
func data(parts ...string) string {
	src := os.Getenv("TOPO_SCHED_SOURCE")
	if src == "" {
		src = filepath.Join("..", "..")
	}
	return filepath.Join(append([]string{src, "tests", "data"}, parts...)...)
}

func read(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(data(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cli(t *testing.T) string {
	t.Helper()
	if c := os.Getenv("TOPO_SCHED_CLI"); c != "" {
		return c
	}
	c, err := exec.LookPath("topo-sched")
	if err != nil {
		t.Skip("no topo-sched command (set TOPO_SCHED_CLI)")
	}
	return c
}

// runCLI runs topo-sched and returns its output parsed.
func runCLI(t *testing.T, args ...string) interface{} {
	t.Helper()
	cmd := exec.Command(cli(t), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("topo-sched %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return parse(t, out)
}

func parse(t *testing.T, b []byte) interface{} {
	t.Helper()
	var v interface{}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

func object(t *testing.T, b []byte) map[string]interface{} {
	t.Helper()
	m, ok := parse(t, b).(map[string]interface{})
	if !ok {
		t.Fatalf("not an object: %s", b)
	}
	return m
}

func libError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *Error, got %T %v", err, err)
	}
	return e
}

func sameAsCLI(t *testing.T, got []byte, err error, args ...string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	want := runCLI(t, args...)
	if g := parse(t, got); !reflect.DeepEqual(g, want) {
		t.Fatalf("%v differs from topo-sched %s:\n got %s", args[0], strings.Join(args, " "), got)
	}
}

func TestVersion(t *testing.T) {
	v := LibraryVersion()
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("version %q", v)
	}
	if want := os.Getenv("TOPO_SCHED_VERSION"); want != "" && v != want {
		t.Fatalf("library %s, project %s", v, want)
	}
	out, err := exec.Command(cli(t), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out)); f[len(f)-1] != v {
		t.Fatalf("topo-sched --version says %q, the library %q", out, v)
	}
	if StatusNumber("TSCHED_E_PARSE") != 3 || StatusName(7) != "TSCHED_E_NOT_FOUND" || StatusNumber("nope") != -1 {
		t.Fatal("status table")
	}
}

func TestGeneratedSummary(t *testing.T) {
	topo, err := LoadTopology([]byte(leafSpine))
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	b, err := topo.Summary()
	if err != nil {
		t.Fatal(err)
	}
	s := object(t, b)
	for k, want := range map[string]float64{"nodes": 12, "gpus": 96, "free_gpus": 96, "trunks": 8} {
		if s[k] != want {
			t.Errorf("%s = %v, want %v", k, s[k], want)
		}
	}
	if !reflect.DeepEqual(s["switches"], map[string]interface{}{"leaf": 4.0, "spine": 2.0, "core": 0.0}) {
		t.Errorf("switches = %v", s["switches"])
	}
}

func TestLoadedSummaryIsTheCLIOne(t *testing.T) {
	path := data("cli", "small.json")
	a, err := LoadTopologyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := LoadTopology(read(t, "cli", "small.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, topo := range []*Topology{a, b} {
		s, err := topo.Summary()
		sameAsCLI(t, s, err, "topology", "show", "-t", path)
	}
}

func TestStateUpdates(t *testing.T) {
	topo, err := LoadTopology([]byte(leafSpine))
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	for _, e := range []error{topo.SetFreeGPUs("node0", 3), topo.SetUp("node1", false), topo.SetUp("spine1", false),
		topo.SetUp("leaf0~spine0", false)} {
		if e != nil {
			t.Fatal(e)
		}
	}
	b, _ := topo.Summary()
	s := object(t, b)
	if s["free_gpus"] != float64(96-5-8) || s["up_nodes"] != 11.0 {
		t.Fatalf("summary after updates: %s", b)
	}
	down := s["down"].(map[string]interface{})
	if !reflect.DeepEqual(down["trunks"], []interface{}{"leaf0~spine0"}) ||
		!reflect.DeepEqual(down["switches"], []interface{}{"spine1"}) {
		t.Fatalf("down: %v", down)
	}
	e := libError(t, topo.SetFreeGPUs("nosuch", 1))
	if e.Status != StatusNotFound || !strings.Contains(e.Msg, "nosuch") {
		t.Fatalf("%+v", e)
	}
	if e := libError(t, topo.SetFreeGPUs("node0", 9)); e.Status != StatusRange {
		t.Fatalf("%+v", e)
	}
	if e := libError(t, topo.SetUp("spine9", false)); e.StatusName() != "TSCHED_E_NOT_FOUND" ||
		!strings.Contains(e.Msg, "spine9") {
		t.Fatalf("%+v", e)
	}
	doc, err := topo.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadTopology(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if d2, _ := again.ToJSON(); string(d2) != string(doc) {
		t.Fatal("ToJSON does not round-trip")
	}
}

func TestBadDocumentNamesTheField(t *testing.T) {
	bad := strings.Replace(leafSpine, `"gpus_per_node": 8`, `"gpus_per_node": 0`, 1)
	_, err := LoadTopology([]byte(bad))
	e := libError(t, err)
	if e.Status != StatusRange || e.StatusName() != "TSCHED_E_RANGE" || !strings.Contains(e.Error(), "generate.gpus_per_node") {
		t.Fatalf("%+v", e)
	}
	_, err = LoadJob([]byte(strings.Replace(jobDoc, `"tp": 8`, `"tp": "8"`, 1)))
	if e := libError(t, err); e.Status != StatusType || !strings.Contains(e.Msg, "tp") {
		t.Fatalf("%+v", e)
	}
	_, err = LoadTopologyFile(data("cli", "bad-leaf.json"))
	if e := libError(t, err); !strings.Contains(e.Msg, "bad-leaf.json") {
		t.Fatalf("%+v", e)
	}
	_, err = LoadTopology(nil)
	if e := libError(t, err); e.Status != StatusParse {
		t.Fatalf("%+v", e)
	}
}

func TestSecondCloseIsHarmless(t *testing.T) {
	topo, err := LoadTopology([]byte(leafSpine))
	if err != nil {
		t.Fatal(err)
	}
	job, err := LoadJob([]byte(jobDoc))
	if err != nil {
		t.Fatal(err)
	}
	topo.Close()
	topo.Close()
	job.Close()
	job.Close()
	if _, err := topo.Summary(); err != ErrClosed {
		t.Fatalf("Summary after Close: %v", err)
	}
	if _, err := job.ToJSON(); err != ErrClosed {
		t.Fatalf("ToJSON after Close: %v", err)
	}
	if _, err := Place(topo, job, PlaceOptions{}); err != ErrClosed {
		t.Fatalf("Place after Close: %v", err)
	}
	// Handles left to the finalizers.
	for i := 0; i < 100; i++ {
		LoadTopology([]byte(leafSpine))
		LoadJob([]byte(jobDoc))
	}
	runtime.GC()
}

func checkPlacement(t *testing.T, topo *Topology, b []byte) []string {
	t.Helper()
	pl := object(t, b)
	doc, _ := topo.ToJSON()
	var fabric struct {
		Nodes []struct{ Name string }
		State struct {
			FreeGPUs map[string]float64 `json:"free_gpus"`
			Down     []string
		}
	}
	if err := json.Unmarshal(doc, &fabric); err != nil {
		t.Fatal(err)
	}
	nodes := map[string]bool{}
	for _, n := range fabric.Nodes {
		nodes[n.Name] = true
	}
	for _, d := range fabric.State.Down {
		delete(nodes, d)
	}
	for n := range fabric.State.FreeGPUs {
		delete(nodes, n)
	}
	n := int(pl["rows"].(float64) * pl["cols"].(float64))
	assignment := pl["assignment"].([]interface{})
	if len(assignment) != n {
		t.Fatalf("%d ranks for %d slots", len(assignment), n)
	}
	seen := map[string]bool{}
	var ranks []int
	var used []string
	for _, a := range assignment {
		m := a.(map[string]interface{})
		node := m["node"].(string)
		if !nodes[node] {
			t.Fatalf("node %s is not a free up node of the fabric", node)
		}
		if seen[node] {
			t.Fatalf("node %s used twice", node)
		}
		seen[node] = true
		used = append(used, node)
		ranks = append(ranks, int(m["rank"].(float64)))
	}
	sort.Ints(ranks)
	for i, r := range ranks {
		if r != i {
			t.Fatalf("ranks %v are not 0..%d", ranks, n-1)
		}
	}
	return used
}

// clusterAndJob loads tests/data/cli/cluster.json and job.json; the caller closes both.
func clusterAndJob(t *testing.T) (string, *Topology, *Job) {
	t.Helper()
	path := data("cli", "cluster.json")
	topo, err := LoadTopologyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	job, err := LoadJobFile(data("cli", "job.json"))
	if err != nil {
		topo.Close()
		t.Fatal(err)
	}
	return path, topo, job
}

func TestPlace(t *testing.T) {
	path, topo, job := clusterAndJob(t)
	defer topo.Close()
	defer job.Close()
	pl, err := Place(topo, job, PlaceOptions{NoTiming: true})
	first := checkPlacement(t, topo, pl)
	sameAsCLI(t, pl, err, "place", "-t", path, "-j", data("cli", "job.json"), "--no-timing")
	pl, err = Place(topo, job, PlaceOptions{Algo: "random-fit", Seed: Uint64(0), Alpha: Float64(0.9), TimeLimitMs: 5000,
		NoTiming: true})
	sameAsCLI(t, pl, err, "place", "-t", path, "-j", data("cli", "job.json"), "--no-timing", "--algo", "random-fit",
		"--seed", "0", "--alpha", "0.9", "--time-limit-ms", "5000")
	if pl, err := Place(topo, job, PlaceOptions{}); err != nil || object(t, pl)["solve_ms"] == nil {
		t.Fatalf("solve_ms missing without NoTiming: %v", err)
	}

	// A scheduler's loop: the nodes taken are marked busy, the next placement avoids them.
	for _, n := range first {
		if err := topo.SetFreeGPUs(n, 0); err != nil {
			t.Fatal(err)
		}
	}
	pl, err = Place(topo, job, PlaceOptions{NoTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range checkPlacement(t, topo, pl) {
		for _, m := range first {
			if n == m {
				t.Fatalf("node %s placed twice", n)
			}
		}
	}

	_, err = Place(topo, job, PlaceOptions{Algo: "nosuch"})
	if e := libError(t, err); e.Exit != 2 || !strings.Contains(e.Msg, "nosuch") {
		t.Fatalf("%+v", e)
	}
	_, err = PlaceJSON(topo, read(t, "cli", "job-huge.json"), PlaceOptions{})
	if e := libError(t, err); e.Exit != 1 || e.StatusName() != "TSCHED_E_INFEASIBLE" {
		t.Fatalf("%+v", e)
	}
	_, err = PlaceJSON(topo, []byte("{not json"), PlaceOptions{})
	if e := libError(t, err); e.Status != StatusParse {
		t.Fatalf("%+v", e)
	}
}

func TestModuleCalls(t *testing.T) {
	load := func(parts ...string) *Topology {
		topo, err := LoadTopologyFile(data(parts...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { topo.Close() })
		return topo
	}
	t.Run("Flows", func(t *testing.T) {
		topo := load("cli", "cluster.json")
		pl, err := PlaceJSON(topo, read(t, "cli", "job.json"), PlaceOptions{NoTiming: true})
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "placement.json")
		if err := os.WriteFile(f, pl, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Flows(topo, pl, FlowsOptions{Pattern: "dp-ring", Gbits: 10})
		sameAsCLI(t, got, err, "flows", "-t", data("cli", "cluster.json"), "-p", f, "--pattern", "dp-ring", "--gbits", "10")
	})
	t.Run("Route", func(t *testing.T) {
		topo := load("routing", "fabric.json")
		for _, algo := range []string{"greedy", "ecmp"} {
			got, err := Route(topo, read(t, "routing", "flows.json"), RouteOptions{Algo: algo, NoTiming: true})
			sameAsCLI(t, got, err, "route", "-t", data("routing", "fabric.json"), "-f", data("routing", "flows.json"),
				"--algo", algo, "--no-timing")
		}
	})
	t.Run("Prioritize", func(t *testing.T) {
		topo := load("priority", "crux-topo.json")
		got, err := Prioritize(topo, read(t, "priority", "crux-jobset.json"), PrioritizeOptions{Levels: 4})
		sameAsCLI(t, got, err, "prioritize", "-t", data("priority", "crux-topo.json"), "-s",
			data("priority", "crux-jobset.json"), "--levels", "4")
	})
	t.Run("Kcut", func(t *testing.T) {
		got, err := Kcut(read(t, "priority", "dag-small.json"), KcutOptions{Levels: 2, Seed: Uint64(3)})
		sameAsCLI(t, got, err, "kcut", "-d", data("priority", "dag-small.json"), "--levels", "2", "--seed", "3")
		_, err = Kcut(read(t, "priority", "dag-cycle.json"), KcutOptions{Levels: 2})
		if e := libError(t, err); e.StatusName() != "TSCHED_E_CYCLE" {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("Vclos", func(t *testing.T) {
		topo := load("vclos-leaf-spine.json")
		got, err := Vclos(topo, read(t, "vclos-requests.json"), VclosOptions{NoTiming: true})
		sameAsCLI(t, got, err, "vclos", "-t", data("vclos-leaf-spine.json"), "-r", data("vclos-requests.json"),
			"--no-timing")
	})
	t.Run("Cells", func(t *testing.T) {
		topo := load("cell", "cli", "hetero.json")
		got, err := Cells(topo, read(t, "cell", "cli", "job-small.json"),
			CellsOptions{Catalog: read(t, "cell", "cli", "gpus.json"), NoTiming: true})
		sameAsCLI(t, got, err, "cells", "-t", data("cell", "cli", "hetero.json"), "-j", data("cell", "cli", "job-small.json"),
			"-c", data("cell", "cli", "gpus.json"), "--no-timing")
	})
	t.Run("CriusSchedule", func(t *testing.T) {
		topo := load("cell", "cli", "hetero.json")
		got, err := CriusSchedule(topo, read(t, "cell", "cli", "queue.json"),
			CriusScheduleOptions{Catalog: read(t, "cell", "cli", "gpus.json"), NoTiming: true})
		sameAsCLI(t, got, err, "crius-schedule", "-t", data("cell", "cli", "hetero.json"), "-q",
			data("cell", "cli", "queue.json"), "-c", data("cell", "cli", "gpus.json"), "--no-timing")
	})
	t.Run("Simulate", func(t *testing.T) {
		topo := load("sim", "fabric.json")
		got, err := Simulate(topo, read(t, "sim", "trace.json"),
			SimulateOptions{Scenario: read(t, "sim", "scenario.json"), NoTiming: true})
		sameAsCLI(t, got, err, "simulate", "-t", data("sim", "fabric.json"), "-w", data("sim", "trace.json"), "-s",
			data("sim", "scenario.json"), "--no-timing")
		// Until: 0 is a time, distinct from the default (nil: the trace's end)
		got, err = Simulate(topo, read(t, "sim", "trace.json"), SimulateOptions{Until: Float64(0), NoTiming: true})
		sameAsCLI(t, got, err, "simulate", "-t", data("sim", "fabric.json"), "-w", data("sim", "trace.json"),
			"--until", "0", "--no-timing")
	})
}

// Seeds keep every bit (above 2^53, and above the int64 range, which go as text); NaN
// options are refused naming the option; names and paths with a NUL byte are refused
// instead of reaching C cut short.
func TestOptionValuesAndNames(t *testing.T) {
	path, topo, job := clusterAndJob(t)
	defer topo.Close()
	defer job.Close()
	for _, seed := range []uint64{1<<53 + 1, 1 << 63, ^uint64(0)} {
		pl, err := Place(topo, job, PlaceOptions{Algo: "random-fit", Seed: Uint64(seed), NoTiming: true})
		sameAsCLI(t, pl, err, "place", "-t", path, "-j", data("cli", "job.json"), "--no-timing", "--algo",
			"random-fit", "--seed", fmt.Sprint(seed))
	}
	_, err := Place(topo, job, PlaceOptions{Alpha: Float64(math.NaN())})
	if e := libError(t, err); e.Status != StatusRange || !strings.Contains(e.Msg, "options.alpha") {
		t.Fatalf("NaN alpha: %v", err)
	}
	before, _ := topo.ToJSON()
	if e := libError(t, topo.SetUp("node5\x00junk", false)); e.Status != StatusInvalid || !strings.Contains(e.Msg, "NUL") {
		t.Fatalf("SetUp with a NUL: %v", e)
	}
	if e := libError(t, topo.SetFreeGPUs("node6\x00x", 0)); e.Status != StatusInvalid {
		t.Fatalf("SetFreeGPUs with a NUL: %v", e)
	}
	if after, _ := topo.ToJSON(); string(after) != string(before) {
		t.Fatal("a refused name changed the fabric")
	}
	if _, err := LoadTopologyFile(path + "\x00junk"); libError(t, err).Status != StatusInvalid {
		t.Fatalf("LoadTopologyFile with a NUL: %v", err)
	}
	if _, err := LoadJobFile(data("cli", "job.json") + "\x00junk"); libError(t, err).Status != StatusInvalid {
		t.Fatalf("LoadJobFile with a NUL: %v", err)
	}
}

// Issue 21, item 6: one option spelled twice ("seed" and "--seed" in Extra, or a set field
// and its name in Extra) is an error naming both spellings, the same on every call, whatever
// order the map iterates in; one spelling alone still works.
func TestDuplicateOptionSpellings(t *testing.T) {
	path, topo, job := clusterAndJob(t)
	defer topo.Close()
	defer job.Close()
	for i := 0; i < 50; i++ {
		_, err := Place(topo, job, PlaceOptions{Algo: "random-fit", Extra: map[string]interface{}{"seed": 1, "--seed": "x"}})
		e := libError(t, err)
		if e.Status != StatusInvalid || e.Msg != `options.seed: given twice, as Extra["--seed"] and Extra["seed"]; give one` {
			t.Fatalf("call %d: Extra seed and --seed: %v", i, err)
		}
		_, err = Place(topo, job, PlaceOptions{Algo: "random-fit", Seed: Uint64(3), Extra: map[string]interface{}{"--seed": 4}})
		e = libError(t, err)
		if e.Status != StatusInvalid || e.Msg != `options.seed: given twice, as the field PlaceOptions.Seed and Extra["--seed"]; give one` {
			t.Fatalf("call %d: Seed and Extra --seed: %v", i, err)
		}
	}
	for _, key := range []string{"seed", "--seed"} {
		pl, err := Place(topo, job, PlaceOptions{Algo: "random-fit", NoTiming: true, Extra: map[string]interface{}{key: 5}})
		sameAsCLI(t, pl, err, "place", "-t", path, "-j", data("cli", "job.json"), "--no-timing", "--algo",
			"random-fit", "--seed", "5")
	}
}

// cliBytes is the topo-sched command's standard output, as bytes.
func cliBytes(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(cli(t), args...).Output()
	if err != nil {
		t.Fatalf("topo-sched %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// sameTrace checks that a trace call's document, with the command's newline, is the original
// command's bytes (tests/data/trace/golden) and today's topo-sched trace's.
func sameTrace(t *testing.T, doc []byte, err error, golden string, args ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", golden, err)
	}
	got := append(doc, '\n')
	if want := read(t, "trace", "golden", golden+".json"); string(got) != string(want) {
		t.Errorf("%s: not the original command's bytes", golden)
	}
	if want := cliBytes(t, append([]string{"trace"}, args...)...); string(got) != string(want) {
		t.Errorf("%s: not the bytes of topo-sched trace %s", golden, strings.Join(args, " "))
	}
}

func TestTraceCallsWriteTheCommandsBytes(t *testing.T) {
	doc, err := TracePoisson(TraceOptions{Jobs: 50, MeanInterarrivalS: 5, Sizes: "1:1,8:3,64:0.5", DurationDist: "exp:3600"})
	sameTrace(t, doc, err, "poisson-exp", "poisson", "--jobs", "50", "--mean-interarrival-s", "5", "--sizes",
		"1:1,8:3,64:0.5", "--duration-dist", "exp:3600")
	doc, err = TracePoisson(TraceOptions{Jobs: 7, MeanInterarrivalS: 0.001, Sizes: "16:1", DurationDist: "fixed:2.5",
		Seed: Uint64(0), Compact: true})
	sameTrace(t, doc, err, "poisson-fixed", "poisson", "--jobs", "7", "--mean-interarrival-s", "0.001", "--sizes",
		"16:1", "--duration-dist", "fixed:2.5", "--seed", "0", "--compact")
	mix2 := data("trace", "golden", "mix2.json")
	doc, err = TracePoisson(TraceOptions{Jobs: 60, MeanInterarrivalS: 2, Sizes: "6:1,12:2", DurationDist: "lognormal:1,0.5",
		ModelMix: read(t, "trace", "golden", "mix2.json"), GpusPerNode: 6, Seed: Uint64(99), Compact: true})
	sameTrace(t, doc, err, "poisson-mix2", "poisson", "--jobs", "60", "--mean-interarrival-s", "2", "--sizes",
		"6:1,12:2", "--duration-dist", "lognormal:1,0.5", "--model-mix", mix2, "--gpus-per-node", "6", "--seed", "99",
		"--compact")
	pods := data("trace", "pods.csv")
	doc, err = TraceConvertAlibaba(read(t, "trace", "pods.csv"), pods, TraceOptions{ScaleGpus: 8, Gbits: 2.5,
		ComputeMs: 333.3, Compact: true})
	sameTrace(t, doc, err, "alibaba-opts", "convert-alibaba", pods, "--scale-gpus", "8", "--gbits", "2.5",
		"--compute-ms", "333.3", "--compact")
	doc, err = TraceConvertAlibaba(read(t, "trace", "pods.csv"), pods, TraceOptions{})
	sameTrace(t, doc, err, "alibaba-default", "convert-alibaba", pods)
	dir := data("trace", "dcn", "ring_size_2")
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		files[e.Name()] = read(t, "trace", "dcn", "ring_size_2", e.Name())
	}
	doc, err = TraceConvertDcn(dir, files, TraceOptions{})
	sameTrace(t, doc, err, "dcn-default", "convert-dcn", dir)
	doc, err = TraceConvertDcn(dir+"/", nil, TraceOptions{Seed: Uint64(4), ComputeMs: 1238.769231, Iterations: 3,
		ArrivalWindowS: Float64(100), Compact: true})
	sameTrace(t, doc, err, "dcn-opts", "convert-dcn", dir+"/", "--seed", "4", "--compute-ms", "1238.769231",
		"--iterations", "3", "--arrival-window-s", "100", "--compact")
}

func TestTraceErrorsAreTheCommands(t *testing.T) {
	_, err := TracePoisson(TraceOptions{Jobs: 3, MeanInterarrivalS: 1, Sizes: "8:1", DurationDist: "fixed:1",
		Gbits: -1})
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusRange || e.Msg != "--gbits: '-1' is not a positive number" {
		t.Fatalf("negative gbits: %v", err)
	}
	_, err = TraceConvertDcn("x/y", map[string][]byte{"job_0-A.txt": []byte(
		"#src dst src_tor dst_tor start_time flow_size compute_time stage_index\n95 97 0 0 0 1 1 0\n")}, TraceOptions{})
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "x/y/job_0-A.txt:2: src: 95 is not a server vertex") {
		t.Fatalf("dcn vertex: %v", err)
	}
	if _, err = TracePoisson(TraceOptions{Jobs: 3}); err == nil {
		t.Fatal("poisson without sizes: no error")
	}
}
