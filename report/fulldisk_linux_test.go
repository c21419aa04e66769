//go:build linux

package report

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFullDiskKeepsPreviousReport renders, on a tmpfs too small for it, a report into
// a run directory that holds a previous report: every report file must then be the
// previous one byte-for-byte, the complete new one, or absent (never truncated), no
// temporary file may be left, and the error must say the disk is full. It needs root
// (to mount the tmpfs) and is skipped otherwise.
func TestFullDiskKeepsPreviousReport(t *testing.T) {
	lowDPI(t)
	a := fxAnalysis()
	src := fxWriteRunDir(t, a, 200)
	// The new report, rendered where there is room: the reference for "complete".
	ref := t.TempDir()
	copyInputs(t, src, ref)
	if err := Write(ref, a, nil); err != nil {
		t.Fatal(err)
	}
	newFiles := reportFiles(t, ref)
	var inputs, outputs int64
	for _, n := range []string{"run.json", "records.jsonl", "server-metrics.jsonl", "steps.jsonl"} {
		if st, err := os.Stat(filepath.Join(src, n)); err == nil {
			inputs += st.Size()
		}
	}
	for _, b := range newFiles {
		outputs += int64(len(b))
	}

	mnt := t.TempDir()
	size := inputs + outputs/3 + 64<<10 // room for the inputs, the previous report and a third of the new one
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size="+itoa(size)); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root on Linux): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	dir := filepath.Join(mnt, "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyInputs(t, src, dir)
	previous := map[string][]byte{}
	for _, rel := range []string{FilePDF, FileXLSX, FileJSON, FileMarkdown, FileStepsCSV, filepath.Join(DirCharts, "pareto.svg")} {
		previous[rel] = []byte("previous " + rel + "\n")
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), previous[rel], 0o644); err != nil {
			t.Fatal(err)
		}
	}

	err := Write(dir, a, nil)
	if err == nil {
		t.Fatalf("a %d-byte report fitted on a %d-byte tmpfs: the test is too lenient", outputs, size)
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "the disk is full") {
		t.Errorf("err = %v, want one saying the disk is full (ENOSPC)", err)
	}
	got := reportFiles(t, dir)
	kept := 0
	for rel, b := range got {
		if strings.Contains(filepath.Base(rel), ".tmp") {
			t.Errorf("temporary file left: %s", rel)
			continue
		}
		switch {
		case previous[rel] != nil && bytes.Equal(b, previous[rel]):
			kept++
		case newFiles[rel] != nil && bytes.Equal(b, newFiles[rel]):
		default:
			t.Errorf("%s (%d bytes) is neither the previous file nor the complete new one (%d bytes): torn",
				rel, len(b), len(newFiles[rel]))
		}
	}
	if kept == 0 {
		t.Error("no previous report file was kept: the disk never ran out?")
	}
}

// reportFiles reads every file of dir except the run's inputs, by path relative to dir.
func reportFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch rel {
		case "run.json", "records.jsonl", "server-metrics.jsonl", "steps.jsonl":
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyInputs copies the run's input files from src into dst.
func copyInputs(t *testing.T, src, dst string) {
	t.Helper()
	for _, n := range []string{"run.json", "records.jsonl", "server-metrics.jsonl", "steps.jsonl"} {
		b, err := os.ReadFile(filepath.Join(src, n))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
