package importer_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/importer"
	"github.com/llmcap/llmcap/rundir"
)

// TestImportedPlanTakesSLAOverridesAndNamesItsSources: without overrides the plan has
// llmcap's default SLA (TTFT p95 ≤ 500 ms, ITL p95 ≤ 50 ms); --set sla.ttft_ms.p99=300
// replaces it; run.json's plan names the tool, the command and each file with its
// load, and holds one step per file with the file's measured requests.
func TestImportedPlanTakesSLAOverridesAndNamesItsSources(t *testing.T) {
	c1, c4 := filepath.Join("testdata", "aiperf", "c1"), filepath.Join("testdata", "aiperf", "c4")
	def, _ := importInto(t, importer.FormatAIPerf, []string{c1}, nil)
	if got := def.Plan.SLA.TTFTMs["p95"]; got != 500 || def.Plan.SLA.ITLMs["p95"] != 50 {
		t.Errorf("default SLA %v %v, want TTFT p95 500, ITL p95 50", def.Plan.SLA.TTFTMs, def.Plan.SLA.ITLMs)
	}
	_, dir := importInto(t, importer.FormatAIPerf, []string{c4, c1}, map[string]any{"sla.ttft_ms.p99": 300})
	meta, err := rundir.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := meta.Plan.SLA; s.TTFTMs["p99"] != 300 || len(s.TTFTMs) != 1 || len(s.ITLMs) != 0 {
		t.Errorf("SLA %v %v, want only TTFT p99 ≤ 300", s.TTFTMs, s.ITLMs)
	}
	d := meta.Plan.Description
	for _, w := range []string{"Imported from AIPerf by llmcap import aiperf", "concurrency 1 from " + filepath.Join(c1, importer.AIPerfExportFile),
		"concurrency 4 from " + filepath.Join(c4, importer.AIPerfExportFile)} {
		if !strings.Contains(d, w) {
			t.Errorf("description %q lacks %q", d, w)
		}
	}
	if meta.State != rundir.StateComplete || len(meta.Steps) != 2 || meta.Steps[0].Concurrency != 1 || meta.Steps[1].Requests != 60 ||
		meta.Steps[1].Warmup.Requests != 2 || meta.Steps[1].Duration <= 0 {
		t.Errorf("state %s, steps %+v: want complete, c1 then c4 with 60 measured and 2 warm-up requests over a positive window", meta.State, meta.Steps)
	}
}
