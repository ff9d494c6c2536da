// libtopo-sched: network-topology-aware scheduling for GPU clusters.
// Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.

// Package toposched is the Go binding of libtopo-sched (cgo, found through pkg-config).
//
// Documents go in and come out as JSON bytes: LoadTopology and LoadJob take the
// tsched.topology.v1 and tsched.job.v1 documents and hold the library's handles; the module
// calls (Place, Flows, Route, Prioritize, Kcut, Vclos, Cells, CriusSchedule, Simulate) take a
// Topology, the command's documents and an option struct whose fields are the command's long
// options, and return the document the topo-sched command prints for the same inputs
// (compact). ImportSlurm, ImportSlurmYAML and ImportK8sNodes read a cluster's own description
// (the topology import-* commands), (*Topology).Export writes one for Slurm, Kueue, KAI or
// Volcano (topology export), and PlaceWithLaunch returns the launch files of place (host
// file, pod order) beside the placement. Every failure of the library is an *Error carrying the library's status number and its
// one-line message naming the offending field.
//
// Handles free themselves when garbage collected; Close frees them at once. A Topology may
// be used from several goroutines: calls on one Topology take turns.
//
// Linking libtopo-sched brings its licence, GPL-3.0-or-later, with it: a program built with
// this package forms one work with the library.
package toposched

// #cgo pkg-config: topo-sched
// #include <stdlib.h>
// #include <topo-sched/topo-sched.h>
import "C"

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// Status numbers of the library (tsched_status) that the binding itself reports.
const (
	StatusInvalid  = 2
	StatusParse    = 3
	StatusType     = 5
	StatusRange    = 6
	StatusNotFound = 7
	StatusInternal = 18
)

// Error is a failure reported by libtopo-sched: Status is the tsched_status number, Msg the
// library's message. Exit is the exit status the topo-sched command gives for it (set by the
// module calls, 0 for the handle calls).
type Error struct {
	Status int
	Msg    string
	Exit   int
}

func (e *Error) Error() string { return e.Msg }

// StatusName is the constant name of the status ("TSCHED_E_PARSE").
func (e *Error) StatusName() string { return StatusName(e.Status) }

// ErrClosed is returned by calls on a handle after its Close.
var ErrClosed = errors.New("toposched: handle is closed")

// StatusName is the constant name of a status number, as tsched_status_str.
func StatusName(status int) string {
	return C.GoString(C.tsched_status_str(C.tsched_status(status)))
}

var (
	statusOnce   sync.Once
	statusByName map[string]int
)

// StatusNumber is the status number of a constant name ("TSCHED_E_PARSE" -> 3), or -1.
func StatusNumber(name string) int {
	statusOnce.Do(func() {
		statusByName = map[string]int{}
		for i := 0; i < 256; i++ {
			if s := StatusName(i); s != "TSCHED_E_UNKNOWN" {
				statusByName[s] = i
			}
		}
	})
	if n, ok := statusByName[name]; ok {
		return n
	}
	return -1
}

// call runs f and, on failure, reads the library's per-thread message on the same OS thread.
func call(f func() C.tsched_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if s := f(); s != C.TSCHED_OK {
		return &Error{Status: int(s), Msg: C.GoString(C.tsched_last_error())}
	}
	return nil
}

// takeString copies a string the library allocated and frees it.
func takeString(p *C.char) []byte {
	defer C.tsched_free(unsafe.Pointer(p))
	return []byte(C.GoString(p))
}

// cBytes copies a document into C memory (a Go slice may be empty: C needs a valid pointer).
func cBytes(b []byte) (*C.char, C.size_t) {
	return (*C.char)(C.CBytes(append(b[:len(b):len(b)], 0))), C.size_t(len(b))
}

// LibraryVersion is the version of the library actually linked, "MAJOR.MINOR.PATCH".
func LibraryVersion() string { return C.GoString(C.tsched_version()) }

// ---- Topology ------------------------------------------------------------------------------

// Topology holds a fabric (tsched_topology) and its state.
type Topology struct {
	mu sync.Mutex
	h  *C.tsched_topology
}

func newTopology(h *C.tsched_topology) *Topology {
	t := &Topology{h: h}
	runtime.SetFinalizer(t, (*Topology).Close)
	return t
}

// LoadTopology loads a tsched.topology.v1 document (a "generate" block is allowed).
func LoadTopology(doc []byte) (*Topology, error) {
	s, n := cBytes(doc)
	defer C.free(unsafe.Pointer(s))
	var h *C.tsched_topology
	if err := call(func() C.tsched_status { return C.tsched_topology_load_string(&h, s, n) }); err != nil {
		return nil, err
	}
	return newTopology(h), nil
}

// cString is s for C, refused when it holds a NUL byte (C would stop there and act on another
// element or file). The caller frees the result.
func cString(s, what string) (*C.char, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, &Error{Status: StatusInvalid, Msg: fmt.Sprintf("%s: %q holds a NUL byte", what, s)}
	}
	return C.CString(s), nil
}

// LoadTopologyFile loads a tsched.topology.v1 file; errors name the file and the field.
func LoadTopologyFile(path string) (*Topology, error) {
	p, err := cString(path, "LoadTopologyFile: path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(p))
	var h *C.tsched_topology
	if err := call(func() C.tsched_status { return C.tsched_topology_load_file(&h, p) }); err != nil {
		return nil, err
	}
	return newTopology(h), nil
}

// Close frees the fabric; later calls on it return ErrClosed. A second Close does nothing.
func (t *Topology) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.h != nil {
		C.tsched_topology_free(t.h)
		t.h = nil
		runtime.SetFinalizer(t, nil)
	}
	return nil
}

func (t *Topology) text(f func(out **C.char, h *C.tsched_topology) C.tsched_status) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.h == nil {
		return nil, ErrClosed
	}
	var out *C.char
	if err := call(func() C.tsched_status { return f(&out, t.h) }); err != nil {
		return nil, err
	}
	return takeString(out), nil
}

// Summary is the tsched.topology-summary.v1 document of `topo-sched topology show`.
func (t *Topology) Summary() ([]byte, error) {
	return t.text(func(out **C.char, h *C.tsched_topology) C.tsched_status {
		return C.tsched_topology_summary_json(out, h)
	})
}

// ToJSON is the fabric and its state as an explicit tsched.topology.v1 document.
func (t *Topology) ToJSON() ([]byte, error) {
	return t.text(func(out **C.char, h *C.tsched_topology) C.tsched_status {
		return C.tsched_topology_to_json(out, h)
	})
}

// SetFreeGPUs sets the free GPUs of the node named node.
func (t *Topology) SetFreeGPUs(node string, n int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.h == nil {
		return ErrClosed
	}
	p, err := cString(node, "SetFreeGPUs: node")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(p))
	idx := C.tsched_topology_find_node(t.h, p)
	if idx == C.TSCHED_NONE {
		return &Error{Status: StatusNotFound, Msg: fmt.Sprintf("SetFreeGPUs: no node named '%s'", node)}
	}
	if n < 0 || uint64(n) > 0xFFFFFFFF {
		return &Error{Status: StatusRange, Msg: fmt.Sprintf("SetFreeGPUs: free GPUs of '%s' out of range: %d", node, n)}
	}
	return call(func() C.tsched_status { return C.tsched_topology_set_free_gpus(t.h, idx, C.uint32_t(n)) })
}

// SetUp puts a node, switch, trunk ("a~b") or member link ("a~b#k") in (true) or out of service.
func (t *Topology) SetUp(name string, up bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.h == nil {
		return ErrClosed
	}
	p, err := cString(name, "SetUp: name")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(p))
	u := C.int(0)
	if up {
		u = 1
	}
	return call(func() C.tsched_status { return C.tsched_topology_set_up(t.h, p, u) })
}

// ---- Job -----------------------------------------------------------------------------------

// Job holds a job (tsched_job).
type Job struct {
	mu sync.Mutex
	h  *C.tsched_job
}

func newJob(h *C.tsched_job) *Job {
	j := &Job{h: h}
	runtime.SetFinalizer(j, (*Job).Close)
	return j
}

// LoadJob loads a tsched.job.v1 document.
func LoadJob(doc []byte) (*Job, error) {
	s, n := cBytes(doc)
	defer C.free(unsafe.Pointer(s))
	var h *C.tsched_job
	if err := call(func() C.tsched_status { return C.tsched_job_load_string(&h, s, n) }); err != nil {
		return nil, err
	}
	return newJob(h), nil
}

// LoadJobFile loads a tsched.job.v1 file.
func LoadJobFile(path string) (*Job, error) {
	p, err := cString(path, "LoadJobFile: path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(p))
	var h *C.tsched_job
	if err := call(func() C.tsched_status { return C.tsched_job_load_file(&h, p) }); err != nil {
		return nil, err
	}
	return newJob(h), nil
}

// Close frees the job; later calls on it return ErrClosed. A second Close does nothing.
func (j *Job) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h != nil {
		C.tsched_job_free(j.h)
		j.h = nil
		runtime.SetFinalizer(j, nil)
	}
	return nil
}

// ToJSON is the job as a tsched.job.v1 document.
func (j *Job) ToJSON() ([]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == nil {
		return nil, ErrClosed
	}
	var out *C.char
	if err := call(func() C.tsched_status { return C.tsched_job_to_json(&out, j.h) }); err != nil {
		return nil, err
	}
	return takeString(out), nil
}

// ---- module calls: one request to a private service ------------------------------------------

// Uint64, Float64 and Int return a pointer to their argument, for the option fields whose
// zero is a meaningful value distinct from the command's default.
func Uint64(v uint64) *uint64    { return &v }
func Float64(v float64) *float64 { return &v }
func Int(v int) *int             { return &v }

// String returns a pointer to its argument, for option fields where "" means something.
func String(v string) *string { return &v }

var serial uint64

type doc struct {
	key      string
	value    []byte
	optional bool
}

type answer struct {
	OK       bool            `json:"ok"`
	Result   json.RawMessage `json:"result"`
	Hostfile *string         `json:"hostfile"`
	PodOrder json.RawMessage `json:"pod_order"`
	Exit     int             `json:"exit"`
	Status   string          `json:"status"`
	Error    string          `json:"error"`
}

// finite refuses a NaN or infinite option value, naming the option.
func finite(name string, v reflect.Value) error {
	for v.Kind() == reflect.Ptr || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if (v.Kind() == reflect.Float64 || v.Kind() == reflect.Float32) && (math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0)) {
		return &Error{Status: StatusRange, Msg: fmt.Sprintf("options.%s: %v is not a finite number", name, v.Float())}
	}
	return nil
}

// options turns an option struct into the request's "options" object; extra holds options
// the struct does not have yet, by their long name. Numbers keep every digit (a uint64 seed
// above 2^53 included); whole numbers above the int64 range go as text, which the service
// reads as numbers too.
func options(o interface{}, extra map[string]interface{}) (map[string]interface{}, error) {
	rv, rt := reflect.ValueOf(o), reflect.TypeOf(o)
	for i := 0; rt != nil && rt.Kind() == reflect.Struct && i < rt.NumField(); i++ {
		name := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]
		if err := finite(name, rv.Field(i)); name != "-" && err != nil {
			return nil, err
		}
	}
	// Extra in key order, so that every check below (and its message) is the same from call
	// to call whatever order the map iterates in.
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := finite(strings.TrimPrefix(k, "--"), reflect.ValueOf(extra[k])); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	// One option given twice ("seed" and "--seed" in Extra, or a struct field that is set and
	// its name in Extra) is an error naming both spellings, never a silent pick.
	spelled := map[string]string{}
	for _, k := range keys {
		name := strings.TrimPrefix(k, "--")
		if prev, dup := spelled[name]; dup {
			return nil, &Error{Status: StatusInvalid, Msg: fmt.Sprintf(
				"options.%s: given twice, as Extra[%q] and Extra[%q]; give one", name, prev, k)}
		}
		if _, set := m[name]; set {
			return nil, &Error{Status: StatusInvalid, Msg: fmt.Sprintf(
				"options.%s: given twice, as the field %s and Extra[%q]; give one", name, fieldOf(o, name), k)}
		}
		spelled[name] = k
	}
	for _, k := range keys {
		m[strings.TrimPrefix(k, "--")] = extra[k]
	}
	for k, v := range m {
		switch n := v.(type) {
		case json.Number:
			if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
				if _, uerr := strconv.ParseUint(string(n), 10, 64); uerr == nil {
					m[k] = string(n)
				}
			}
		case uint64:
			if n > math.MaxInt64 {
				m[k] = strconv.FormatUint(n, 10)
			}
		case uint:
			if uint64(n) > math.MaxInt64 {
				m[k] = strconv.FormatUint(uint64(n), 10)
			}
		}
	}
	return m, nil
}

// fieldOf names the field of option struct o whose JSON name is `name`.
func fieldOf(o interface{}, name string) string {
	rt := reflect.TypeOf(o)
	for i := 0; rt != nil && rt.Kind() == reflect.Struct && i < rt.NumField(); i++ {
		if strings.Split(rt.Field(i).Tag.Get("json"), ",")[0] == name {
			return rt.Name() + "." + rt.Field(i).Name
		}
	}
	return name
}

func run(op string, t *Topology, docs []doc, opts interface{}, extra map[string]interface{}) ([]byte, error) {
	a, err := ask(op, t, docs, nil, opts, extra)
	if err != nil {
		return nil, err
	}
	return []byte(a.Result), nil
}

// ask sends one request: op, the fabric t (attached under a private name), the documents,
// further request fields and the options; it returns the whole answer of an ok request.
func ask(op string, t *Topology, docs []doc, fields map[string]interface{}, opts interface{},
	extra map[string]interface{}) (*answer, error) {
	req := map[string]interface{}{"id": 1, "op": op}
	for k, v := range fields {
		req[k] = v
	}
	for _, d := range docs {
		if d.value == nil {
			if !d.optional {
				return nil, &Error{Status: StatusInvalid, Msg: fmt.Sprintf("%s: the %s document is required", op, d.key)}
			}
			continue
		}
		var raw json.RawMessage
		if err := json.Unmarshal(d.value, &raw); err != nil {
			return nil, &Error{Status: StatusParse, Msg: fmt.Sprintf("%s: not JSON: %v", d.key, err)}
		}
		req[d.key] = raw
	}
	o, err := options(opts, extra)
	if err != nil {
		var e *Error
		if errors.As(err, &e) { // it names the option already
			return nil, e
		}
		return nil, &Error{Status: StatusInvalid, Msg: fmt.Sprintf("%s: options: %v", op, err)}
	}
	if len(o) > 0 {
		req["options"] = o
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var svc *C.tsched_service
	if err := call(func() C.tsched_status { return C.tsched_service_new(&svc) }); err != nil {
		return nil, err
	}
	defer C.tsched_service_free(svc)
	if t != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.h == nil {
			return nil, ErrClosed
		}
		name := fmt.Sprintf("go.%d", atomic.AddUint64(&serial, 1))
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		if err := call(func() C.tsched_status { return C.tsched_service_attach(svc, cname, t.h) }); err != nil {
			return nil, err
		}
		defer C.tsched_service_detach(svc, cname)
		req["topology"] = name
	}
	text, err := json.Marshal(req)
	if err != nil {
		return nil, &Error{Status: StatusInvalid, Msg: fmt.Sprintf("%s: %v", op, err)}
	}
	s, n := cBytes(text)
	defer C.free(unsafe.Pointer(s))
	var out *C.char
	var stop C.int
	if err := call(func() C.tsched_status { return C.tsched_service_handle(&out, &stop, svc, s, n) }); err != nil {
		return nil, err
	}
	var a answer
	if err := json.Unmarshal(takeString(out), &a); err != nil {
		return nil, &Error{Status: StatusInternal, Msg: fmt.Sprintf("%s: the service's answer is not JSON: %v", op, err)}
	}
	if !a.OK {
		status := StatusNumber(a.Status)
		if status < 0 {
			status = StatusInternal
		}
		return nil, &Error{Status: status, Msg: a.Error, Exit: a.Exit}
	}
	return &a, nil
}

// PlaceOptions are the options of `topo-sched place`.
type PlaceOptions struct {
	Algo        string   `json:"algo,omitempty"`  // mip (default), best-fit, random-fit, gpu-pack, topo-aware, exhaustive
	Alpha       *float64 `json:"alpha,omitempty"` // the job's alpha when nil
	Seed        *uint64  `json:"seed,omitempty"`  // 1 when nil
	TimeLimitMs int      `json:"time-limit-ms,omitempty"`
	NoTiming    bool     `json:"no-timing,omitempty"` // leave solve_ms out
	// Launch files, returned by PlaceWithLaunch (Place ignores them): the host file
	// (--hostfile; per task with HostfilePerTask and TasksPerNode) and the pod order
	// (--pod-order, with IndexLabel and TasksPerNode pods per node).
	Hostfile        bool   `json:"hostfile,omitempty"`
	HostfilePerTask bool   `json:"hostfile-per-task,omitempty"`
	TasksPerNode    int    `json:"tasks-per-node,omitempty"`
	PodOrder        bool   `json:"pod-order,omitempty"`
	IndexLabel      string `json:"index-label,omitempty"`
	// Extra: further long options by name ("time-limit-ms": 100), for options newer than
	// this struct.
	Extra map[string]interface{} `json:"-"`
}

// Launch is a placement with the launch files PlaceWithLaunch was asked for.
type Launch struct {
	Placement []byte // the tsched.placement.v1 document of `topo-sched place`
	Hostfile  string // what --hostfile FILE writes (options Hostfile, HostfilePerTask); "" when not asked
	PodOrder  []byte // the tsched.pod-order.v1 document --pod-order FILE writes; nil when not asked
}

// PlaceWithLaunch is Place returning also the launch files the options ask for (Hostfile,
// PodOrder): what `topo-sched place --hostfile FILE --pod-order FILE` writes into the files.
func PlaceWithLaunch(t *Topology, j *Job, o PlaceOptions) (*Launch, error) {
	if t == nil || j == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "PlaceWithLaunch: the topology or the job is nil"}
	}
	job, err := j.ToJSON()
	if err != nil {
		return nil, err
	}
	a, err := ask("place", t, []doc{{"job", job, false}}, nil, o, o.Extra)
	if err != nil {
		return nil, err
	}
	l := &Launch{Placement: []byte(a.Result)}
	if a.Hostfile != nil {
		l.Hostfile = *a.Hostfile
	}
	if len(a.PodOrder) > 0 {
		l.PodOrder = []byte(a.PodOrder)
	}
	return l, nil
}

// Place places a job on the fabric: the tsched.placement.v1 document of `topo-sched place`.
func Place(t *Topology, j *Job, o PlaceOptions) ([]byte, error) {
	if j == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Place: the job is nil"}
	}
	job, err := j.ToJSON()
	if err != nil {
		return nil, err
	}
	return PlaceJSON(t, job, o)
}

// PlaceJSON is Place with the job as a tsched.job.v1 document.
func PlaceJSON(t *Topology, job []byte, o PlaceOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Place: the topology is nil"}
	}
	return run("place", t, []doc{{"job", job, false}}, o, o.Extra)
}

// ---- foreign formats: imports and exports -------------------------------------------------

// SlurmOptions are the options of `topo-sched topology import-slurm` and `import-slurm-yaml`.
type SlurmOptions struct {
	GpusPerNode int                    `json:"gpus-per-node,omitempty"` // 8 when 0
	NicsPerNode int                    `json:"nics-per-node,omitempty"` // one per GPU when 0
	NicGbps     float64                `json:"nic-gbps,omitempty"`      // 400 when 0
	GpuType     string                 `json:"gpu-type,omitempty"`
	Name        string                 `json:"name,omitempty"`         // the fabric's name; "slurm" when ""
	NoNvl       bool                   `json:"no-nvl,omitempty"`       // block form: no NVLink domain per block
	Topology    string                 `json:"topology,omitempty"`     // topology.yaml only: the entry to import
	NvlTopology string                 `json:"nvl-topology,omitempty"` // topology.yaml only: a block entry for the NVLink domains
	Extra       map[string]interface{} `json:"-"`
}

func importText(op string, text []byte, opts interface{}, extra map[string]interface{}) (*Topology, error) {
	if !utf8.Valid(text) {
		return nil, &Error{Status: StatusParse, Msg: "text: not UTF-8 text"}
	}
	return importFields(op, map[string]interface{}{"text": string(text)}, nil, opts, extra)
}

func importFields(op string, fields map[string]interface{}, docs []doc, opts interface{},
	extra map[string]interface{}) (*Topology, error) {
	a, err := ask(op, nil, docs, fields, opts, extra)
	if err != nil {
		return nil, err
	}
	return LoadTopology([]byte(a.Result))
}

// ImportSlurm reads a Slurm topology.conf (tree or block form, or `scontrol show topology`
// output), given as its text: the fabric of `topo-sched topology import-slurm`.
func ImportSlurm(text []byte, o SlurmOptions) (*Topology, error) {
	return importText("import-slurm", text, o, o.Extra)
}

// ImportSlurmYAML reads a Slurm topology.yaml: the fabric of `topo-sched topology import-slurm-yaml`.
func ImportSlurmYAML(text []byte, o SlurmOptions) (*Topology, error) {
	return importText("import-slurm-yaml", text, o, o.Extra)
}

// K8sOptions are the options of `topo-sched topology import-k8s-nodes`. Give Levels or KueueTopology.
type K8sOptions struct {
	Levels        []string               `json:"levels,omitempty"`         // node label keys, coarsest first
	KueueTopology string                 `json:"kueue-topology,omitempty"` // the text of a Kueue Topology (YAML or JSON)
	NvlLabel      *string                `json:"nvl-label,omitempty"`      // nvidia.com/gpu.clique when nil; "" = none
	GpuResource   string                 `json:"gpu-resource,omitempty"`
	GpuType       string                 `json:"gpu-type,omitempty"`
	NicsPerNode   int                    `json:"nics-per-node,omitempty"`
	NicGbps       float64                `json:"nic-gbps,omitempty"`
	Name          string                 `json:"name,omitempty"` // the fabric's name; "k8s" when ""
	Extra         map[string]interface{} `json:"-"`
}

// ImportK8sNodes reads Kubernetes nodes, the JSON of `kubectl get nodes -o json` (or an array
// of Node objects): the fabric of `topo-sched topology import-k8s-nodes`.
func ImportK8sNodes(nodes []byte, o K8sOptions) (*Topology, error) {
	return importFields("import-k8s-nodes", nil, []doc{{"nodes", nodes, false}}, o, o.Extra)
}

// ExportOptions are the options of `topo-sched topology export`.
type ExportOptions struct {
	To        string   `json:"to,omitempty"`     // slurm-conf, slurm-yaml, kueue, kai, volcano (required)
	Levels    []string `json:"levels,omitempty"` // Kubernetes: one label key per level, coarsest first
	Block     bool     `json:"block,omitempty"`
	Physical  bool     `json:"physical,omitempty"`
	KueueAPI  string   `json:"kueue-api,omitempty"` // v1beta2 (default), v1beta1, v1alpha1
	TierNames bool     `json:"tier-names,omitempty"`
	Sanitize  bool     `json:"sanitize,omitempty"`
	Format    string   `json:"format,omitempty"` // yaml (default), json
	Name      string   `json:"name,omitempty"`
	// Kueue, KAI: leave out the kubernetes.io/hostname level (to match an existing Topology).
	NoHostnameLevel bool `json:"no-hostname-level,omitempty"`
	// Kueue, KAI: write no Node objects (the labels are already on the nodes).
	NoNodes bool                   `json:"no-nodes,omitempty"`
	Extra   map[string]interface{} `json:"-"`
}

// Export writes the fabric for another scheduler: exactly the text `topo-sched topology
// export` writes. Its warning, if any, is dropped: see ExportWithWarning.
func (t *Topology) Export(o ExportOptions) (string, error) {
	text, _, err := t.ExportWithWarning(o)
	return text, err
}

// ExportWithWarning is Export with the export's warning line (what the command prints on
// standard error, e.g. NVLink domains left out), "" when there is none.
func (t *Topology) ExportWithWarning(o ExportOptions) (text, warning string, err error) {
	if t == nil {
		return "", "", &Error{Status: StatusInvalid, Msg: "Export: the topology is nil"}
	}
	a, err := ask("export", t, nil, nil, o, o.Extra)
	if err != nil {
		return "", "", err
	}
	var r struct {
		Text    string  `json:"text"`
		Warning *string `json:"warning"`
	}
	if err := json.Unmarshal(a.Result, &r); err != nil {
		return "", "", &Error{Status: StatusInternal, Msg: fmt.Sprintf("export: the answer is not the export: %v", err)}
	}
	if r.Warning != nil {
		warning = *r.Warning
	}
	return r.Text, warning, nil
}

// FlowsOptions are the options of `topo-sched flows`.
type FlowsOptions struct {
	Pattern string                 `json:"pattern,omitempty"` // dp-ring, dp-hd, pp, alltoall (required)
	Step    int                    `json:"step,omitempty"`
	Gbits   float64                `json:"gbits,omitempty"`
	Job     []byte                 `json:"-"` // -j JOB: a tsched.job.v1 document with a model, for the volumes
	Extra   map[string]interface{} `json:"-"`
}

// Flows is the tsched.flows.v1 document of `topo-sched flows` for a placement.
func Flows(t *Topology, placement []byte, o FlowsOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Flows: the topology is nil"}
	}
	return run("flows", t, []doc{{"placement", placement, false}, {"job", o.Job, true}}, o, o.Extra)
}

// RouteOptions are the options of `topo-sched route`.
type RouteOptions struct {
	Algo        string                 `json:"algo,omitempty"` // greedy (default), ecmp, balanced-ecmp, ilp
	Seed        *uint64                `json:"seed,omitempty"`
	Threads     int                    `json:"threads,omitempty"`
	TimeLimitMs int                    `json:"time-limit-ms,omitempty"`
	NoTiming    bool                   `json:"no-timing,omitempty"`
	Extra       map[string]interface{} `json:"-"`
}

// Route routes flows: the tsched.routes.v1 document of `topo-sched route`.
func Route(t *Topology, flows []byte, o RouteOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Route: the topology is nil"}
	}
	return run("route", t, []doc{{"flows", flows, false}}, o, o.Extra)
}

// PrioritizeOptions are the options of `topo-sched prioritize`.
type PrioritizeOptions struct {
	Levels int                    `json:"levels,omitempty"` // K (required)
	Algo   string                 `json:"algo,omitempty"`   // crux (default), sincronia, varys, exhaustive
	Orders int                    `json:"orders,omitempty"`
	Seed   *uint64                `json:"seed,omitempty"`
	Extra  map[string]interface{} `json:"-"`
}

// Prioritize is the tsched.priorities.v1 document of `topo-sched prioritize` for a job set.
func Prioritize(t *Topology, jobset []byte, o PrioritizeOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Prioritize: the topology is nil"}
	}
	return run("prioritize", t, []doc{{"jobset", jobset, false}}, o, o.Extra)
}

// KcutOptions are the options of `topo-sched kcut`.
type KcutOptions struct {
	Levels  int                    `json:"levels,omitempty"` // K (required)
	Algo    string                 `json:"algo,omitempty"`
	Orders  int                    `json:"orders,omitempty"`
	Seed    *uint64                `json:"seed,omitempty"`
	Threads int                    `json:"threads,omitempty"`
	Extra   map[string]interface{} `json:"-"`
}

// Kcut compresses a tsched.dag.v1 to K levels: the tsched.levels.v1 document of `topo-sched kcut`.
func Kcut(dag []byte, o KcutOptions) ([]byte, error) {
	return run("kcut", nil, []doc{{"dag", dag, false}}, o, o.Extra)
}

// VclosOptions are the options of `topo-sched vclos`.
type VclosOptions struct {
	Mode        string                 `json:"mode,omitempty"`   // vclos (default), ocs-vclos, free
	Shapes      string                 `json:"shapes,omitempty"` // all (default), pow2
	Pattern     string                 `json:"pattern,omitempty"`
	Step        int                    `json:"step,omitempty"`
	Routing     string                 `json:"routing,omitempty"`
	Seed        *uint64                `json:"seed,omitempty"`
	TimeLimitMs *int                   `json:"time-limit-ms,omitempty"` // 1000 when nil; Int(0): none
	NoTiming    bool                   `json:"no-timing,omitempty"`
	State       []byte                 `json:"-"` // --state VCLOS: an earlier tsched.vclos.v1 result
	Extra       map[string]interface{} `json:"-"`
}

// Vclos allocates vClos sub-fabrics: the tsched.vclos.v1 document of `topo-sched vclos`.
func Vclos(t *Topology, requests []byte, o VclosOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Vclos: the topology is nil"}
	}
	return run("vclos", t, []doc{{"requests", requests, false}, {"state", o.State, true}}, o, o.Extra)
}

// CellsOptions are the options of `topo-sched cells`.
type CellsOptions struct {
	Catalog  []byte                 `json:"-"`              // -c GPUS: a GPU catalog document
	Profile  []byte                 `json:"-"`              // --profile PROFILE: a profile document
	Type     string                 `json:"type,omitempty"` // --type T
	Gpus     int                    `json:"gpus,omitempty"` // --gpus N
	Stages   int                    `json:"stages,omitempty"`
	Plans    string                 `json:"plans,omitempty"` // assembled (default), tuned, exhaustive
	NoTiming bool                   `json:"no-timing,omitempty"`
	Extra    map[string]interface{} `json:"-"`
}

// Cells is the tsched.cells.v1 document of `topo-sched cells`: a job's Crius Cells.
func Cells(t *Topology, job []byte, o CellsOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Cells: the topology is nil"}
	}
	return run("cells", t, []doc{{"job", job, false}, {"catalog", o.Catalog, true}, {"profile", o.Profile, true}}, o, o.Extra)
}

// CriusScheduleOptions are the options of `topo-sched crius-schedule`.
type CriusScheduleOptions struct {
	Catalog   []byte                 `json:"-"`                   // -c GPUS: a GPU catalog document
	Depth     *int                   `json:"depth,omitempty"`     // 3 when nil
	Objective string                 `json:"objective,omitempty"` // normalized (default), throughput
	Event     string                 `json:"event,omitempty"`     // arrival (default), departure
	NoTiming  bool                   `json:"no-timing,omitempty"`
	Extra     map[string]interface{} `json:"-"`
}

// CriusSchedule is one Crius scheduling event: the tsched.crius-schedule.v1 document of
// `topo-sched crius-schedule`.
func CriusSchedule(t *Topology, queue []byte, o CriusScheduleOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "CriusSchedule: the topology is nil"}
	}
	return run("crius-schedule", t, []doc{{"queue", queue, false}, {"catalog", o.Catalog, true}}, o, o.Extra)
}

// SimulateOptions are the options of `topo-sched simulate`.
type SimulateOptions struct {
	Scenario    []byte                 `json:"-"`               // -s SCENARIO: a tsched.scenario.v1 document
	Until       *float64               `json:"until,omitempty"` // the trace's end when nil; Float64(0) stops at 0
	Seed        *uint64                `json:"seed,omitempty"`
	Placement   string                 `json:"placement,omitempty"`
	Routing     string                 `json:"routing,omitempty"`
	Reroute     string                 `json:"reroute,omitempty"`
	Priority    string                 `json:"priority,omitempty"`
	Levels      int                    `json:"levels,omitempty"`
	Links       string                 `json:"links,omitempty"`
	Queue       string                 `json:"queue,omitempty"`
	SampleMs    int                    `json:"sample-ms,omitempty"`
	LinksReport bool                   `json:"links-report,omitempty"`
	NoTiming    bool                   `json:"no-timing,omitempty"`
	Extra       map[string]interface{} `json:"-"`
}

// Simulate is the tsched.simresult.v1 document of `topo-sched simulate` for a trace.
func Simulate(t *Topology, trace []byte, o SimulateOptions) ([]byte, error) {
	if t == nil {
		return nil, &Error{Status: StatusInvalid, Msg: "Simulate: the topology is nil"}
	}
	return run("simulate", t, []doc{{"trace", trace, false}, {"scenario", o.Scenario, true}}, o, o.Extra)
}

// ---- traces: the tsched_trace_* calls themselves (include/topo-sched/trace.h) -------------

// TraceOptions are the options of `topo-sched trace` (doc/sim-traces.md). A zero field is the
// command's default; every given option is checked as the command line checks it
// (tsched_trace_options_set), so errors read as the command's ("--gbits: '-1' is not a
// positive number").
type TraceOptions struct {
	Seed              *uint64  // --seed; nil = 1
	ModelMix          []byte   // --model-mix: a tsched.model-mix.v1 document; nil = none
	ModelMixName      string   // what messages call the model mix; "" = "model-mix"
	Gbits             float64  // --gbits
	ComputeMs         float64  // --compute-ms
	GpusPerNode       int      // --gpus-per-node
	ScaleGpus         int      // --scale-gpus (convert-alibaba)
	Iterations        uint64   // --iterations (convert-dcn)
	ArrivalWindowS    *float64 // --arrival-window-s (convert-dcn); nil = 10
	Jobs              int      // --jobs (poisson)
	MeanInterarrivalS float64  // --mean-interarrival-s (poisson)
	Sizes             string   // --sizes (poisson)
	DurationDist      string   // --duration-dist (poisson)
	Compact           bool     // --compact: the document on one line
}

// traceCall fills a tsched_trace_options from o and runs conv with it, on one OS thread (the
// library's message of a failing set is read there). C strings live until it returns.
func traceCall(o TraceOptions, conv func(opts *C.tsched_trace_options, out **C.char) C.tsched_status) ([]byte, error) {
	var opts C.tsched_trace_options
	C.tsched_trace_options_init(&opts)
	var frees []unsafe.Pointer
	defer func() {
		for _, p := range frees {
			C.free(p)
		}
	}()
	cstr := func(s string) *C.char {
		p := C.CString(s)
		frees = append(frees, unsafe.Pointer(p))
		return p
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var sets [][2]string
	if o.Seed != nil {
		sets = append(sets, [2]string{"seed", strconv.FormatUint(*o.Seed, 10)})
	}
	if o.Gbits != 0 {
		sets = append(sets, [2]string{"gbits", num(o.Gbits)})
	}
	if o.ComputeMs != 0 {
		sets = append(sets, [2]string{"compute-ms", num(o.ComputeMs)})
	}
	if o.GpusPerNode != 0 {
		sets = append(sets, [2]string{"gpus-per-node", strconv.Itoa(o.GpusPerNode)})
	}
	if o.ScaleGpus != 0 {
		sets = append(sets, [2]string{"scale-gpus", strconv.Itoa(o.ScaleGpus)})
	}
	if o.Iterations != 0 {
		sets = append(sets, [2]string{"iterations", strconv.FormatUint(o.Iterations, 10)})
	}
	if o.ArrivalWindowS != nil {
		sets = append(sets, [2]string{"arrival-window-s", num(*o.ArrivalWindowS)})
	}
	if o.Jobs != 0 {
		sets = append(sets, [2]string{"jobs", strconv.Itoa(o.Jobs)})
	}
	if o.MeanInterarrivalS != 0 {
		sets = append(sets, [2]string{"mean-interarrival-s", num(o.MeanInterarrivalS)})
	}
	if o.Sizes != "" {
		sets = append(sets, [2]string{"sizes", o.Sizes})
	}
	if o.DurationDist != "" {
		sets = append(sets, [2]string{"duration-dist", o.DurationDist})
	}
	if o.ModelMix != nil {
		p, n := cBytes(o.ModelMix)
		frees = append(frees, unsafe.Pointer(p))
		if n == 0 {
			return nil, &Error{Status: StatusParse, Msg: "model-mix: empty"}
		}
		opts.model_mix, opts.model_mix_len = p, n
		if o.ModelMixName != "" {
			opts.model_mix_name = cstr(o.ModelMixName)
		}
	}
	if o.Compact {
		opts.compact = 1
	}
	var out *C.char
	err := call(func() C.tsched_status {
		for _, s := range sets {
			if st := C.tsched_trace_options_set(&opts, cstr(s[0]), cstr(s[1])); st != C.TSCHED_OK {
				return st
			}
		}
		return conv(&opts, &out)
	})
	if err != nil {
		return nil, err
	}
	return takeString(out), nil
}

// TraceConvertAlibaba is the tsched.trace.v1 document `topo-sched trace convert-alibaba` writes
// for an Alibaba cluster-trace-gpu-v2023 pod CSV: csv is its text, name names it in messages
// and its base name names the trace ("" = "-", as standard input).
func TraceConvertAlibaba(csv []byte, name string, o TraceOptions) ([]byte, error) {
	text, n := cBytes(csv)
	defer C.free(unsafe.Pointer(text))
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	}
	return traceCall(o, func(opts *C.tsched_trace_options, out **C.char) C.tsched_status {
		return C.tsched_trace_convert_alibaba(out, text, n, cname, opts)
	})
}

// TraceConvertDcn is the document of `topo-sched trace convert-dcn` for a dcn-simulators
// ring_size_R folder: files maps each file's name to its text (names other than
// job_<K>-<MODEL>.txt are ignored) and dir names the folder; with files nil the library reads
// the folder dir itself.
func TraceConvertDcn(dir string, files map[string][]byte, o TraceOptions) ([]byte, error) {
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	if files == nil {
		return traceCall(o, func(opts *C.tsched_trace_options, out **C.char) C.tsched_status {
			return C.tsched_trace_convert_dcn_dir(out, cdir, opts)
		})
	}
	n := len(files)
	ptr := C.size_t(unsafe.Sizeof((*C.char)(nil)))
	names := (*[1 << 28]*C.char)(C.malloc(C.size_t(n+1) * ptr))[: n+1 : n+1]
	texts := (*[1 << 28]*C.char)(C.malloc(C.size_t(n+1) * ptr))[: n+1 : n+1]
	lens := (*[1 << 28]C.size_t)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof(C.size_t(0)))))[: n+1 : n+1]
	i := 0
	for k, v := range files {
		names[i] = C.CString(k)
		texts[i], lens[i] = cBytes(v)
		i++
	}
	defer func() {
		for j := 0; j < n; j++ {
			C.free(unsafe.Pointer(names[j]))
			C.free(unsafe.Pointer(texts[j]))
		}
		C.free(unsafe.Pointer(&names[0]))
		C.free(unsafe.Pointer(&texts[0]))
		C.free(unsafe.Pointer(&lens[0]))
	}()
	return traceCall(o, func(opts *C.tsched_trace_options, out **C.char) C.tsched_status {
		return C.tsched_trace_convert_dcn(out, cdir, &names[0], &texts[0], &lens[0], C.size_t(n), opts)
	})
}

// TracePoisson is the document of `topo-sched trace poisson`: Jobs, MeanInterarrivalS, Sizes
// and DurationDist are required.
func TracePoisson(o TraceOptions) ([]byte, error) {
	return traceCall(o, func(opts *C.tsched_trace_options, out **C.char) C.tsched_status {
		return C.tsched_trace_poisson(out, opts)
	})
}
