package analysis

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
)

// TestDuplicatedRecordLinesCountOnce runs a tiny sweep on the embedded simulator, then
// repeats some of its records.jsonl lines (a block replayed at the end, as after a
// crash and resume, and one line pasted twice in place): the analysis of the damaged
// copy counts every request once (the same per-step counts and latencies as the
// original) and warns, with the count, that the repeated lines were ignored.
func TestDuplicatedRecordLinesCountOnce(t *testing.T) {
	p := realSimPlan()
	p.Ladder.Concurrency = []int{2, 4}
	p.Ladder.Duration = time.Second
	p.Ladder.Warmup.Duration = 200 * time.Millisecond
	p.Ladder.Grace = 3 * time.Second
	p.Target.Simulator.SpeedUp = 8
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	orig, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range orig.Warnings {
		if w.Kind == WarnDuplicateRecords {
			t.Fatalf("the original run already warns: %s", w.Message)
		}
	}

	b, err := os.ReadFile(filepath.Join(dir, rundir.FileRecords))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty tail after the last newline
	if len(lines) < 20 {
		t.Fatalf("only %d records: the sweep measured too little", len(lines))
	}
	damaged := slices.Clone(lines)
	damaged = slices.Insert(damaged, 3, lines[2])       // one line pasted twice
	damaged = append(damaged, lines[len(lines)-12:]...) // a replayed block
	const dup = 13
	if err := os.WriteFile(filepath.Join(dir, rundir.FileRecords), bytes.Join(damaged, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}

	var warned []Warning
	for _, w := range got.Warnings {
		if w.Kind == WarnDuplicateRecords {
			warned = append(warned, w)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Message, "13 duplicated record lines ignored") ||
		warned[0].Data == nil || warned[0].Data.Count != dup || warned[0].Data.File != rundir.FileRecords {
		t.Errorf("duplicate warnings %+v, want one saying 13 duplicated record lines ignored", warned)
	}
	total := 0
	for si, seg := range orig.Segments {
		for i, want := range seg.Steps {
			g := got.Segments[si].Steps[i]
			total += g.Requests
			if g.Requests != want.Requests || g.Errors != want.Errors || g.WarmupRequests != want.WarmupRequests ||
				g.TTFTMs.P95 != want.TTFTMs.P95 || g.E2EMs.Mean != want.E2EMs.Mean || g.OutputTokenThroughput != want.OutputTokenThroughput {
				t.Errorf("step %d: requests %d errors %d warm-up %d TTFT p95 %g E2E mean %g tok/s %g; the original run: %d %d %d %g %g %g",
					want.Step+1, g.Requests, g.Errors, g.WarmupRequests, g.TTFTMs.P95, g.E2EMs.Mean, g.OutputTokenThroughput,
					want.Requests, want.Errors, want.WarmupRequests, want.TTFTMs.P95, want.E2EMs.Mean, want.OutputTokenThroughput)
			}
		}
	}
	if total == 0 {
		t.Error("no measured request in any step: the comparison checked nothing")
	}
}

// TestDuplicateFilterKey: only the same run, step and request_id is a repeat; a record
// without a request_id never is.
func TestDuplicateFilterKey(t *testing.T) {
	var f rundir.DuplicateFilter
	recs := []rundir.Record{
		{RunID: "a", Step: 0, RequestID: "s0000-r000001"},
		{RunID: "a", Step: 1, RequestID: "s0000-r000001"},
		{RunID: "b", Step: 0, RequestID: "s0000-r000001"},
		{RunID: "a", Step: 0, RequestID: "s0000-r000002"},
		{RunID: "a", Step: 0},
		{RunID: "a", Step: 0},
		{RunID: "a", Step: 0, RequestID: "s0000-r000001"},
	}
	var repeats []int
	for i := range recs {
		if f.Repeat(&recs[i]) {
			repeats = append(repeats, i)
		}
	}
	if !slices.Equal(repeats, []int{6}) || f.Count() != 1 {
		t.Errorf("repeats %v (count %d), want [6] (1)", repeats, f.Count())
	}
}
