package rundir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteAtomicReplaces: a write replaces the previous file whole, mode 0644, and
// leaves no temporary file.
func TestWriteAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(path, []byte("previous, longer content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("content %q (%v), want \"new\"", got, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	assertNoTemps(t, path)
}

// TestWriteAtomicFailureKeepsPrevious: an error from the writer midway (after some
// bytes) leaves the previous file byte-for-byte, removes the temporary file and
// returns an error naming the path and wrapping the cause; a full disk says so.
func TestWriteAtomicFailureKeepsPrevious(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "steps.csv")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteAtomic(path, func(w io.Writer) error {
		if _, err := w.Write([]byte("half a fi")); err != nil {
			return err
		}
		return &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	})
	if err == nil || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want one wrapping ENOSPC", err)
	}
	for _, want := range []string{"write " + path, "the disk is full", "no space left on device"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != "previous" {
		t.Errorf("content %q, want the previous file", got)
	}
	assertNoTemps(t, path)

	// Without a previous file, a failed write leaves nothing.
	fresh := filepath.Join(dir, "summary.md")
	if err := WriteAtomic(fresh, func(io.Writer) error { return errors.New("render failed") }); err == nil ||
		!strings.Contains(err.Error(), "write "+fresh+": render failed") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed first write left %s: %v", fresh, err)
	}
	assertNoTemps(t, fresh)
}

// TestWriteAtomicMissingDir: a directory that does not exist is an error naming the path.
func TestWriteAtomicMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "report.json")
	if err := WriteFileAtomic(path, []byte("{}")); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming %s", err, path)
	}
}

func assertNoTemps(t *testing.T, path string) {
	t.Helper()
	if left, _ := filepath.Glob(TempGlob(path)); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
