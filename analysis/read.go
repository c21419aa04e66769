package analysis

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// Phases as compact codes.
const (
	phaseWarmup uint8 = iota
	phaseMeasure
	phaseGrace
	phaseOther
)

// request is the compact in-memory form of one record (about 90 bytes), so a million
// records fit comfortably in memory. Latencies are ms, NaN when undefined.
type request struct {
	sentNs, firstNs, endNs int64
	ttft, ttfo, itl, e2e   float64
	lagMs                  float32 // schedule lag (open loop), ms; NaN when absent
	prompt, output         int32
	intendedPrompt         int32
	intendedOutput         int32
	drawn                  uint16 // drawn segment, index into store.names
	errClass               uint16 // index into store.names (0 = none)
	phase                  uint8
	ok                     bool
}

// groupKey identifies one step's records: the step index and the step's segment
// ("mix" for mix steps).
type groupKey struct {
	step    int
	stepSeg string
}

// group holds the records of one step.
type group struct {
	key         groupKey
	schedule    string
	concurrency int
	rate        float64
	idx         []int32   // indexes into store.reqs
	icl         []float64 // ICL values of successful measured requests, ms
	// errSamples: error class → the first error message of a failed record (measured
	// records preferred over warm-up ones).
	errSamples map[string]string
}

// maxErrorSample is the longest error message kept per class, in bytes.
const maxErrorSample = 200

// sampleError remembers the first error message per class (a measured one replaces a
// warm-up one).
func (g *group) sampleError(class string, msg []byte, measuredPhase bool) {
	if len(msg) == 0 {
		return
	}
	if g.errSamples == nil {
		g.errSamples = map[string]string{}
	}
	key := class
	if !measuredPhase {
		key = "\x00" + class // warm-up sample, used only when no measured one exists
	}
	if _, ok := g.errSamples[key]; ok {
		return
	}
	if len(msg) > maxErrorSample {
		msg = append(append([]byte(nil), msg[:maxErrorSample]...), "…"...)
	}
	g.errSamples[key] = string(msg)
}

// errorSample returns the sample message of class, a measured one when there is one.
func (g *group) errorSample(class string) string {
	if m, ok := g.errSamples[class]; ok {
		return m
	}
	return g.errSamples["\x00"+class]
}

// store is every record of a run, grouped by step.
type store struct {
	reqs   []request
	names  []string // interned strings; names[0] = ""
	ids    map[string]uint16
	groups map[groupKey]*group
	order  []*group // groups in first-seen order
	bad    int      // lines that could not be parsed
}

func newStore() *store {
	return &store{names: []string{""}, ids: map[string]uint16{"": 0}, groups: map[groupKey]*group{}}
}

// intern returns the id of s (allocation-free when s is already known).
func (s *store) intern(b []byte) uint16 {
	if id, ok := s.ids[string(b)]; ok {
		return id
	}
	if len(s.names) >= math.MaxUint16 {
		return 0
	}
	str := string(b)
	id := uint16(len(s.names))
	s.names = append(s.names, str)
	s.ids[str] = id
	return id
}

func phaseCode(b []byte) uint8 {
	switch string(b) {
	case rundir.PhaseWarmup:
		return phaseWarmup
	case rundir.PhaseMeasure:
		return phaseMeasure
	case rundir.PhaseGrace:
		return phaseGrace
	}
	return phaseOther
}

// add appends one parsed record.
func (s *store) add(r *rawRecord) {
	stepSeg := r.stepSegment
	if len(stepSeg) == 0 {
		stepSeg = r.segment
	}
	segID := s.intern(stepSeg)
	key := groupKey{step: int(r.step), stepSeg: s.names[segID]}
	g := s.groups[key]
	if g == nil {
		g = &group{key: key, schedule: string(r.schedule), concurrency: int(r.concurrency), rate: r.rate}
		s.groups[key] = g
		s.order = append(s.order, g)
	}
	q := request{
		sentNs: r.sentNs, firstNs: r.firstNs, endNs: r.endNs,
		ttft: r.ttft, ttfo: r.ttfo, itl: r.itl, e2e: r.e2e, lagMs: float32(r.lag),
		prompt: int32(r.prompt), output: int32(r.output),
		intendedPrompt: int32(r.intendedPrompt), intendedOutput: int32(r.intendedOutput),
		drawn: s.intern(r.segment), phase: phaseCode(r.phase),
		ok: string(r.status) == rundir.StatusOK,
	}
	if !q.ok {
		cls := r.errorClass
		if len(cls) == 0 {
			cls = []byte("unknown")
		}
		q.errClass = s.intern(cls)
		g.sampleError(s.names[q.errClass], r.errorMsg, q.phase == phaseMeasure || q.phase == phaseGrace)
	}
	if q.ok && q.phase != phaseWarmup && len(r.icl) > 0 {
		g.icl = append(g.icl, r.icl...)
	}
	g.idx = append(g.idx, int32(len(s.reqs)))
	s.reqs = append(s.reqs, q)
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\n' || b[j-1] == '\r' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

// runInputs are the files of one run directory.
type runInputs struct {
	meta    rundir.RunMeta
	steps   map[int]rundir.StepSummary
	records *store
	server  []rundir.MetricSample
	kernels []KernelSummary
	// progress: how far an incomplete run got; its unfinished steps are already dropped
	// from records.order.
	progress runProgress
}

// readRun reads the run directory dir. run.json and records.jsonl are required;
// steps.jsonl, server-metrics.jsonl and profiles/*/kernels.json are optional.
func readRun(dir string) (*runInputs, error) {
	in := &runInputs{steps: map[int]rundir.StepSummary{}}
	b, err := os.ReadFile(filepath.Join(dir, rundir.FileRun))
	if err != nil {
		return nil, fmt.Errorf("read run meta: %w", err)
	}
	if err := json.Unmarshal(b, &in.meta); err != nil {
		return nil, fmt.Errorf("parse %s: %w", rundir.FileRun, err)
	}
	f, err := os.Open(filepath.Join(dir, rundir.FileRecords))
	if err != nil {
		return nil, fmt.Errorf("open records: %w", err)
	}
	in.records, err = readRecordsParallel(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rundir.FileRecords, err)
	}
	if err := readJSONLines(filepath.Join(dir, rundir.FileSteps), func(s rundir.StepSummary) {
		in.steps[s.Index] = s
	}); err != nil {
		return nil, err
	}
	if err := readJSONLines(filepath.Join(dir, rundir.FileServerMetrics), func(m rundir.MetricSample) {
		in.server = append(in.server, m)
	}); err != nil {
		return nil, err
	}
	in.kernels = readKernels(dir)
	in.progress = dropUnfinished(in, dir)
	return in, nil
}

// readJSONLines decodes each line of an optional JSONL file into T and calls fn.
// A missing file is not an error; a malformed line is skipped.
func readJSONLines[T any](path string, fn func(T)) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var v T
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			fn(v)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return nil
}

// stepOf returns the plan step with index i from run.json, if present.
func (in *runInputs) stepOf(i int) (plan.Step, bool) {
	for _, s := range in.meta.Steps {
		if s.Index == i {
			return s, true
		}
	}
	if s, ok := in.steps[i]; ok {
		return s.Step, true
	}
	return plan.Step{}, false
}
