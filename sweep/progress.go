package sweep

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"

	"github.com/schollz/progressbar/v3"
)

// progressTTFTWindow is how many recent TTFTs the live p50/p95 are computed over.
const progressTTFTWindow = 1000

// progress is the live display: a bar over the run's steps whose description shows the
// segment, step, load, phase, requests done, live TTFT p50/p95 and errors. A nil
// *progress (no writer, or not a terminal) is quiet; every method accepts it.
type progress struct {
	bar    *progressbar.ProgressBar
	con    *Console
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
// terminal. On a *Console the log's lines print above the bar (Console.Write); on a
// bare terminal *os.File nothing keeps other writers off the bar's line.
func newProgress(w io.Writer, steps int) *progress {
	con, ok := w.(*Console)
	if !ok {
		con = NewConsole(w)
	}
	if w == nil || !con.IsTerminal() {
		return nil
	}
	p := &progress{stop: make(chan struct{}), con: con}
	p.bar = progressbar.NewOptions(steps, progressbar.OptionSetWriter(con.w),
		progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionShowDescriptionAtLineEnd(), progressbar.OptionSetWidth(20))
	con.attach(p)
	p.wg.Add(1)
	go p.refresh()
	return p
}

// progressBarColumns is about how many columns the bar takes before its description
// ("  12% |████████████████████| (1/8) [12s] ").
const progressBarColumns = 45

func (p *progress) refresh() {
	defer p.wg.Done()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			d := p.describe()
			p.con.draw(func() { p.bar.Describe(d) })
		}
	}
}

func (p *progress) describe() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := slices.Clone(p.ttft)
	slices.Sort(v)
	line := fmt.Sprintf("%s %s | done %d | TTFT p50 %s p95 %s | errors %d",
		p.st, p.phase, p.done, liveMs(v, 0.50), liveMs(v, 0.95), p.errors)
	if p.note != "" {
		line += " | " + p.note
	}
	if p.con != nil && p.con.width > 0 && utf8.RuneCountInString(line) > p.con.width-progressBarColumns {
		room := p.con.width - progressBarColumns
		line = string([]rune(line)[:max(room-1, 0)]) + "…" // one line: a wrapped bar cannot be cleared
	}
	return line
}

// liveMs is percentile q of the sorted TTFTs v as "12 ms", or "–" before any.
func liveMs(v []float64, q float64) string {
	if len(v) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f ms", sla.Percentile(v, q))
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
	p.con.draw(func() { p.bar.Add(1) })
}

// clear erases the bar's line so a log line can be printed; the next refresh redraws it.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.con.draw(func() { p.bar.Clear() })
}

// close stops the display.
func (p *progress) close() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.con.draw(func() {
		p.bar.Finish()
		fmt.Fprintln(p.con.w)
	})
	p.con.attach(nil)
}
