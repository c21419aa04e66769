package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the interrupter's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestInterrupterSecondSignalAbandons: the first signal cancels and names what is being
// finished; the second exits 130 and removes the output being written now, keeping an
// older, complete output of the same work.
func TestInterrupterSecondSignalAbandons(t *testing.T) {
	dir := t.TempDir()
	partial, old := filepath.Join(dir, "report.xlsx"), filepath.Join(dir, "report.pdf")
	var log lockedBuffer
	in := newInterrupter(context.Background(), &log)
	defer in.close()
	exited := make(chan int, 1)
	in.exit = func(code int) { exited <- code }
	if err := os.WriteFile(old, []byte("complete"), 0o644); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	end := in.start("report.xlsx, report.pdf", partial, old)
	defer end()
	if err := os.WriteFile(partial, []byte("PK half"), 0o644); err != nil {
		t.Fatal(err)
	}
	in.sigs <- os.Interrupt
	select {
	case <-in.ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first signal did not cancel")
	}
	in.sigs <- os.Interrupt
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("exit %d, want 130", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second signal did not abandon")
	}
	if _, err := os.Stat(partial); err == nil {
		t.Error("the partly written report.xlsx was left behind")
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the untouched report.pdf was removed: %v", err)
	}
	s := log.String()
	if !strings.Contains(s, "interrupted: finishing report.xlsx, report.pdf (Ctrl-C again to abandon it)") ||
		!strings.Contains(s, "abandoned; removed the partly written "+partial) {
		t.Errorf("messages:\n%s", s)
	}
}

// TestInterruptedRenderAllWritten: a Ctrl-C that came after every format was written
// is not an interruption (nil error), and a partial one names the missing formats with
// a quoted directory.
func TestInterruptedRenderAllWritten(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := interruptedRender(ctx, "d", []string{"json", "xlsx"}, []string{"xlsx", "json"}); err != nil {
		t.Errorf("all written: %v, want nil", err)
	}
	err := interruptedRender(ctx, "sp ace/run 1", []string{"json", "xlsx"}, []string{"json"})
	if err == nil || !strings.Contains(err.Error(), "written json; not written xlsx (render them with: llmcap report 'sp ace/run 1' --format xlsx)") {
		t.Errorf("err = %v", err)
	}
}

// TestRemoveTouchedTemporaries: abandoning removes the temporary file of an atomic write
// in progress (rundir.WriteAtomic) next to an untouched previous output, which stays.
func TestRemoveTouchedTemporaries(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "analysis.json")
	if err := os.WriteFile(old, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	tmp := old + ".tmp-123456"
	if err := os.WriteFile(tmp, []byte("{\"half"), 0o644); err != nil {
		t.Fatal(err)
	}
	removed := removeTouched(old, time.Now().Add(-time.Minute))
	if len(removed) != 1 || removed[0] != tmp {
		t.Errorf("removed %v, want [%s]", removed, tmp)
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "{}\n" {
		t.Errorf("the previous analysis.json: %q, %v", b, err)
	}
}
