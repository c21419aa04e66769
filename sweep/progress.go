package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmcap/llmcap/plan"
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
	st     stepLabel
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
	p.bar = newBar(con.w, steps, con.width, 200*time.Millisecond)
	con.attach(p)
	p.wg.Add(1)
	go p.refresh()
	return p
}

// narrowColumns: a terminal narrower than this gets the narrow bar (barWidth) and no
// step count on it (the description starts with the step, "1/3").
const narrowColumns = 100

// barWidth is the bar's own width in a terminal of cols columns (0: unknown).
func barWidth(cols int) int {
	if cols > 0 && cols < narrowColumns {
		return 10
	}
	return 20
}

// barColumns is about how many columns the bar takes around its description in a
// terminal of cols columns: "  12% |" (7), the bar, "| (12/16) [1m23s] " (18; 10
// without the count), and a trailing space.
func barColumns(cols int) int {
	if cols > 0 && cols < narrowColumns {
		return 7 + barWidth(cols) + 10 + 1
	}
	return 7 + barWidth(cols) + 18 + 1
}

// newBar is the bar over steps steps on w, sized for a terminal of cols columns.
func newBar(w io.Writer, steps, cols int, throttle time.Duration) *progressbar.ProgressBar {
	opts := []progressbar.Option{progressbar.OptionSetWriter(w),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false), progressbar.OptionThrottle(throttle),
		progressbar.OptionShowDescriptionAtLineEnd(), progressbar.OptionSetWidth(barWidth(cols))}
	if cols == 0 || cols >= narrowColumns {
		opts = append(opts, progressbar.OptionShowCount())
	}
	return progressbar.NewOptions(steps, opts...)
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
			d := p.describe()
			p.con.draw(func() { p.bar.Describe(d) })
		}
	}
}

func (p *progress) describe() string {
	cols := 0
	if p.con != nil {
		cols = p.con.width
	}
	return p.describeFor(cols)
}

// describeFor is the description for a terminal of cols columns (0: unknown). The wide
// form, "default step 1/3 concurrency=1 warm-up | done 12 | TTFT p50 20 ms p95 29 ms |
// errors 0", when it fits beside the bar; else the compact form, "1/3 c=1 warm-up done 12
// TTFT p95 29ms err 0 default", keeping the figures that fit in the order step, load,
// done, TTFT, errors, phase, note, segment. Always one line: a wrapped bar cannot be
// cleared.
func (p *progress) describeFor(cols int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := slices.Clone(p.ttft)
	slices.Sort(v)
	p50, p95 := liveMs(v, 0.50), liveMs(v, 0.95)
	line := fmt.Sprintf("%s %s | done %d | TTFT p50 %s p95 %s | errors %d",
		p.st.wide(), p.phase, p.done, p50, p95, p.errors)
	if p.note != "" {
		line += " | " + p.note
	}
	room := cols - barColumns(cols)
	if cols <= 0 || utf8.RuneCountInString(line) <= room {
		return line
	}
	return compact(room, []string{p.st.short(), p.st.loadShort(), p.phase, fmt.Sprintf("done %d", p.done),
		"TTFT p95 " + strings.ReplaceAll(p95, " ", ""), fmt.Sprintf("err %d", p.errors), p.note, p.st.segment},
		[]int{0, 1, 3, 4, 5, 2, 6, 7})
}

// compact joins the fields that fit in room columns, taken in priority order (indexes
// into fields) and printed in the fields' order; the first field is cut with "…" when
// even it does not fit. Empty fields are left out.
func compact(room int, fields []string, priority []int) string {
	keep := make([]bool, len(fields))
	used := -1 // the first field has no separating space
	for _, i := range priority {
		n := utf8.RuneCountInString(fields[i])
		if n > 0 && used+1+n <= room {
			keep[i], used = true, used+1+n
		}
	}
	var out []string
	for i, f := range fields {
		if keep[i] {
			out = append(out, f)
		}
	}
	if len(out) == 0 && room > 0 {
		return string([]rune(fields[0])[:max(room-1, 0)]) + "…"
	}
	return strings.Join(out, " ")
}

// liveMs is percentile q of the sorted TTFTs v as "12 ms", or "–" before any.
func liveMs(v []float64, q float64) string {
	if len(v) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f ms", sla.Percentile(v, q))
}

// stepLabel names a step on the bar.
type stepLabel struct {
	segment  string
	index    int // 1-based
	total    int // the run's steps; 0 in a capacity search (it chooses the steps as it goes)
	schedule string
	load     float64
}

// short is "3/16", or "#3" in a capacity search.
func (l stepLabel) short() string {
	if l.total == 0 {
		return fmt.Sprintf("#%d", l.index)
	}
	return fmt.Sprintf("%d/%d", l.index, l.total)
}

// of numbers the step for the console: "3/16", or "3 (capacity search)".
func (l stepLabel) of() string {
	if l.total == 0 {
		return fmt.Sprintf("%d (capacity search)", l.index)
	}
	return l.short()
}

// wide is "default step 3/16 concurrency=8".
func (l stepLabel) wide() string {
	return fmt.Sprintf("%s step %s %s=%g", l.segment, l.of(), l.schedule, l.load)
}

// loadShort is the load in few columns: "c=8", "u=200", "rate=2.5".
func (l stepLabel) loadShort() string {
	name := l.schedule
	switch l.schedule {
	case plan.ScheduleConcurrency:
		name = "c"
	case plan.ScheduleUsers:
		name = "u"
	}
	return fmt.Sprintf("%s=%g", name, l.load)
}

// beginStep shows a new step.
func (p *progress) beginStep(desc stepLabel) {
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
