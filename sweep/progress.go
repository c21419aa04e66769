package sweep

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressTTFTWindow is how many recent TTFTs the live p50/p95 are computed over.
const progressTTFTWindow = 1000

// progress is the live display: a bar over the run's steps whose description shows the
// segment, step, load, phase, requests done, live TTFT p50/p95 and errors. A nil
// *progress (no writer, or not a terminal) is quiet; every method accepts it.
type progress struct {
	bar    *progressbar.ProgressBar
	w      io.Writer
	mu     sync.Mutex
	st     string // "segment step i/n c=N"
	phase  string
	note   string // e.g. "stopped early: error rate 100%"; cleared by beginStep
	done   int
	errors int
	ttft   []float64 // ring of recent TTFTs (ms)
	next   int
	stop   chan struct{}
	wg     sync.WaitGroup
}

// newProgress returns a display on w over steps steps, or nil when w is nil or not a
// terminal.
func newProgress(w io.Writer, steps int) *progress {
	f, ok := w.(*os.File)
	if w == nil || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	p := &progress{stop: make(chan struct{}), w: w}
	p.bar = progressbar.NewOptions(steps, progressbar.OptionSetWriter(w),
		progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionShowDescriptionAtLineEnd(), progressbar.OptionSetWidth(20))
	p.wg.Add(1)
	go p.refresh()
	return p
}

func (p *progress) refresh() {
	defer p.wg.Done()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.bar.Describe(p.describe())
		}
	}
}

func (p *progress) describe() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := slices.Clone(p.ttft)
	slices.Sort(v)
	line := fmt.Sprintf("%s %s | done %d | TTFT p50 %.0f ms p95 %.0f ms | errors %d",
		p.st, p.phase, p.done, sla.Percentile(v, 0.50), sla.Percentile(v, 0.95), p.errors)
	if p.note != "" {
		line += " | " + p.note
	}
	return line
}

// beginStep shows a new step.
func (p *progress) beginStep(desc string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.st, p.phase, p.done, p.errors, p.ttft, p.next, p.note = desc, "warm-up", 0, 0, p.ttft[:0], 0, ""
	p.mu.Unlock()
}

// stepPhase shows the step's phase.
func (p *progress) stepPhase(phase string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.phase = phase
	p.mu.Unlock()
}

// stepNote shows a note on the step until the next one begins.
func (p *progress) stepNote(note string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.note = note
	p.mu.Unlock()
}

// observe counts a finished request.
func (p *progress) observe(r *rundir.Record) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if !r.OK() {
		p.errors++
		return
	}
	if r.TTFTMs == nil {
		return
	}
	if len(p.ttft) < progressTTFTWindow {
		p.ttft = append(p.ttft, *r.TTFTMs)
	} else {
		p.ttft[p.next] = *r.TTFTMs
		p.next = (p.next + 1) % progressTTFTWindow
	}
}

// endStep advances the bar.
func (p *progress) endStep() {
	if p == nil {
		return
	}
	p.bar.Add(1)
}

// clear erases the bar's line so a log line can be printed; the next refresh redraws it.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.bar.Clear()
}

// close stops the display.
func (p *progress) close() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.bar.Finish()
	fmt.Fprintln(p.w)
}
