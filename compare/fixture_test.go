package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/rundir/rundirtest"
)

// fixture is a synthetic closed-loop run: a concurrency ladder whose requests (64
// output tokens each) have a TTFT of ttftMs(load) and an ITL of itlMs, each with a
// log-normal jitter; the ITL jitter is drawn from its own seeded stream, so two
// fixtures with the same itlMs have the same ITL values request for request.
type fixture struct {
	name   string
	loads  []int
	ttftMs func(load int) float64
	itlMs  float64
	set    map[string]any // more plan overrides (sla.*, target.simulator.*)
}

// perSlot is the requests each slot of a step sends.
const perSlot = 40

// write writes the fixture's run directory under t's temp dir and returns it.
func (f fixture) write(t testing.TB) string {
	t.Helper()
	ov := map[string]any{"name": f.name, "ladder.concurrency": toAny(f.loads), "sla.ttft_ms.p95": 500.0,
		"sla.itl_ms.p95": 50.0, "report.gpu_hour_usd": 2.0, "report.target_users": []any{100}}
	for k, v := range f.set {
		ov[k] = v
	}
	p, err := plan.Load("", ov)
	if err != nil {
		t.Fatalf("fixture plan: %v", err)
	}
	dir := filepath.Join(t.TempDir(), f.name)
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	meta := rundir.RunMeta{RunID: f.name, ToolVersion: "test", State: rundir.StateComplete, StartedAt: start, Plan: *p, Steps: p.Steps()}
	rundirtest.Write(t, dir, rundirtest.Run{Meta: meta, Records: f.records(p.Steps(), start.UnixNano())})
	return dir
}

func (f fixture) records(steps []plan.Step, t0 int64) []rundir.Record {
	ttftRNG := rand.New(rand.NewPCG(uint64(len(f.name)), 1))
	itlRNG := rand.New(rand.NewPCG(99, 2))
	var out []rundir.Record
	t := t0
	for _, st := range steps {
		c := st.Concurrency
		end := t
		for slot := 0; slot < c; slot++ {
			at := t
			for k := 0; k < perSlot; k++ {
				ttft := f.ttftMs(c) * math.Exp(0.1*ttftRNG.NormFloat64())
				itl := f.itlMs * math.Exp(0.05*itlRNG.NormFloat64())
				e2e := ttft + 63*itl
				r := rundir.Record{RunID: f.name, Segment: st.Segment, StepSegment: st.Segment, Step: st.Index,
					Schedule: plan.ScheduleConcurrency, Concurrency: c, Phase: rundir.PhaseMeasure,
					RequestID: fmt.Sprintf("%d-%d-%d", st.Index, slot, k), SessionID: fmt.Sprintf("s%d-%d-%d", st.Index, slot, k),
					SentNs: at, FirstTokenNs: at + int64(ttft*1e6), EndNs: at + int64(e2e*1e6),
					TTFTMs: rundirtest.Ms(ttft), TTFOMs: rundirtest.Ms(ttft), ITLMs: rundirtest.Ms(itl), E2EMs: rundirtest.Ms(e2e),
					IntendedPromptTokens: 128, IntendedOutputTokens: 64, PromptTokens: 128, OutputTokens: 64,
					TokensSource: rundir.TokensUsage, Chunks: 64, FinishReason: "length", Status: rundir.StatusOK}
				out = append(out, r)
				at = r.EndNs
			}
			end = max(end, at)
		}
		t = end + int64(time.Second)
	}
	return out
}

func toAny(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// flat is a TTFT that does not depend on the load.
func flat(ms float64) func(int) float64 { return func(int) float64 { return ms } }

// inputOf analyses dir (writing nothing) and labels it.
func inputOf(t testing.TB, label, dir string) Input {
	t.Helper()
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Label: label, Dir: dir, Analysis: a}
}

// row is c's delta rows at seg and load (fails t when absent).
func row(t testing.TB, c *Comparison, seg string, load float64) LoadDelta {
	t.Helper()
	for _, d := range c.Deltas {
		if d.Segment == seg && d.Load == load {
			return d
		}
	}
	t.Fatalf("no delta row for %s at %g; rows: %s", seg, load, rowsText(c))
	return LoadDelta{}
}

func (d LoadDelta) metric(m Metric) MetricDelta {
	for _, md := range d.Metrics {
		if md.Metric == m {
			return md
		}
	}
	return MetricDelta{}
}

func rowsText(c *Comparison) string {
	var b strings.Builder
	for _, d := range c.Deltas {
		b.WriteString(d.Segment + "@" + strconv.FormatFloat(d.Load, 'g', -1, 64) + " ")
	}
	return b.String()
}
