package report

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpinput "github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath is a Chromium or Chrome binary, or "" when none is installed.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserLog collects what the page reported: console errors, uncaught exceptions,
// requests and failed requests.
type browserLog struct {
	mu                      sync.Mutex
	console, thrown, failed []string
	requests                []string
}

func (l *browserLog) listen(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			l.console = append(l.console, string(e.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		l.thrown = append(l.thrown, e.ExceptionDetails.Text)
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
			l.console = append(l.console, "log "+string(e.Entry.Source)+": "+e.Entry.Text)
		}
	case *network.EventRequestWillBeSent:
		l.requests = append(l.requests, e.Request.URL)
	case *network.EventLoadingFailed:
		l.failed = append(l.failed, e.ErrorText)
	}
}

// TestHTMLInChromium loads report.html in headless Chromium from a 127.0.0.1 server
// and checks what a reader sees: no console error, no request but the page itself,
// the answer sentence, every chart, a step table that sorts on a header click and a
// chart point that shows its values on hover. A full-page screenshot goes to the
// test's directory (and to $LLMCAP_HTML_SCREENSHOT when set).
func TestHTMLInChromium(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium found on PATH (chromium, chromium-browser, google-chrome): install Debian's chromium package to run the browser test")
	}
	page, in, charts := writeFixtureHTML(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" { // the browser's own request, not the page's
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.URL.Path != "/"+FileHTML {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()

	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	var log browserLog
	ctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithListener(log.listen))
	defer cancelTab()

	url := srv.URL + "/" + FileHTML
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("#answer"))); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	answer, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#answer")))
	if err != nil {
		t.Fatal(err)
	}
	svgs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.chart").length`))
	if err != nil {
		t.Fatal(err)
	}
	hits, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.chart .hit").length`))
	if err != nil {
		t.Fatal(err)
	}
	if answer != in.a.Answer {
		t.Errorf("the answer reads %q, want %q", answer, in.a.Answer)
	}
	// A segment's step table, with its SLA and regime columns last, fits the 1280 px
	// window: a reader sees every verdict without scrolling sideways.
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](
		`Array.from(document.querySelectorAll("section[id^=segment] .scroll")).map(e => e.scrollWidth - e.clientWidth)`))
	if err != nil {
		t.Fatal(err)
	}
	for i, over := range wide {
		if over > 0 {
			t.Errorf("segment step table %d is %v px wider than the page", i+1, over)
		}
	}
	if len(wide) == 0 {
		t.Errorf("no segment step table found")
	}
	if want := drawnCharts(charts); svgs != want {
		t.Errorf("%d charts on the page, want the %d the run has", svgs, want)
	}
	if hits == 0 {
		t.Error("no chart point has a hover target")
	}
	checkSorting(ctx, t, in)
	checkHover(ctx, t, in)

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 5000 {
		t.Errorf("full-page screenshot is %v: the page should be long (every section)", b)
	}
	for _, p := range []string{filepath.Join(t.TempDir(), "report.png"), os.Getenv("LLMCAP_HTML_SCREENSHOT")} {
		if p != "" {
			if err := os.WriteFile(p, shot, 0o644); err != nil {
				t.Error(err)
			}
		}
	}

	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.console) > 0 || len(log.thrown) > 0 {
		t.Errorf("the page reported errors: console %q, exceptions %q", log.console, log.thrown)
	}
	if len(log.failed) > 0 {
		t.Errorf("failed requests: %q", log.failed)
	}
	for _, r := range log.requests {
		if r != url && r != srv.URL+"/favicon.ico" {
			t.Errorf("the page fetched %s: report.html must need nothing but itself", r)
		}
	}
}

// checkSorting clicks the first segment's "TTFT p95 ms" header twice and checks the
// rows come ascending, then descending, by that column's numbers.
func checkSorting(ctx context.Context, t *testing.T, in *input) {
	t.Helper()
	seg := in.a.Segments[0]
	table := "#segment-" + slugify(seg.Segment) + " table.sortable"
	col := slices.Index(headersOf(stepTable(in.a, seg)), "TTFT p95 ms")
	read := `Array.from(document.querySelectorAll("` + table + ` tbody tr")).map(r => parseFloat(r.cells[` + strconv.Itoa(col) + `].dataset.sort))`
	header := table + " thead th:nth-child(" + strconv.Itoa(col+1) + ")"
	click := func() []float64 {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(header))); err != nil {
			t.Fatalf("click %s: %v", header, err)
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](read))
		if err != nil {
			t.Fatalf("read the sorted column: %v", err)
		}
		return v
	}
	asc, desc := click(), click()
	state, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(header), "aria-sort"))
	if err != nil {
		t.Fatal(err)
	}
	sortState := state.Value
	if len(asc) != len(seg.Steps) || !slices.IsSorted(asc) {
		t.Errorf("after one click TTFT p95 reads %v, want %d values ascending", asc, len(seg.Steps))
	}
	rev := slices.Clone(desc)
	slices.Reverse(rev)
	if !slices.IsSorted(rev) || desc[0] != slices.Max(asc) || sortState != "descending" {
		t.Errorf("after two clicks TTFT p95 reads %v (aria-sort %q), want descending from %v", desc, sortState, slices.Max(asc))
	}
}

// checkHover moves the mouse onto the last point of the first segment's TTFT chart
// (the last step's TTFT p99: drawn last, so on top of any neighbour it overlaps) and
// checks the tip shows that point's values.
func checkHover(ctx context.Context, t *testing.T, in *input) {
	t.Helper()
	seg := in.a.Segments[0]
	sel := `svg[data-chart="ttft-` + slugify(seg.Segment) + `"] .hit:last-of-type`
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(sel))); err != nil {
		t.Fatalf("scroll to %s: %v", sel, err)
	}
	box, err := chromedp.Run(ctx, chromedp.Evaluate[struct{ X, Y float64 }](
		`(() => { const r = document.querySelector('`+sel+`').getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	attr, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), "data-tip"))
	if err != nil {
		t.Fatal(err)
	}
	want := attr.Value
	if err := chromedp.Do(ctx, chromedp.MouseEvent(cdpinput.DispatchMouseEventTypeMouseMoved, box.X, box.Y)); err != nil {
		t.Fatalf("move the mouse to %v: %v", box, err)
	}
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#tip"), chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("the tip did not show: %v", err)
	}
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("tip").hidden`))
	if err != nil {
		t.Fatal(err)
	}
	last := seg.Steps[len(seg.Steps)-1]
	if got != want || hidden || !strings.HasPrefix(got, "TTFT p99 "+auto(last.TTFTMs.P99)+" ms at concurrency "+loadText(last.Load)+" (") {
		t.Errorf("hovering the first point shows %q (hidden %v), want its values %q", got, hidden, want)
	}
}

// headersOf drops a table's rows.
func headersOf(h []string, _ [][]string) []string { return h }
