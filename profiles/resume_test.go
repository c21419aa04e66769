package profiles

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestConvertReportIgnoresStaleSQLite converts a real report next to a capture.sqlite
// left by an earlier (interrupted) capture of the same step: nsys stats must export the
// report afresh (--force-export) rather than summarise the stale database.
func TestConvertReportIgnoresStaleSQLite(t *testing.T) {
	path, err := FindNsys("")
	if err != nil {
		t.Skipf("real nsys needed (%v)", err)
	}
	b, err := os.ReadFile("testdata/osrt-2022.4-http-server.nsys-rep")
	if err != nil {
		t.Fatal(err)
	}
	convert := func(stale []byte) *Summary {
		dir := t.TempDir()
		rep := filepath.Join(dir, "capture.nsys-rep")
		if err := os.WriteFile(rep, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if stale != nil {
			if err := os.WriteFile(filepath.Join(dir, "capture.sqlite"), stale, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := ConvertReport(context.Background(), NewNsys(path), rep, dir, Summary{Step: 1, Phase: "chat c=8"})
		if err != nil {
			t.Fatalf("convert (stale sqlite %v): %v", stale != nil, err)
		}
		return s
	}
	fresh := convert(nil)
	// The stale database: the interrupted run's export (here: one nsys cannot read, so
	// reusing it leaves the OS runtime table empty).
	got := convert([]byte("SQLite export of an interrupted capture"))
	if fresh.OSRTTimeNs <= 0 || got.OSRTTimeNs != fresh.OSRTTimeNs {
		t.Errorf("OS runtime time with a stale capture.sqlite %d ns, fresh %d ns", got.OSRTTimeNs, fresh.OSRTTimeNs)
	}
}

// TestBeforeMeasureClearsOldCapture starts a capture of a step whose directory holds an
// interrupted run's files: none of them may survive into the new capture.
func TestBeforeMeasureClearsOldCapture(t *testing.T) {
	p := capturePlan(ModeSession)
	p.Capture.NsysPath = fakeNsys(t, "started", 0)
	c, err := NewCapturer(p, quiet)
	if err != nil || c.Err() != nil {
		t.Fatalf("NewCapturer: %v, %v", err, c.Err())
	}
	runDir := t.TempDir()
	st := step(1, 2)
	dir := filepath.Join(runDir, StepDir(st))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := []string{"capture.sqlite", "capture.nsys-rep", "stats_osrtsum.csv", FileCaptureJSON, FileOSRTPprof}
	for _, f := range old {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("interrupted run"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.BeforeMeasure(context.Background(), st, runDir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("capture directory: %v", err)
	}
	for _, f := range old {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s of the interrupted capture survived", f)
		}
	}
}
