package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// writeFixtureHTML writes report.html for the synthetic run (with records and server
// metrics, so every kind of chart is drawn) and returns its text, the input and the
// charts the run has.
func writeFixtureHTML(t *testing.T, mutate func(*input)) (string, *input, []Chart) {
	t.Helper()
	lowDPI(t)
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 20)
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(in)
	}
	charts := buildCharts(in)
	if err := writeHTML(filepath.Join(dir, FileHTML), in, charts); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileHTML))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), in, charts
}

// drawnCharts counts the charts that rendered.
func drawnCharts(charts []Chart) int {
	n := 0
	for _, c := range charts {
		if c.Err == nil && len(c.SVG) > 0 {
			n++
		}
	}
	return n
}

func TestHTMLIsSelfContainedWithEverySection(t *testing.T) {
	page, in, charts := writeFixtureHTML(t, nil)
	// No fetch of anything: no remote or local src/href, no external style sheet or
	// script, no CSS import or url(); in-page anchors only.
	for _, re := range []string{`(?i)\b(src|href|xlink:href)\s*=\s*"(https?:)?//`, `(?i)\bsrc\s*=`, `(?i)<link\b`,
		`(?i)@import`, `(?i)url\(`, `(?i)\bhref\s*=\s*"[^#"]`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("report.html fetches something: %q matches %s", m, re)
		}
	}
	heads := []string{headSummary, headWorkload, headModel, headCapacity, headMethodology, headServer, headAppendix}
	for _, seg := range allSegments(in.a) {
		heads = append(heads, segmentHeading(seg.Segment))
	}
	for _, h := range heads {
		if !strings.Contains(page, "<h2>"+h+"</h2>") {
			t.Errorf("report.html lacks the section heading %q", h)
		}
	}
	if got, want := strings.Count(page, `<svg class="chart"`), drawnCharts(charts); got != want || want < 4*5 {
		t.Errorf("report.html has %d inline charts, want the %d the run has", got, want)
	}
	if !strings.Contains(page, `<p class="answer" id="answer">`+in.a.Answer+"</p>") {
		t.Errorf("report.html lacks the answer sentence %q", in.a.Answer)
	}
	for _, kv := range keyNumbers(in.a) {
		if !strings.Contains(page, "<th scope=\"row\">"+kv.Key+"</th><td>"+kv.Value+"</td>") {
			t.Errorf("key number %q = %q missing", kv.Key, kv.Value)
		}
	}
	if n := strings.Count(page, `<table class="sortable">`); n < len(allSegments(in.a))+2 {
		t.Errorf("%d sortable tables, want one per segment plus the capacity and appendix tables", n)
	}
}

func TestHTMLEscapesPlanText(t *testing.T) {
	const evil = `<script>alert("x")</script>`
	page, _, _ := writeFixtureHTML(t, func(in *input) {
		in.a.Plan.Report.Title = "T " + evil
		in.a.Plan.Report.Notes = "N " + evil
		in.a.Answer = "A " + evil
	})
	if strings.Count(page, "<script>") != 1 {
		t.Errorf("plan text reached the page as markup: %d <script> elements, want only the page's own", strings.Count(page, "<script>"))
	}
	for _, want := range []string{"T &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "N &lt;script&gt;", "A &lt;script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks the escaped text %q", want)
		}
	}
}

func TestHTMLHoverTargetsSitOnTheSteps(t *testing.T) {
	page, in, _ := writeFixtureHTML(t, nil)
	seg := in.a.Segments[0]
	// The TTFT chart of the first segment: p50, p95, p99 per step, each at its step's
	// load; the load rises left to right and a larger TTFT sits higher (smaller y).
	start := strings.Index(page, `data-chart="ttft-`+slugify(seg.Segment)+`"`)
	if start < 0 {
		t.Fatal("no TTFT chart of the first segment")
	}
	chart := page[start : start+strings.Index(page[start:], "</svg>")]
	hit := regexp.MustCompile(`<circle class="hit" cx="([0-9.]+)" cy="([0-9.]+)" r="\d+" data-tip="([^"]*)">`)
	ms := hit.FindAllStringSubmatch(chart, -1)
	if len(ms) != 3*len(seg.Steps) {
		t.Fatalf("%d hover targets, want 3 per step (%d steps)", len(ms), len(seg.Steps))
	}
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	for i := 0; i+3 < len(ms); i += 3 {
		if f(ms[i+3][1]) <= f(ms[i][1]) {
			t.Errorf("step %d's targets are not right of step %d's: x %s then %s", i/3+1, i/3, ms[i][1], ms[i+3][1])
		}
	}
	for i := 0; i < len(ms); i += 3 {
		p50, p95, p99 := f(ms[i][2]), f(ms[i+1][2]), f(ms[i+2][2])
		if !(p50 >= p95 && p95 >= p99) || p50 <= 0 || p99 >= float64(ChartHeight.Points()) {
			t.Errorf("step %d: y of p50/p95/p99 = %v/%v/%v, want p50 lowest on the page, all inside the chart", i/3, p50, p95, p99)
		}
	}
	s0 := seg.Steps[0]
	want := "TTFT p50 " + auto(s0.TTFTMs.P50) + " ms at concurrency " + loadText(s0.Load) + " ("
	if !strings.HasPrefix(ms[0][3], want) {
		t.Errorf("first target's text %q, want it to start %q", ms[0][3], want)
	}
}

func TestHTMLSortKeys(t *testing.T) {
	for in, want := range map[string]string{
		"1,234": "1234", "12.5%": "12.5", "≥ 16 users": "16", "$2.50": "2.5", "412 ms": "412", "≤ 12.5 s": "12500",
		"-0.33": "-0.33", "–": "", "short-chat": "", "lognormal 200 ± 80": "", "": "",
	} {
		if got := sortKey(in); got != want {
			t.Errorf("sortKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// The HTML's sections come in the PDF's order: summary, evidence, workload, capacity,
// the segments, the model, methodology, the appendix.
func TestHTMLSectionsInThePDFsOrder(t *testing.T) {
	page, _, _ := writeFixtureHTML(t, nil)
	last := -1
	for _, id := range []string{`id="summary"`, `id="evidence"`, `id="workload"`, `id="capacity"`, `class="segment"`, `id="model"`, `id="methodology"`, `id="appendix"`} {
		i := strings.Index(page, "<section "+id)
		if id == `class="segment"` {
			i = strings.Index(page, `class="segment">`)
		}
		if i < 0 || i < last {
			t.Errorf("section %s at %d, after %d: want the PDF's order", id, i, last)
		}
		last = i
	}
}
