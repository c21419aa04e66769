package merge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// A shard directory written through rundir the way a sharded sweep writes it (each
// summary holds the whole step, the shard's share in its Shard part): run.json
// with its shard, one summary per finished step, and its records.

// t0 is the fixtures' common start (reference clock).
var t0 = time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)

// stepLen is each fixture step's length on the timeline.
const stepLen = 20 * time.Second

// fixture describes one shard directory.
type fixture struct {
	index, count int
	planHash     string
	clock        rundir.ClockSync
	// finished is how many of the plan's steps have a summary; cutRecords is how
	// many records the first unfinished one kept.
	finished, cutRecords int
	// skewNs shifts every step start of this shard (reference clock).
	skewNs int64
	// late marks the shard's steps off the timeline.
	late bool
}

// fixtureSteps is the fixtures' plan: two closed-loop steps at 8 and 16.
func fixtureSteps() []plan.Step {
	return []plan.Step{
		{Index: 0, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: 8, Duration: 10 * time.Second},
		{Index: 1, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: 16, Duration: 10 * time.Second},
	}
}

// recordsPerShardStep is how many records each fixture shard writes per finished step.
const recordsPerShardStep = 5

// write writes f under dir and returns its path.
func (f fixture) write(t *testing.T, dir string) string {
	t.Helper()
	d := filepath.Join(dir, fmt.Sprintf("shard-%d-%d", f.index, time.Now().UnixNano()))
	if f.planHash == "" {
		f.planHash = "cafe"
	}
	if f.clock.Reference == "" {
		f.clock = rundir.ClockSync{Reference: rundir.ClockServerDate, UncertaintyNs: int64(5 * time.Millisecond)}
	}
	w, err := rundir.OpenWriter(d)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	steps := fixtureSteps()
	state := rundir.StateComplete
	if f.finished < len(steps) {
		state = rundir.StateInterrupted
	}
	meta := &rundir.RunMeta{RunID: fmt.Sprintf("fixture-%d", f.index), State: state, StartedAt: t0,
		Plan: plan.Plan{Name: "fixture"}, Steps: steps,
		Shard: &rundir.ShardInfo{Index: f.index, Count: f.count, PlanHash: f.planHash, StartAt: t0, Clock: f.clock}}
	if err := w.WriteMeta(meta); err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		local := t0.Add(time.Duration(st.Index)*stepLen).UnixNano() + f.clock.OffsetNs + f.skewNs
		n := recordsPerShardStep
		if st.Index >= f.finished {
			n = f.cutRecords
			if st.Index > f.finished {
				n = 0
			}
		}
		var recs []*rundir.Record
		for k := range n {
			sent := local + int64(k)*int64(time.Second)
			recs = append(recs, &rundir.Record{RunID: meta.RunID, Step: st.Index, Segment: st.Segment, Phase: rundir.PhaseMeasure,
				RequestID: fmt.Sprintf("s%d-%d-%d", f.index, st.Index, k), Status: rundir.StatusOK,
				SentNs: sent, FirstTokenNs: sent + int64(100*time.Millisecond), EndNs: sent + int64(time.Second)})
		}
		if err := w.AppendRecords(recs); err != nil {
			t.Fatal(err)
		}
		if st.Index >= f.finished {
			continue
		}
		share := splitShare(st.Concurrency, f.index, f.count)
		sum := rundir.StepSummary{Step: st, RunID: meta.RunID, StartNs: local, MeasureStartNs: local,
			MeasureEndNs: local + int64(st.Duration), EndNs: local + int64(st.Duration), MeasureRequests: n, SteadyState: true,
			Shard: &rundir.ShardStep{Index: f.index, Count: f.count, Load: float64(share), PlannedStartNs: local - f.skewNs, Late: f.late}}
		if err := w.AppendStep(&sum); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// splitShare is shard i's share of n over count, as the sweep splits it.
func splitShare(n, i, count int) int {
	s := n / count
	if i < n%count {
		s++
	}
	return s
}

// mergeErr merges dirs into a new directory under dir and returns the error, which
// for a refusal must be Problems and must leave no output directory.
func mergeErr(t *testing.T, dir string, dirs ...string) (Problems, error) {
	t.Helper()
	out := filepath.Join(dir, "merged")
	_, err := Merge(Options{Dirs: dirs, Out: out})
	if err == nil {
		return nil, nil
	}
	var p Problems
	if !errors.As(err, &p) {
		return nil, err
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("a refused merge left %s (stat: %v)", out, serr)
	}
	return p, err
}

// wantRefusal checks that the merge of dirs is refused with one problem holding every
// string of want.
func wantRefusal(t *testing.T, dir string, dirs []string, want ...string) {
	t.Helper()
	p, err := mergeErr(t, dir, dirs...)
	if err == nil {
		t.Fatal("merge succeeded, want a refusal")
	}
	if p == nil {
		t.Fatalf("merge failed with %v, want Problems", err)
	}
	msg := p.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("refusal lacks %q:\n%s", w, msg)
		}
	}
}

func TestMergeCombinesShardsOntoTheReferenceClock(t *testing.T) {
	dir := t.TempDir()
	// Shard 1's clock runs 2 s ahead of the reference: its records re-base by −2 s.
	ahead := rundir.ClockSync{Reference: rundir.ClockServerDate, OffsetNs: int64(2 * time.Second), UncertaintyNs: int64(10 * time.Millisecond)}
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	b := fixture{index: 1, count: 2, finished: 2, clock: ahead}.write(t, dir)
	out := filepath.Join(dir, "merged")
	res, err := Merge(Options{Dirs: []string{b, a}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Shards != 2 || res.Steps != 2 || res.Records != 4*recordsPerShardStep {
		t.Fatalf("result %+v: want 2 shards, 2 steps, %d records", res, 4*recordsPerShardStep)
	}
	if res.AlignNs != 0 {
		t.Errorf("align %v: the re-based starts coincide", time.Duration(res.AlignNs))
	}
	m, err := rundir.ReadMeta(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shard != nil || m.Merged == nil || m.Merged.Count != 2 || m.Merged.Shards[1].Clock.OffsetNs != ahead.OffsetNs || m.State != rundir.StateComplete {
		t.Fatalf("merged run.json shard %+v merged %+v state %s", m.Shard, m.Merged, m.State)
	}
	sums, _, err := rundir.ReadSteps(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sums {
		if want := fixtureSteps()[i].Concurrency; s.Concurrency != want || s.MeasureRequests != 2*recordsPerShardStep || len(s.Shards) != 2 {
			t.Errorf("step %d: c=%d, %d measured, %d parts; want c=%d, %d, 2", i+1, s.Concurrency, s.MeasureRequests, len(s.Shards), want, 2*recordsPerShardStep)
		}
		if want := t0.Add(time.Duration(i) * stepLen).UnixNano(); s.StartNs != want {
			t.Errorf("step %d starts at %v, want %v (reference clock)", i+1, time.Unix(0, s.StartNs).UTC(), time.Unix(0, want).UTC())
		}
	}
	first := map[int]int64{}
	if _, err := rundir.EachRecord(out, func(r *rundir.Record) error {
		if _, ok := first[r.Step]; !ok || r.SentNs < first[r.Step] {
			first[r.Step] = r.SentNs
		}
		if !strings.HasPrefix(r.RunID, "fixture-merged-") {
			return fmt.Errorf("record %s has run id %q", r.RequestID, r.RunID)
		}
		if strings.HasPrefix(r.RequestID, "s1-") && (r.SentNs-t0.UnixNano())%int64(time.Second) != 0 {
			return fmt.Errorf("shard 1's record %s sent at %v: not re-based by whole seconds", r.RequestID, time.Unix(0, r.SentNs).UTC())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for step, ns := range first {
		if want := t0.Add(time.Duration(step) * stepLen).UnixNano(); ns != want {
			t.Errorf("step %d's first record sent at %v, want %v: shard 1's clock offset not removed", step+1, time.Unix(0, ns).UTC(), time.Unix(0, want).UTC())
		}
	}
}

func TestMergeRefusesAMissingShard(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 3, finished: 2}.write(t, dir)
	c := fixture{index: 2, count: 3, finished: 2}.write(t, dir)
	wantRefusal(t, dir, []string{a, c}, "shard 1 of 3 missing")
}

func TestMergeRefusesAShardGivenTwice(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	b := fixture{index: 1, count: 2, finished: 2}.write(t, dir)
	b2 := fixture{index: 1, count: 2, finished: 2}.write(t, dir)
	wantRefusal(t, dir, []string{a, b, b2}, "shard 1/2 given 2 times", b, b2)
}

func TestMergeRefusesShardsOfAnotherPlan(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 2, finished: 2, planHash: "aaaa"}.write(t, dir)
	b := fixture{index: 1, count: 2, finished: 2, planHash: "bbbb"}.write(t, dir)
	wantRefusal(t, dir, []string{a, b}, "ran another plan", "plan hash bbbb against aaaa")
}

func TestMergeRefusesAnotherShardCount(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	b := fixture{index: 1, count: 3, finished: 2}.write(t, dir)
	wantRefusal(t, dir, []string{a, b}, "is shard 1/3", "share the count")
}

func TestMergeRefusesACutShardNamingTheStep(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	b := fixture{index: 1, count: 2, finished: 1, cutRecords: 3}.write(t, dir)
	wantRefusal(t, dir, []string{a, b}, "shard 1/2", "incomplete: step 2 (chat c=16), cut mid-step with 3 records kept",
		"llmcap sweep --resume "+b)

	// Killed before it wrote step 1's records: step 1 is incomplete, step 2 not run.
	c := fixture{index: 1, count: 2, finished: 0}.write(t, dir)
	wantRefusal(t, dir, []string{a, c}, "incomplete: step 1 (chat c=8), in progress or next when the sweep stopped", "not run: step 2 (chat c=16)")
}

func TestMergeRefusesMisalignedSteps(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	b := fixture{index: 1, count: 2, finished: 2, skewNs: int64(2 * time.Second)}.write(t, dir)
	wantRefusal(t, dir, []string{a, b}, "step 1 (chat c=8): the shards started 2s apart", "over the tolerance 500ms")

	// Within a raised tolerance the same shards merge.
	if _, err := Merge(Options{Dirs: []string{a, b}, Out: filepath.Join(dir, "tolerant"), AlignTolerance: 3 * time.Second}); err != nil {
		t.Fatalf("with --align-tolerance 3s: %v", err)
	}
}

func TestMergeWarnsOfAShardOffTheTimeline(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	b := fixture{index: 1, count: 2, finished: 2, skewNs: int64(time.Minute), late: true}.write(t, dir)
	res, err := Merge(Options{Dirs: []string{a, b}, Out: filepath.Join(dir, "merged")})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range res.Warnings {
		if w.Kind == rundir.WarnShardOffTimeline && strings.Contains(w.Message, "shard 1/2 ran it off the common timeline") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d off-timeline warnings, want one per step (2): %+v", n, res.Warnings)
	}
}

func TestMergeRefusesAnUncertainClock(t *testing.T) {
	dir := t.TempDir()
	vague := rundir.ClockSync{Reference: rundir.ClockServerDate, UncertaintyNs: int64(400 * time.Millisecond)}
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	b := fixture{index: 1, count: 2, finished: 2, clock: vague}.write(t, dir)
	wantRefusal(t, dir, []string{a, b}, "shard 1/2", "known only within ±400ms", "over the bound ±250ms")
}

func TestMergeRefusesARunThatIsNotAShard(t *testing.T) {
	dir := t.TempDir()
	a := fixture{index: 0, count: 2, finished: 2}.write(t, dir)
	plain := filepath.Join(dir, "plain")
	w, err := rundir.OpenWriter(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMeta(&rundir.RunMeta{RunID: "plain", State: rundir.StateComplete}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	wantRefusal(t, dir, []string{a, plain}, plain+": not a shard's run directory")
}
