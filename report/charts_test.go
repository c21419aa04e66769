package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s (run with -update to create it): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (%d vs %d bytes); rerun with -update if the change is intended", name, len(got), len(want))
	}
}

// lowDPI renders chart PNGs at 72 DPI for the rest of the test (the race detector
// makes 200-DPI rasterising slow; SVG, text and structure do not depend on it).
func lowDPI(t *testing.T) {
	old := pngDPI
	pngDPI = 72
	t.Cleanup(func() { pngDPI = old })
}

func TestChartsGolden(t *testing.T) {
	lowDPI(t)
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 40)
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	charts := buildCharts(in)
	byName := map[string]Chart{}
	for _, c := range charts {
		if c.Err != nil {
			t.Errorf("chart %s: %v", c.Name, c.Err)
		}
		byName[c.Name] = c
	}
	// 4 segments (3 + mix) × ttft, itl, throughput, fit, cdf + pareto + 2 server charts.
	if len(charts) != 4*5+3 {
		t.Errorf("got %d charts, want 23", len(charts))
	}
	for _, name := range []string{"ttft-short-chat", "itl-rag-medium", "throughput-mix", "fit-long-context",
		"cdf-mix", "pareto", "server-queue", "server-kv"} {
		c, ok := byName[name]
		if !ok {
			t.Errorf("chart %s missing", name)
			continue
		}
		if !bytes.HasPrefix(c.PNG, []byte("\x89PNG")) {
			t.Errorf("chart %s: PNG bytes missing", name)
		}
		golden(t, name+".svg", c.SVG)
	}
	// The TTFT chart names the SLA and the capacity point in its legend.
	svg := string(byName["ttft-short-chat"].SVG)
	for _, want := range []string{"SLA TTFT p95 ≤ 500 ms", "capacity " + auto(a.Segments[0].Capacity.MaxConcurrencyWithinSLA)} {
		if !strings.Contains(svg, want) {
			t.Errorf("ttft chart lacks %q", want)
		}
	}
}
