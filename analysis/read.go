package analysis

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"

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
	readLagMs              float32 // the client's read lag (rundir.Record.ReadLagMs), ms; NaN when absent
	prompt, output         int32
	intendedPrompt         int32
	intendedOutput         int32
	drawn                  uint16  // drawn segment, index into store.names
	errClass               uint16  // index into store.names (0 = none)
	waitedMs               float32 // an unfinished request's wait (ms; sla.Unfinished)
	lastTokenMs            float32 // an unfinished request's sent → last token (ms; sla.Request.LastTokenMs)
	phase                  uint8
	ok                     bool
	unfinished             bool // still in flight when its step ended (sla.Unfinished)
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
	users       int
	idx         []int32   // indexes of the step's requests (store.req)
	icl         []float64 // ICL values of successful measured requests, ms
	// errSamples: error class → the first error message of a failed record (measured
	// records preferred over warm-up ones).
	errSamples map[string]string
}

// maxErrorSample is the longest error message kept per class, in bytes.
const maxErrorSample = 200

// sampleError remembers the first error message per class (a measured one replaces a
// warm-up one).
func (g *group) sampleError(class, msg string, measuredPhase bool) {
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
		msg = msg[:maxErrorSample] + "…"
	}
	g.errSamples[key] = msg
}

// errorSample returns the sample message of class, a measured one when there is one.
func (g *group) errorSample(class string) string {
	if m, ok := g.errSamples[class]; ok {
		return m
	}
	return g.errSamples["\x00"+class]
}

// store is every record of a run, grouped by step. The requests are kept in fixed-size
// blocks (1<<reqBlockBits requests each), so a growing run never copies the ones already read.
type store struct {
	blocks [][]request
	count  int      // requests stored
	names  []string // interned strings; names[0] = ""
	ids    map[string]uint16
	groups map[groupKey]*group
	order  []*group // groups in first-seen order
}

func newStore() *store {
	return &store{names: []string{""}, ids: map[string]uint16{"": 0}, groups: map[groupKey]*group{}}
}

// intern returns the id of s (allocation-free when s is already known).
func (s *store) intern(str string) uint16 {
	if id, ok := s.ids[str]; ok {
		return id
	}
	if len(s.names) >= math.MaxUint16 {
		return 0
	}
	id := uint16(len(s.names))
	s.names = append(s.names, str)
	s.ids[str] = id
	return id
}

func phaseCode(p string) uint8 {
	switch p {
	case rundir.PhaseWarmup:
		return phaseWarmup
	case rundir.PhaseMeasure:
		return phaseMeasure
	case rundir.PhaseGrace:
		return phaseGrace
	}
	return phaseOther
}

// add appends one record in compact form.
func (s *store) add(r *rundir.Record) {
	stepSeg := r.StepSegment
	if stepSeg == "" {
		stepSeg = r.Segment
	}
	segID := s.intern(stepSeg)
	key := groupKey{step: r.Step, stepSeg: s.names[segID]}
	g := s.groups[key]
	if g == nil {
		g = &group{key: key, schedule: r.Schedule, concurrency: r.Concurrency, rate: r.Rate, users: r.Users}
		s.groups[key] = g
		s.order = append(s.order, g)
	}
	q := request{
		sentNs: r.SentNs, firstNs: r.FirstTokenNs, endNs: r.EndNs,
		ttft: orNaN(r.TTFTMs), ttfo: orNaN(r.TTFOMs), itl: orNaN(r.ITLMs), e2e: orNaN(r.E2EMs),
		lagMs: float32(orNaN(r.ScheduleLagMs)), readLagMs: float32(orNaN(r.ReadLagMs)),
		prompt: int32(r.PromptTokens), output: int32(r.OutputTokens),
		intendedPrompt: int32(r.IntendedPromptTokens), intendedOutput: int32(r.IntendedOutputTokens),
		drawn: s.intern(r.Segment), phase: phaseCode(r.Phase),
		ok: r.Status == rundir.StatusOK,
	}
	if jr := sla.RecordRequest(r); jr.Unfinished {
		q.unfinished, q.waitedMs, q.lastTokenMs = true, float32(jr.WaitedMs), float32(jr.LastTokenMs)
	}
	if !q.ok {
		cls := r.ErrorClass
		if cls == "" {
			cls = "unknown"
		}
		q.errClass = s.intern(cls)
		g.sampleError(s.names[q.errClass], r.Error, q.phase == phaseMeasure || q.phase == phaseGrace)
	}
	if q.ok && q.phase != phaseWarmup && len(r.ICLMs) > 0 {
		g.icl = append(g.icl, r.ICLMs...)
	}
	g.idx = append(g.idx, int32(s.count))
	s.push(q)
}

// reqBlockBits sets the block size of store: 1<<reqBlockBits requests (6 MiB) a block.
const reqBlockBits = 16

// push appends q to the last block (a new one when it is full). The first block grows
// as a slice does, so a small run allocates little; the later ones are made full size.
func (s *store) push(q request) {
	switch {
	case len(s.blocks) == 0:
		s.blocks = append(s.blocks, nil)
	case s.count&(1<<reqBlockBits-1) == 0:
		s.blocks = append(s.blocks, make([]request, 0, 1<<reqBlockBits))
	}
	b := &s.blocks[len(s.blocks)-1]
	*b = append(*b, q)
	s.count++
}

// req returns the request with index i (an index of group.idx).
func (s *store) req(i int32) *request {
	return &s.blocks[i>>reqBlockBits][i&(1<<reqBlockBits-1)]
}

// orNaN is *p, or NaN for nil (an undefined latency).
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

type runInputs struct {
	meta    rundir.RunMeta
	steps   map[int]rundir.StepSummary
	records *store
	server  []rundir.MetricSample
	kernels []KernelSummary
	// damage is rundir's count of undecodable lines, one entry per file read.
	damage []rundir.Damage
	// duplicates is the number of records.jsonl lines that repeated a request already
	// read (rundir.DuplicateFilter) and were left out.
	duplicates int
	// progress: how far an incomplete run got; its unfinished steps are already dropped
	// from records.order.
	progress runProgress
	// unknown: the records of a complete run's steps the run does not have, already
	// dropped from records.order (dropUnknownSteps).
	unknown unknownSteps
	// drift are drift.jsonl's probe requests; hasDrift is false without the file.
	drift    []rundir.DriftRecord
	hasDrift bool
}

// readRun reads the run directory dir through rundir. run.json and records.jsonl are
// required; steps.jsonl, server-metrics.jsonl, drift.jsonl and profiles/*/kernels.json
// are optional.
// Lines rundir could not decode are counted in damage.
func readRun(dir string) (*runInputs, error) {
	in := &runInputs{steps: map[int]rundir.StepSummary{}}
	meta, err := rundir.ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	in.meta = *meta
	in.records = newStore()
	var dups rundir.DuplicateFilter
	dmg, err := rundir.EachRecord(dir, func(r *rundir.Record) error {
		if !dups.Repeat(r) {
			in.records.add(r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rundir.FileRecords, err)
	}
	in.damage = append(in.damage, dmg)
	in.duplicates = dups.Count()
	steps, dmg, err := rundir.ReadSteps(dir)
	if err != nil {
		return nil, err
	}
	in.damage = append(in.damage, dmg)
	for _, s := range steps {
		in.steps[s.Index] = s
	}
	dmg, err = rundir.EachMetric(dir, func(m *rundir.MetricSample) error {
		in.server = append(in.server, *m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	in.damage = append(in.damage, dmg)
	if in.drift, dmg, in.hasDrift, err = rundir.ReadDrift(dir); err != nil {
		return nil, err
	}
	in.damage = append(in.damage, dmg)
	in.kernels = readKernels(dir)
	in.progress = dropUnfinished(in, dir)
	in.unknown = dropUnknownSteps(in)
	return in, nil
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
