package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// interrupter handles Ctrl-C (SIGINT, SIGTERM) for work that cannot stop midway (the
// analysis, each report format): the first signal cancels its context (nothing new
// starts; what is in progress finishes) and says what it finishes; a second one
// abandons: it removes the outputs being written (no half-written file stays) and exits
// with status 130 at once. It listens even when the shell started llmcap with SIGINT
// ignored (a background job), so both signals always act.
type interrupter struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal
	done   chan struct{}
	log    io.Writer
	// exit ends the process on the second signal (os.Exit; tests replace it).
	exit func(code int)

	mu sync.Mutex
	// busy maps what is in progress (a format name, "analysis") to the paths it writes
	// and when it started.
	busy map[string]busyWork
}

// busyWork is one piece of work in progress: its output paths and start time.
type busyWork struct {
	paths   []string
	started time.Time
}

// newInterrupter starts listening for signals; close stops it.
func newInterrupter(parent context.Context, log io.Writer) *interrupter {
	ctx, cancel := context.WithCancel(parent)
	in := &interrupter{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 2), done: make(chan struct{}),
		log: log, exit: os.Exit, busy: map[string]busyWork{}}
	signal.Notify(in.sigs, os.Interrupt, syscall.SIGTERM)
	go in.listen()
	return in
}

// listen cancels on the first signal and abandons on the second.
func (in *interrupter) listen() {
	n := 0
	for {
		select {
		case <-in.done:
			return
		case <-in.sigs:
			n++
			if n == 1 {
				in.cancel()
				if what := in.busyNames(); what != "" {
					fmt.Fprintf(in.log, "interrupted: finishing %s (Ctrl-C again to abandon it)\n", what)
				}
				continue
			}
			in.abandon()
			return
		}
	}
}

// abandon removes the outputs being written and exits 130.
func (in *interrupter) abandon() {
	in.mu.Lock()
	var removed []string
	for _, w := range in.busy {
		for _, p := range w.paths {
			removed = append(removed, removeTouched(p, w.started)...)
		}
	}
	in.mu.Unlock()
	sort.Strings(removed)
	msg := "llmcap: abandoned"
	if len(removed) > 0 {
		msg += "; removed the partly written " + strings.Join(removed, ", ")
	}
	fmt.Fprintln(in.log, msg)
	in.exit(130)
}

// removeTouched removes path when it was modified at or after since (for a directory:
// its files modified since then), and the temporary files of an atomic write of path
// still in progress (rundir.TempGlob), and returns what it removed.
func removeTouched(path string, since time.Time) []string {
	var out []string
	temps, _ := filepath.Glob(rundir.TempGlob(path))
	for _, t := range temps {
		if os.Remove(t) == nil {
			out = append(out, t)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return out
	}
	if !st.IsDir() {
		if !st.ModTime().Before(since) && os.Remove(path) == nil {
			out = append(out, path)
		}
		return out
	}
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		out = append(out, removeTouched(filepath.Join(path, e.Name()), since)...)
	}
	return out
}

// start records work in progress (name, the paths it writes) until the returned end.
func (in *interrupter) start(name string, paths ...string) (end func()) {
	in.mu.Lock()
	in.busy[name] = busyWork{paths: paths, started: time.Now().Add(-time.Second)}
	in.mu.Unlock()
	return func() {
		in.mu.Lock()
		delete(in.busy, name)
		in.mu.Unlock()
	}
}

// busyNames lists the work in progress, e.g. "report.xlsx, report.pdf".
func (in *interrupter) busyNames() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	names := make([]string, 0, len(in.busy))
	for n := range in.busy {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// close stops listening for signals.
func (in *interrupter) close() {
	signal.Stop(in.sigs)
	close(in.done)
	in.cancel()
}
