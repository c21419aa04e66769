package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// The fault matrix (issue #14's acceptance): the real llmcap binary sweeps one short
// concurrency step against a scripted faulty server (ssetest.FaultServer, raw TCP on
// 127.0.0.1) per case, then analyses it. For every case it asserts:
//   - no crash: `llmcap sweep` and `llmcap analyze` exit 0 and print no panic;
//   - every request recorded once: records.jsonl has one line per request_id, every
//     line valid UTF-8, and for each fault the server answered with, the records of
//     that fault's expected classes number exactly the requests the server answered
//     with it; the only records the server never saw are the classes in `unseen`
//     (refused connects, and requests caught by a closing connection);
//   - backoff: a fault the client should back off from was answered at most
//     `maxAnswered` times;
//   - the client's peak RSS stays below maxClientRSSKiB;
//   - the step's SLA verdict where the case states one (a healthy server passes; a
//     server that hangs half its requests after the headers fails).
//
// Each case's expected classes are in its row of faultMatrix and nowhere else; a case
// names the product behaviour it guards (guards), which every failure message repeats.

// maxClientRSSKiB bounds `llmcap sweep`'s peak resident set (VmHWM) in every case:
// 200 MiB. A healthy run of these plans peaks near 35 MiB; the bound leaves room for
// one 20 MB event per stream held about once (issue #14: "at most ~1× its size plus a
// constant") and catches a client that keeps every never-ending answer (≥ 64 MiB/s per
// stream here).
const maxClientRSSKiB = 200 << 10

const (
	classOK          = "ok" // a successful record (status ok, no error class)
	classUnfinished  = rundir.ErrUnfinished
	classTooLarge    = rundir.ErrResponseTooLarge
	faultStepSeconds = 2 // each case's measurement window, s
)

// hungClasses are the acceptable classes of a request the server never answers:
// a client timeout, or still in flight at the step's end (unfinished; never cancelled,
// which only an interruption gives).
var hungClasses = []string{rundir.ErrTimeoutFirstByte, rundir.ErrTimeoutIdle, classUnfinished}

// faultCase is one row of the fault matrix.
type faultCase struct {
	name string
	cfg  ssetest.FaultConfig
	// concurrency is the step's closed-loop concurrency (0 means 4).
	concurrency int
	// expect maps each fault the server may answer with to the record classes its
	// requests may end in (classOK: success). Faults whose sets share a class are
	// counted together.
	expect map[ssetest.Fault][]string
	// unseen are the classes of records the server never received, each with the most
	// allowed (-1: no limit but the backoff bound maxUnseen).
	unseen map[string]int
	// maxUnseen bounds all unseen records together (0: no bound beyond unseen's).
	maxUnseen int
	// cut is how many answers the server started may have been cut by its outage
	// closing their connections (recorded stream_truncated, not in their fault's
	// classes): at most one per slot.
	cut int
	// maxAnswered bounds how often the server may answer with a fault: a client
	// that backs off sends few requests into a failing server.
	maxAnswered map[ssetest.Fault]int
	// meetsSLA, when set, is the step's expected SLA verdict: a step with more than 1 %
	// failed (or never finished) requests fails; event_20MB states none (its giant
	// answers may be read, slowly, or refused).
	meetsSLA *bool
	// guards names the product behaviour of issue #14 the case checks (empty: the
	// control).
	guards string
}

// every returns a Script answering every request with f.
func every(f ssetest.Fault) func(int, time.Duration) ssetest.Fault {
	return func(int, time.Duration) ssetest.Fault { return f }
}

// alternate returns a Script answering odd requests with f and even ones healthy.
func alternate(f ssetest.Fault) func(int, time.Duration) ssetest.Fault {
	return func(n int, _ time.Duration) ssetest.Fault {
		if n%2 == 1 {
			return f
		}
		return ssetest.FaultNone
	}
}

// during returns a Script answering with f for the first d of the load, then healthy.
func during(f ssetest.Fault, d time.Duration) func(int, time.Duration) ssetest.Fault {
	return func(_ int, since time.Duration) ssetest.Fault {
		if since < d {
			return f
		}
		return ssetest.FaultNone
	}
}

// okAnd is the expectation "healthy answers succeed, answers with f end in classes".
func okAnd(f ssetest.Fault, classes ...string) map[ssetest.Fault][]string {
	return map[ssetest.Fault][]string{ssetest.FaultNone: {classOK}, f: classes}
}

var (
	slaPasses = ptr(true)
	slaFails  = ptr(false)
)

func ptr[T any](v T) *T { return &v }

// faultMatrix is the table: one row per fault of issue #14's acceptance list, plus a
// healthy control.
var faultMatrix = []faultCase{
	{
		name:     "healthy_control",
		cfg:      ssetest.FaultConfig{},
		expect:   map[ssetest.Fault][]string{ssetest.FaultNone: {classOK}},
		meetsSLA: slaPasses,
	},
	{
		name:     "reset_mid_stream",
		meetsSLA: slaFails,
		cfg:      ssetest.FaultConfig{Script: alternate(ssetest.FaultReset)},
		expect:   okAnd(ssetest.FaultReset, rundir.ErrStreamTruncated),
	},
	{
		name:     "429_retry_after",
		meetsSLA: slaFails,
		cfg:      ssetest.FaultConfig{Script: during(ssetest.FaultTooMany, 1500*time.Millisecond)},
		expect:   okAnd(ssetest.FaultTooMany, rundir.ErrHTTP429),
		// Retry-After: 1 over a 1.5 s burst of 429s: each of the 4 slots may send
		// about 2 (at 0 s and 1 s); a client that ignores it sends thousands.
		maxAnswered: map[ssetest.Fault]int{ssetest.FaultTooMany: 16},
		guards:      "honour Retry-After on 429 (issue #14: fast failures back off)",
	},
	{
		name:     "503_backoff",
		meetsSLA: slaFails,
		cfg:      ssetest.FaultConfig{Script: during(ssetest.FaultUnavailable, 1500*time.Millisecond)},
		expect:   okAnd(ssetest.FaultUnavailable, rundir.ErrHTTP5xx),
		// A bounded exponential backoff sends tens of requests per slot at most.
		maxAnswered: map[ssetest.Fault]int{ssetest.FaultUnavailable: 200},
		guards:      "back off a failing slot on 503 (issue #14: fast failures back off)",
	},
	{
		name:     "in_band_error",
		meetsSLA: slaFails,
		cfg:      ssetest.FaultConfig{Script: alternate(ssetest.FaultInBand)},
		expect:   okAnd(ssetest.FaultInBand, rundir.ErrInBand),
	},
	{
		name:     "truncated_mid_chunk",
		meetsSLA: slaFails,
		cfg:      ssetest.FaultConfig{Script: alternate(ssetest.FaultTruncate)},
		expect:   okAnd(ssetest.FaultTruncate, rundir.ErrStreamTruncated),
	},
	{
		name:     "half_hang_after_headers",
		cfg:      ssetest.FaultConfig{Script: alternate(ssetest.FaultHang)},
		expect:   okAnd(ssetest.FaultHang, hungClasses...),
		meetsSLA: slaFails,
		guards:   "requests that never finish count in the SLA (issue #14: censored latencies, unfinished in the error share)",
	},
	{
		name:     "mid_stream_hang",
		cfg:      ssetest.FaultConfig{Script: alternate(ssetest.FaultMidStreamHang)},
		expect:   okAnd(ssetest.FaultMidStreamHang, hungClasses...),
		meetsSLA: slaFails,
		guards:   "a request hung after its first token is lost to the user (issue #14: overdue unfinished requests fail in the error share)",
	},
	{
		name:     "slow_drip",
		meetsSLA: slaPasses,
		cfg:      ssetest.FaultConfig{Script: every(ssetest.FaultSlowDrip)},
		expect:   map[ssetest.Fault][]string{ssetest.FaultSlowDrip: {classOK}},
	},
	{
		name:     "invalid_utf8",
		meetsSLA: slaFails,
		cfg: ssetest.FaultConfig{Script: func(n int, _ time.Duration) ssetest.Fault {
			if n%2 == 1 {
				return ssetest.FaultInvalidUTF8Error
			}
			return ssetest.FaultInvalidUTF8
		}},
		expect: map[ssetest.Fault][]string{
			ssetest.FaultInvalidUTF8:      {classOK},
			ssetest.FaultInvalidUTF8Error: {rundir.ErrInBand},
		},
	},
	{
		name: "event_20MB",
		cfg: ssetest.FaultConfig{Script: func(n int, _ time.Duration) ssetest.Fault {
			if n%2 == 1 && n < 12 { // six giant answers, the rest healthy
				return ssetest.FaultHugeEvent
			}
			return ssetest.FaultNone
		}},
		concurrency: 2,
		// A well-formed 20 MB event is either read (ok) or refused for its size; it is
		// not a decoding error.
		expect: okAnd(ssetest.FaultHugeEvent, classOK, classTooLarge),
		guards: "a giant event is read or refused as response_too_large, not decode (issue #14: bounded memory)",
	},
	{
		name:     "garbage_bytes",
		meetsSLA: slaFails,
		cfg:      ssetest.FaultConfig{Script: alternate(ssetest.FaultGarbage)},
		expect:   okAnd(ssetest.FaultGarbage, rundir.ErrDecode),
		guards:   "garbage non-SSE bytes are classed decode (issue #14: bad input)",
	},
	{
		name:     "content_length_lie",
		meetsSLA: slaFails,
		cfg: ssetest.FaultConfig{Script: func(n int, _ time.Duration) ssetest.Fault {
			if n%3 == 1 {
				return ssetest.FaultShortLength
			}
			return ssetest.FaultNone
		}},
		expect: okAnd(ssetest.FaultShortLength, rundir.ErrHTTP4xx),
		guards: "drop the connection after a framing doubt (issue #14: short Content-Length)",
	},
	{
		name:     "http_1_0",
		meetsSLA: slaPasses,
		cfg:      ssetest.FaultConfig{Script: every(ssetest.FaultHTTP10)},
		expect:   map[ssetest.Fault][]string{ssetest.FaultHTTP10: {classOK}},
	},
	{
		name:     "listener_closed_reopened",
		meetsSLA: slaFails,
		cfg:      ssetest.FaultConfig{OutageAfter: 20, OutageFor: time.Second},
		expect:   map[ssetest.Fault][]string{ssetest.FaultNone: {classOK}},
		// Refused connects during the 1 s outage, and at most one request per slot
		// written on a connection the server was closing.
		unseen:    map[string]int{rundir.ErrConnect: -1, rundir.ErrStreamTruncated: 4},
		maxUnseen: 200,
		cut:       4,
		guards:    "back off a slot whose connects are refused (issue #14: fast failures back off)",
	},
	{
		name:        "never_ending_stream",
		meetsSLA:    slaFails,
		cfg:         ssetest.FaultConfig{Script: every(ssetest.FaultEndless)},
		concurrency: 2,
		expect: map[ssetest.Fault][]string{ssetest.FaultEndless: {
			classTooLarge, rundir.ErrTimeoutRequest, classUnfinished}},
		guards: "keep a bounded prefix of each answer (issue #14: bounded memory)",
	},
}

// TestFaultMatrix runs every row of faultMatrix (three at a time).
func TestFaultMatrix(t *testing.T) {
	bin := llmcapBin(t)
	sem := make(chan struct{}, 3)
	for _, fc := range faultMatrix {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			runFaultCase(t, bin, fc)
		})
	}
}

// faultRun is what one case's sweep left behind.
type faultRun struct {
	dir     string
	counts  map[ssetest.Fault]int
	records []rundir.Record
	peakKiB int64
}

// runFaultCase sweeps fc's server and checks the run.
func runFaultCase(t *testing.T, bin string, fc faultCase) {
	fail := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if fc.guards != "" {
			msg += " [guards: " + fc.guards + "]"
		}
		t.Error(msg)
	}
	srv, err := ssetest.NewFaultServer(fc.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	cfg := faultPlan(t, tmp, fc)
	res := runMeasured(t, bin, 90*time.Second, "sweep", "-c", cfg, "-o", dir, "--set", "target.url="+srv.URL)
	if res.code != 0 || hasCrash(res.out) {
		t.Fatalf("llmcap sweep: exit %d (want 0, no panic):\n%s", res.code, tail(res.out, 4000))
	}
	if an := runMeasured(t, bin, 60*time.Second, "analyze", dir); an.code != 0 || hasCrash(an.out) {
		t.Fatalf("llmcap analyze: exit %d (want 0, no panic):\n%s", an.code, tail(an.out, 4000))
	}
	if fc.cfg.OutageAfter > 0 && srv.Outages() != 1 {
		t.Fatalf("the listener outage never happened (%d load requests): the case tests nothing", srv.Requests())
	}
	checkValidUTF8(t, filepath.Join(dir, rundir.FileRecords))
	rd := loadRunDir(t, dir)
	run := faultRun{dir: dir, counts: srv.Counts(), records: rd.Records, peakKiB: res.peakKiB}
	t.Logf("server answered %v; records by class %v; peak RSS %d KiB", run.counts, classCounts(run.records), run.peakKiB)

	checkRecordedOnce(fail, run.records)
	checkClasses(fail, fc, run)
	for f, most := range fc.maxAnswered {
		if got := run.counts[f]; got > most {
			fail("the server answered %d requests with %s, want at most %d: the client does not back off", got, f, most)
		}
	}
	if run.peakKiB > maxClientRSSKiB {
		fail("client peak RSS %d KiB > %d KiB", run.peakKiB, maxClientRSSKiB)
	}
	if fc.meetsSLA != nil {
		checkVerdict(fail, t, rd, *fc.meetsSLA)
	}
}

// faultPlan writes the case's plan: one closed-loop step, a 2 s window, 1 s grace, no
// warm-up, no early stop, and an SLA a healthy answer (TTFT ~5 ms, E2E ~50 ms) meets.
func faultPlan(t *testing.T, dir string, fc faultCase) string {
	t.Helper()
	conc := fc.concurrency
	if conc == 0 {
		conc = 4
	}
	yaml := fmt.Sprintf(`
name: fault-%s
seed: 14
target: {url: http://127.0.0.1:9/v1, api: chat, model: fault}
segments:
  - {name: chat, weight: 1, prompt_tokens: {dist: fixed, value: 16}, output_tokens: {dist: fixed, value: 8}}
ladder:
  concurrency: [%d]
  duration: %ds
  grace: 1s
  cooldown: 0s
  mix: false
  early_stop: {enabled: false}
sla: {ttft_ms: {p95: 500}, e2e_ms: {p95: 2000}, max_error_rate: 0.01}
report: {formats: [json]}
`, fc.name, conc, faultStepSeconds)
	p := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// measured is one llmcap invocation: exit code, combined output and peak RSS.
type measured struct {
	code    int
	out     string
	peakKiB int64
}

// runMeasured runs bin with args and samples its VmHWM every 10 ms. (rusage's Maxrss
// cannot be used: Go starts children with CLONE_VM|CLONE_VFORK, so the child's
// ru_maxrss includes this test process's own RSS at the exec; VmHWM is the new
// program's own high-water mark, missing at most the growth of its last 10 ms.)
func runMeasured(t *testing.T, bin string, timeout time.Duration, args ...string) measured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start llmcap: %v", err)
	}
	var peak int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib := vmHWMKiB(cmd.Process.Pid); kib > peak {
				peak = kib
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	wg.Wait()
	code := 0
	if err != nil {
		code = -1
		if cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
		if ctx.Err() != nil {
			t.Errorf("llmcap %s: killed after %s", strings.Join(args, " "), timeout)
		}
	}
	return measured{code: code, out: out.String(), peakKiB: peak}
}

// vmHWMKiB reads the process's peak resident set from /proc (0 when unavailable).
func vmHWMKiB(pid int) int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib
		}
	}
	return 0
}

// hasCrash reports a Go panic or fatal error in a command's output.
func hasCrash(out string) bool {
	return strings.Contains(out, "panic:") || strings.Contains(out, "fatal error:") ||
		strings.Contains(out, "goroutine 1 [")
}

// checkValidUTF8 fails on a records.jsonl line that is not valid UTF-8.
func checkValidUTF8(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if !utf8.Valid(sc.Bytes()) {
			t.Errorf("%s line %d is not valid UTF-8: %q", path, n, tail(sc.Text(), 300))
			return
		}
	}
}

// classOf is a record's class: classOK for a success, else its error class.
func classOf(r *rundir.Record) string {
	if r.OK() {
		return classOK
	}
	return r.ErrorClass
}

// classCounts counts records by class.
func classCounts(recs []rundir.Record) map[string]int {
	out := map[string]int{}
	for i := range recs {
		out[classOf(&recs[i])]++
	}
	return out
}

// checkRecordedOnce fails on a request_id recorded more than once or a record without
// an error class that is not ok.
func checkRecordedOnce(fail func(string, ...any), recs []rundir.Record) {
	seen := map[string]int{}
	for i := range recs {
		r := &recs[i]
		seen[r.RequestID]++
		if !r.OK() && r.ErrorClass == "" {
			fail("record %s has status %q and no error class", r.RequestID, r.Status)
		}
	}
	for id, n := range seen {
		if n > 1 {
			fail("request %s recorded %d times", id, n)
		}
	}
	if len(recs) == 0 {
		fail("no records at all")
	}
}

// checkClasses matches the server's answers with the records: the records of a
// fault's expected classes number the requests answered with it (faults whose class
// sets share a class are matched together, as one group); the other records are unseen
// ones within fc.unseen's limits.
func checkClasses(fail func(string, ...any), fc faultCase, run faultRun) {
	byClass := classCounts(run.records)
	claimed := map[string]bool{}
	for _, g := range classGroups(fc.expect) {
		want, got := 0, 0
		for _, f := range g.faults {
			want += run.counts[f]
		}
		for _, c := range g.classes {
			got += byClass[c]
			claimed[c] = true
		}
		if short := want - got; short > 0 && short <= fc.cut && byClass[rundir.ErrStreamTruncated] >= short {
			byClass[rundir.ErrStreamTruncated] -= short // answers the outage cut mid-stream
		} else if got != want {
			fail("the server answered %d requests with %v; %d records have their classes %v (records by class %v)",
				want, g.faults, got, g.classes, byClass)
		}
	}
	for f, n := range run.counts {
		if _, ok := fc.expect[f]; !ok {
			fail("the server answered %d requests with %s, which the case does not expect", n, f)
		}
	}
	unseen := 0
	for c, n := range byClass {
		if claimed[c] {
			continue
		}
		most, ok := fc.unseen[c]
		if !ok {
			fail("%d records of class %s match no answer of the server (records by class %v)", n, c, byClass)
			continue
		}
		unseen += n
		if most >= 0 && n > most {
			fail("%d records of class %s the server never saw, want at most %d", n, c, most)
		}
	}
	if fc.maxUnseen > 0 && unseen > fc.maxUnseen {
		fail("%d records of requests the server never saw (refused connects), want at most %d: the client does not back off",
			unseen, fc.maxUnseen)
	}
}

// classGroup is a set of faults whose requests end in a set of classes.
type classGroup struct {
	faults  []ssetest.Fault
	classes []string
}

// classGroups merges the faults of expect whose class sets share a class, in a
// deterministic order (by fault name).
func classGroups(expect map[ssetest.Fault][]string) []classGroup {
	var groups []classGroup
	names := make([]string, 0, len(expect))
	for f := range expect {
		names = append(names, string(f))
	}
	sort.Strings(names)
	for _, name := range names {
		f := ssetest.Fault(name)
		merged := classGroup{faults: []ssetest.Fault{f}, classes: append([]string(nil), expect[f]...)}
		var rest []classGroup
		for _, g := range groups {
			if overlaps(g.classes, merged.classes) {
				merged.faults = append(g.faults, merged.faults...)
				merged.classes = union(g.classes, merged.classes)
			} else {
				rest = append(rest, g)
			}
		}
		groups = append(rest, merged)
	}
	return groups
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// checkVerdict checks the single step's SLA verdict in analysis.json.
func checkVerdict(fail func(string, ...any), t *testing.T, rd *runDir, want bool) {
	t.Helper()
	if rd.Analysis == nil || len(rd.Analysis.Segments) == 0 || len(rd.Analysis.Segments[0].Steps) == 0 {
		fail("analysis.json has no step")
		return
	}
	st := rd.Analysis.Segments[0].Steps[0]
	if st.MeetsSLA != want {
		fail("step meets_sla = %v, want %v (requests %d, errors %d %v, ttft p95 %.1f ms, e2e p95 %.1f ms, violations %v)",
			st.MeetsSLA, want, st.Requests, st.Errors, st.ErrorClasses, st.TTFTMs.P95, st.E2EMs.P95, st.SLAViolations)
	}
}
