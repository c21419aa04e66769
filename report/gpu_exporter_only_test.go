package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// A run whose only metrics endpoint is a dcgm-exporter (a server without Prometheus
// metrics, e.g. Ollama, on a GPU node): its report shows the GPU telemetry and no
// server-metrics charts, rather than "could not be drawn" notes for a server queue and
// a KV cache that were never scraped. The run is dcgmRun's with the simulator's own
// scrapes removed from server-metrics.jsonl, as such a run records it.
func TestReportExporterOnlyHasNoEmptyServerCharts(t *testing.T) {
	_, dir, _ := dcgmRun(t)
	samples, _, err := rundir.ReadMetrics(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	kept := 0
	for _, m := range samples {
		if _, ok := rundir.ServerValue(m, rundir.ServerGPUPowerW); !ok {
			continue
		}
		line, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
		kept++
	}
	if kept == 0 || kept == len(samples) {
		t.Fatalf("kept %d of %d scrapes, want the exporter's only", kept, len(samples))
	}
	if err := os.WriteFile(filepath.Join(dir, "server-metrics.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if g := a.Segments[0].Steps[0].GPU; g == nil || g.GPUs != 2 {
		t.Fatalf("step 0 GPU telemetry %+v, want the 2 GPUs", g)
	}
	if err := Write(dir, a, []string{"html"}); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"could not be drawn", "Server queue over time", `id="chart-server-queue"`, `id="chart-server-kv"`} {
		if strings.Contains(string(html), bad) {
			t.Errorf("exporter-only report.html holds %q", bad)
		}
	}
	if !strings.Contains(string(html), "GPU and cache telemetry per step") {
		t.Errorf("exporter-only report.html lacks the GPU telemetry table")
	}
}
