package sweep

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmcap/llmcap/capsearch"
	"github.com/llmcap/llmcap/launch"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// Options configures a sweep.
type Options struct {
	// OutDir is the run directory (created if absent).
	OutDir string
	// Resume continues an interrupted run in OutDir at its first unfinished step. The
	// steps come from OutDir's run.json; a nil plan means the plan stored there (whose
	// API key is not stored: pass the re-loaded plan for targets that need one). A plan
	// given for a resume must equal the stored one but for the fields ResumeConflicts
	// allows to change (target.url, the API key, metrics endpoints, timeouts).
	Resume bool
	// ForceResume resumes with a given plan even when ResumeConflicts finds fields that
	// differ from the run's (the run then mixes measurements of both plans).
	ForceResume bool
	// Progress receives the live progress display; nil or a non-terminal is quiet.
	Progress io.Writer
	// SaveICL adds icl_ms arrays to records.
	SaveICL bool
	// Version is the tool version written to run.json.
	Version string
	// Commit is the tool's VCS commit written to run.json (zero: unknown).
	Commit rundir.ToolCommit
	// Logger for diagnostics (nil = slog.Default()).
	Logger *slog.Logger
	// Hook, when set, is called around each step's measurement window (profiles).
	Hook StepHook
	// Launcher, when set, starts the target server instead of the plain plan.Target.Launch
	// runner (profiles' nsys launch mode).
	Launcher Launcher
	// Probe judges and models a segment's steps so far for a ladder.search plan
	// (analysis.Probe; the sweep does not import the analysis). Required for such plans.
	Probe capsearch.Prober
	// Shard, when set, makes the sweep one shard of a sharded sweep (docs/distributed.md);
	// a resume of a shard's run directory needs none (run.json has it).
	Shard *Shard
}

// StepHook is called around a step's measurement window.
type StepHook interface {
	// BeforeMeasure runs as the step's measurement window opens.
	BeforeMeasure(ctx context.Context, step plan.Step, runDir string) error
	// AfterMeasure runs as the window closes; it returns the directory (relative to the
	// run directory) of what it captured, if anything.
	AfterMeasure(ctx context.Context, step plan.Step, runDir string) (captured string, err error)
}

// Launcher starts the target server; stop ends it.
type Launcher interface {
	Start(ctx context.Context, p *plan.Plan, runDir string) (stop func() error, err error)
}

// ErrInterrupted is returned when the sweep stopped on a cancelled context; every
// completed record is on disk and the run can be resumed.
var ErrInterrupted = errors.New("sweep interrupted")

// runner is one sweep in progress.
type runner struct {
	plan     *plan.Plan
	opts     Options
	dir      string
	runID    string
	log      *slog.Logger
	client   requestDoer
	out      *rundir.Writer
	meta     *rundir.RunMeta
	progress *progress
	scrape   *scraper
	segs     []*segmentGen
	baseURL  string
	// red masks the plan's secrets in everything the sweep writes and logs.
	red *redact.Redactor
	// started is when this invocation's sweep began (progress lines' elapsed).
	started time.Time
	// preflightFailed: the target failed its preflight; no load was sent.
	preflightFailed bool
	// idTag begins every request id of this invocation (NewIDTag).
	idTag string
	// shard is the sweep's shard (nil: unsharded), timeline its common timeline and
	// rendezvous shard 0's rendezvous endpoint (shard_run.go).
	shard      *Shard
	timeline   *timeline
	rendezvous *rendezvousServer
}

// Run drives every step of p against its target, writing the run directory
// (run.json, records.jsonl, steps.jsonl, server-metrics.jsonl; drift.jsonl with a
// drift section: its probe runs before the ladder and, with drift.after, after it). A cancelled ctx ends the
// sweep with ErrInterrupted after recording what completed (in-flight requests are
// recorded as cancelled; run.json says interrupted). Other errors (bad plan, target not
// reachable, disk) mark run.json failed when it exists. Every error but a failed
// preflight (*PreflightError, which names the target) and ErrInterrupted starts with
// "sweep". The run directory is locked (FileLock) while Run drives it: a second Run on
// it fails at once, naming the holder.
func Run(ctx context.Context, p *plan.Plan, opts Options) error {
	if opts.OutDir == "" {
		return errors.New("sweep: no run directory (Options.OutDir)")
	}

	rn := &runner{opts: opts, dir: opts.OutDir, log: opts.Logger, started: time.Now(), idTag: NewIDTag()}
	if rn.log == nil {
		rn.log = slog.Default()
	}
	created := firstMissingDir(rn.dir) // "" when the directory exists (or a resume)
	lock, err := rundir.Acquire(rn.dir, !opts.Resume)
	if err != nil {
		return err
	}
	done, err := rn.prepare(p)
	if err != nil {
		lock.Release()
		return err
	}
	err = rn.drive(ctx, done)
	if rn.rendezvous != nil {
		rn.rendezvous.stop()
	}
	err = rn.finish(err)
	rn.out.Close()
	lock.Release()
	if rn.preflightFailed && !opts.Resume {
		removeFailedRun(rn.dir, created)
	}
	return err
}

// prepare opens the run directory (fresh or resumed) and returns the finished steps.
func (rn *runner) prepare(p *plan.Plan) (map[int]rundir.StepSummary, error) {
	done := map[int]rundir.StepSummary{}
	if rn.opts.Resume {
		rs, err := rundir.PrepareResume(rn.dir)
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		var forced []string
		if p == nil {
			p = &rs.Meta.Plan
		} else if c := rundir.ResumeConflicts(&rs.Meta.Plan, p); len(c) > 0 && !rn.opts.ForceResume {
			return nil, fmt.Errorf("sweep: resume %s: %w", rn.dir, &rundir.ResumeRefusal{Reason: rundir.ResumeFieldsDiffer, Conflicts: c})
		} else {
			forced = c
		}
		rn.meta, done, rn.runID = rs.Meta, rs.Done, rs.Meta.RunID
		if len(forced) > 0 {
			rn.meta.Warnings = append(rn.meta.Warnings, mixedPlansWarning(forced, rs.Done, rs.Meta.Steps))
		}
	} else {
		if p == nil {
			return nil, errors.New("sweep: nil plan")
		}
		if _, err := os.Stat(filepath.Join(rn.dir, rundir.FileRun)); err == nil {
			return nil, fmt.Errorf("sweep: %s already holds a run (resume it, or choose another directory)", rn.dir)
		}
		rn.runID = newRunID(p.Name)
		host, _ := os.Hostname()
		rn.meta = &rundir.RunMeta{RunID: rn.runID, ToolVersion: rn.opts.Version, ToolCommit: rn.opts.Commit, Host: host,
			StartedAt: time.Now().UTC(), Plan: *p.Redacted(), RedactedFields: p.MaskedFields(), Steps: p.Steps()}
		if p.Ladder.Search != nil {
			rn.meta.Steps = []plan.Step{} // the searches choose them (runSearches)
		}
	}
	rn.plan = p
	if err := rn.setupShard(p); err != nil {
		return nil, err
	}
	rn.red = p.Redactor()
	rn.log = slog.New(redact.NewHandler(rn.log.Handler(), rn.red))
	rn.meta.State = rundir.StateRunning
	rn.meta.FinishedAt = nil
	for i := range p.Segments {
		g, err := newSegmentGen(p, i, "")
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		rn.segs = append(rn.segs, g)
	}
	bound := stepsBound(p, rn.meta.Steps)
	if err := ensureFDs(fdsNeeded(bound, p.Ladder, p.Target.IsSimulator()), fdLever(bound, p.Ladder)); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	var err error
	if rn.out, err = rundir.OpenWriter(rn.dir); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	rn.out.SetRedactor(rn.red)
	return done, nil
}

// appendNew appends the warnings of add not already in list (rundir.Warning.Same: a
// resumed run re-raising a warning keeps one).
func appendNew(list []rundir.Warning, add ...rundir.Warning) []rundir.Warning {
	for _, a := range add {
		if !slices.ContainsFunc(list, a.Same) {
			list = append(list, a)
		}
	}
	return list
}

func newRunID(name string) string {
	var b [3]byte
	rand.Read(b[:])
	id := time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
	if name != "" {
		id = strings.Map(func(r rune) rune {
			if r == '/' || r == ' ' || r == '\\' {
				return '-'
			}
			return r
		}, name) + "-" + id
	}
	return id
}

// drive starts the target, runs the drift probe's first phase (plan.Drift), scraping
// and the display, the unfinished steps, and the probe's phase after the ladder.
func (rn *runner) drive(ctx context.Context, done map[int]rundir.StepSummary) error {
	if rn.plan.Ladder.Search != nil && rn.opts.Probe == nil {
		return errors.New("sweep: a ladder.search plan needs Options.Probe (analysis.Probe) to judge its steps")
	}
	stop, err := rn.startTarget(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err := stop(); err != nil {
			rn.log.Warn("stopping the target failed", "err", err)
		}
	}()
	if rn.plan.Target.IsSimulator() {
		rn.meta.Models = fetchModels(ctx, rn.baseURL)
	} else {
		models, warns, err := preflight(ctx, rn.plan.Target, rn.baseURL, UserAgent(rn.opts.Version), rn.log)
		if err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			rn.preflightFailed = true
			return rn.redactPreflight(err)
		}
		rn.meta.Models = models
		rn.meta.Warnings = appendNew(rn.meta.Warnings, warns...)
	}
	if err := rn.syncShard(ctx); err != nil {
		return err
	}
	if err := rn.out.WriteMeta(rn.meta); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if rn.client, err = rn.newLoadClient(); err != nil {
		return err
	}
	if err := rn.runDrift(ctx, rundir.DriftBefore); err != nil { // outside every step (drift.go)
		return err
	}
	if err := rn.runLadder(ctx, done); err != nil {
		return err
	}
	return rn.runDrift(ctx, rundir.DriftAfter)
}

// runLadder scrapes the server's metrics and shows the progress while it runs the
// unfinished steps, or the capacity searches of a ladder.search plan.
func (rn *runner) runLadder(ctx context.Context, done map[int]rundir.StepSummary) error {
	rn.scrape = startScraper(rn.metricsURLs(), rn.plan.Target.MetricsInterval, rn.out, rn.log)
	defer rn.scrape.stop()
	if rn.plan.Ladder.Search != nil {
		n, _ := rn.plan.SearchEstimate()
		rn.progress = newProgress(rn.opts.Progress, n)
		defer rn.progress.close()
		return rn.runSearches(ctx, done)
	}
	rn.progress = newProgress(rn.opts.Progress, len(rn.meta.Steps))
	defer rn.progress.close()
	return rn.runSteps(ctx, done)
}

// redactPreflight masks the plan's secrets in a failed preflight's error (its message
// may hold the target URL's password or a key the server echoed back).
func (rn *runner) redactPreflight(err error) error {
	if pe := (*PreflightError)(nil); errors.As(err, &pe) {
		pe.URL, pe.Msg = rn.red.String(pe.URL), rn.red.String(pe.Msg)
		return err
	}
	return rn.red.Error(err)
}

// stepsBound is steps, or for a search plan a step at the search's largest load per
// opener (what the file-descriptor limit must allow).
func stepsBound(p *plan.Plan, steps []plan.Step) []plan.Step {
	if p.Ladder.Search == nil {
		return steps
	}
	var out []plan.Step
	for _, o := range p.Steps() {
		if o.Schedule == plan.ScheduleTrace {
			out = append(out, o)
			continue
		}
		out = append(out, p.StepAt(o.Index, o.Segment, p.Ladder.Search.Max))
	}
	return out
}

// startTarget starts the simulator, a Launcher or target.launch; it sets rn.baseURL.
func (rn *runner) startTarget(ctx context.Context) (stop func() error, err error) {
	t := rn.plan.Target
	rn.baseURL = t.URL
	noop := func() error { return nil }
	switch {
	case t.IsSimulator():
		srv, err := launch.Simulator(ctx, t.Simulator)
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		rn.baseURL = srv.URL
		rn.meta.Target = rundir.TargetInfo{URL: srv.URL, Simulator: true, Settings: srv.Settings}
		return srv.Stop, nil
	case rn.opts.Launcher != nil:
		stop, err = rn.opts.Launcher.Start(ctx, rn.plan, rn.dir)
	case t.Launch != nil:
		stop, err = launch.Command(ctx, rn.plan, rn.dir)
	default:
		stop = noop
	}
	if err != nil {
		return nil, rn.red.Error(fmt.Errorf("sweep: start target: %w", err))
	}
	rn.meta.Target = rundir.TargetInfo{URL: rn.meta.Plan.Target.URL}
	return stop, nil
}

// metricsURLs are the configured endpoints plus the simulator's own /metrics.
func (rn *runner) metricsURLs() []string {
	urls := append([]string(nil), rn.plan.Target.MetricsURLs...)
	if rn.plan.Target.IsSimulator() {
		urls = append(urls, strings.TrimSuffix(strings.TrimRight(rn.baseURL, "/"), "/v1")+"/metrics")
	}
	return urls
}

// fetchModels returns the decoded body of GET {base}/models, or nil.
func fetchModels(ctx context.Context, base string) any {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, launch.ModelsURL(base), nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var v any
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v) != nil {
		return nil
	}
	return v
}

// finish writes run.json's final state and maps err to Run's result.
func (rn *runner) finish(err error) error {
	now := time.Now().UTC()
	switch {
	case err == nil:
		rn.meta.State = rundir.StateComplete
		rn.meta.FinishedAt = &now
	case errors.Is(err, ErrInterrupted):
		rn.meta.State = rundir.StateInterrupted
	default:
		rn.meta.State = rundir.StateFailed
		rn.meta.Error = rn.red.String(err.Error())
	}
	rn.noteOpenAfterDone()
	if werr := rn.out.WriteMeta(rn.meta); werr != nil && err == nil {
		return fmt.Errorf("sweep: %w", werr)
	}
	return rn.red.Error(err)
}

// openAfterDoneWarning is the log message and the start of run.json's warning about
// responses left open after [DONE].
const openAfterDoneWarning = "server keeps streams open after [DONE]"

// noteOpenAfterDone adds one run.json warning (rundir.WarnHeldOpenAfterDone) when the
// server left responses open after [DONE], replacing the one of an earlier invocation of
// a resumed run.
func (rn *runner) noteOpenAfterDone() {
	c, ok := rn.client.(*Client)
	if !ok || c == nil {
		return
	}
	n := c.OpenAfterDone()
	if n == 0 {
		return
	}
	kept := slices.DeleteFunc(rn.meta.Warnings, func(w rundir.Warning) bool { return w.Kind == rundir.WarnHeldOpenAfterDone })
	rn.meta.Warnings = append(kept, rundir.Warning{Kind: rundir.WarnHeldOpenAfterDone, Step: rundir.RunWide,
		Message: fmt.Sprintf("%s: %d responses were still open %v after it "+
			"(their connections were closed, not reused; the measurements are unaffected)", openAfterDoneWarning, n, drainAfterDone),
		Data: &rundir.WarningData{Count: int(n)}})
	rn.log.Warn(openAfterDoneWarning, "responses", n)
}

// mixedPlansWarning is the run.json warning of a resume forced past the plan conflicts c
// (--force): the steps already done ran under the stored plan (run.json's), the rest
// under the new one, so the run mixes two deployments or workloads. Data.Steps lists
// the steps done before, as "segment c=N" labels.
func mixedPlansWarning(c []string, done map[int]rundir.StepSummary, steps []plan.Step) rundir.Warning {
	var before []string
	for _, st := range steps {
		if _, ok := done[st.Index]; ok {
			before = append(before, st.Segment+" "+stepLoadLabel(st))
		}
	}
	return rundir.Warning{Kind: rundir.WarnMixedPlans, Step: rundir.RunWide,
		Message: fmt.Sprintf("resumed with --force under a plan that differs from run.json's (%s): the %d step(s) "+
			"done before ran under run.json's plan, the rest under the new one, so this run mixes two plans",
			strings.Join(c, "; "), len(before)),
		Data: &rundir.WarningData{Count: len(before), Steps: before, Error: strings.Join(c, "; ")}}
}
