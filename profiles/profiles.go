// Package profiles wraps NVIDIA Nsight Systems captures (launch and session modes),
// parses `nsys stats` CSV tables, classifies GPU kernels and writes them as pprof
// profiles. It imports plan, rundir (the run directory) and launch (the server launcher);
// it satisfies the sweep's hook interfaces structurally, without importing sweep.
//
// Which steps are captured (plan.Capture):
//   - Steps: a CaptureStep matches steps of its segment ("mix" for mix steps) at its
//     concurrency or rate; one with neither matches every step of the segment.
//   - Knee: each step of a segment's ladder is captured until one fails the quick SLA
//     check (QuickSLACheck over records.jsonl, read as each step's window opens, so the
//     verdict of step k is known when step k+1 starts). The captures are therefore the
//     passing steps plus the first failing one: the knee. Each capture's capture.json
//     names its step; the analysis picks the one at its capacity point.
//
// Each captured step gets runDir/profiles/step-NNN-<segment>-<load>/ holding
// capture.nsys-rep, capture.sqlite (its SQLite export, re-made by every nsys stats run),
// the raw stats_<report>.csv tables, kernels.json, kernels.pb.gz,
// osrt.pb.gz (and cuda_api.pb.gz) and capture.json. Capture failures never fail the
// sweep: the hooks return errors the sweep records as the step's capture_error.
package profiles

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// Capture modes (plan.Capture.Mode).
const (
	ModeLaunch  = "launch"
	ModeSession = "session"
)

// DefaultTrace is nsys's --trace set when capture.trace is empty.
const DefaultTrace = "cuda,nvtx,osrt,cublas"

// Capturer runs Nsight Systems captures around chosen steps. It satisfies
// sweep.StepHook (BeforeMeasure/AfterMeasure) and sweep.Launcher (Start, for launch mode).
// Wire it as sweep.Options{Hook: c} and, in launch mode, Launcher: c.
type Capturer struct {
	p   *plan.Plan
	cfg plan.Capture
	log *slog.Logger

	nsys    *Nsys
	nsysErr error // why captures cannot run (nsys missing…); reported per captured step

	mu       sync.Mutex
	session  string          // nsys session name (launch: ours; session: capture.session_name)
	active   *capture        // the capture of the step in its window, if any
	kneeDone map[string]bool // segments whose knee was passed
	launch   *launched       // launch mode state
	broken   error           // a stop that failed: the session is unusable for later steps
}

// NewCapturer returns a Capturer for p.Capture. It fails only on settings it cannot use
// (an unknown mode, launch mode without target.launch). When nsys cannot be found the
// Capturer is still returned, with Err describing it (naming capture.nsys_path): the sweep
// runs, launch mode starts the server without nsys, and each chosen step records the
// error as its capture_error.
func NewCapturer(p *plan.Plan, log *slog.Logger) (*Capturer, error) {
	if p == nil {
		return nil, errors.New("profiles: nil plan")
	}
	if log == nil {
		log = slog.Default()
	}
	c := &Capturer{p: p, cfg: p.Capture, log: log, kneeDone: map[string]bool{}}
	if c.cfg.Trace == "" {
		c.cfg.Trace = DefaultTrace
	}
	if c.cfg.Mode == "" {
		c.cfg.Mode = ModeSession
		if p.Target.Launch != nil {
			c.cfg.Mode = ModeLaunch
		}
	}
	switch c.cfg.Mode {
	case ModeLaunch:
		if p.Target.Launch == nil || len(p.Target.Launch.Command) == 0 {
			return nil, errors.New("capture.mode launch: target.launch.command is empty")
		}
	case ModeSession:
		c.session = c.cfg.SessionName
	default:
		return nil, fmt.Errorf("capture.mode %q: must be %q or %q", c.cfg.Mode, ModeLaunch, ModeSession)
	}
	path, err := FindNsys(c.cfg.NsysPath)
	if err != nil {
		c.nsysErr = err
		if c.cfg.Enabled {
			log.Warn("capture: nsys unavailable; captures will be reported as failed", "err", err)
		}
		return c, nil
	}
	c.nsys = NewNsys(path)
	if !c.nsys.importerBesideNsys() && c.cfg.Enabled {
		log.Warn("capture: nsys cannot find its QdstrmImporter beside itself; `nsys stop` may hang "+
			"(scripts/install-nsys.sh links it)", "nsys", path)
	}
	return c, nil
}

// Err reports why captures cannot run (nil when nsys was found).
func (c *Capturer) Err() error { return c.nsysErr }

// NsysPath returns the nsys binary in use ("" when none was found).
func (c *Capturer) NsysPath() string {
	if c.nsys == nil {
		return ""
	}
	return c.nsys.Path
}

// Selected reports whether step is one to capture: it matches capture.steps, or
// capture.knee is set and no earlier step of its segment failed the quick SLA check in
// runDir's records.jsonl.
func (c *Capturer) Selected(step plan.Step, runDir string) bool {
	if !c.cfg.Enabled {
		return false
	}
	for _, cs := range c.cfg.Steps {
		if matchStep(cs, step) {
			return true
		}
	}
	return c.cfg.Knee && c.beforeKnee(step, runDir)
}

// matchStep reports whether cs names step (plan.CaptureStep.Matches: `llmcap plan`
// and plan validation use the same rule).
func matchStep(cs plan.CaptureStep, step plan.Step) bool { return cs.Matches(step) }

// beforeKnee reports whether every earlier step of step's segment passed the quick
// SLA check; once one failed, the segment's knee is done.
func (c *Capturer) beforeKnee(step plan.Step, runDir string) bool {
	c.mu.Lock()
	done := c.kneeDone[step.Segment]
	c.mu.Unlock()
	if done {
		return false
	}
	bySteps, err := readStepRecords(runDir, step.Segment)
	if err != nil {
		c.log.Warn("capture knee: cannot read records", "err", err)
		return true
	}
	for idx, recs := range bySteps {
		if idx >= step.Index {
			continue
		}
		if v := QuickSLACheck(recs, c.p.SLA); !v.Pass {
			c.log.Info("capture knee: passed", "segment", step.Segment, "failed_step", idx, "reason", v.String())
			c.mu.Lock()
			c.kneeDone[step.Segment] = true
			c.mu.Unlock()
			return false
		}
	}
	return true
}

// StepDir returns the capture directory of step relative to the run directory:
// profiles/step-NNN-<segment>-c<concurrency>, -u<users> or -r<rate>.
func StepDir(step plan.Step) string {
	seg := unsafeChars.ReplaceAllString(step.Segment, "_")
	load := fmt.Sprintf("c%d", step.Concurrency)
	switch step.Schedule {
	case plan.ScheduleConcurrency:
	case plan.ScheduleUsers:
		load = fmt.Sprintf("u%d", step.Users)
	default:
		load = "r" + strings.ReplaceAll(fmt.Sprintf("%g", step.Rate), ".", "p")
	}
	return filepath.Join("profiles", fmt.Sprintf("step-%03d-%s-%s", step.Index, seg, load))
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// phaseOf is the root frame of a step's pprof stacks, e.g. "chat c=32", "chat u=200"
// or "chat r=2.5/s".
func phaseOf(step plan.Step) string {
	switch step.Schedule {
	case plan.ScheduleConcurrency:
		return fmt.Sprintf("%s c=%d", step.Segment, step.Concurrency)
	case plan.ScheduleUsers:
		return fmt.Sprintf("%s u=%d", step.Segment, step.Users)
	}
	return fmt.Sprintf("%s r=%g/s", step.Segment, step.Rate)
}

// BeforeMeasure starts a capture when step is one to capture: `nsys start
// --session=NAME -o <dir>/capture` (after capture.delay, in the background, when set;
// stopped after capture.duration when set). It returns an error when the capture cannot
// start (nsys missing, no session name, nsys start failing).
func (c *Capturer) BeforeMeasure(ctx context.Context, step plan.Step, runDir string) error {
	if !c.Selected(step, runDir) {
		return nil
	}
	if c.nsysErr != nil {
		return fmt.Errorf("capture: %w", c.nsysErr)
	}
	c.mu.Lock()
	session, broken := c.session, c.broken
	c.mu.Unlock()
	if broken != nil {
		return fmt.Errorf("capture skipped: the nsys session failed on an earlier step: %w", broken)
	}
	if session == "" {
		if c.cfg.Mode == ModeLaunch {
			return errors.New("capture: launch mode, but the server was not started by the capturer (set sweep.Options.Launcher)")
		}
		return errors.New("capture.session_name is empty: session mode needs the name the server was started with (nsys launch --session-new=NAME)")
	}
	rel := StepDir(step)
	dir := filepath.Join(runDir, rel)
	// A resumed sweep re-measures a step an interrupted run may have captured already:
	// start from an empty directory so none of its files (the .sqlite nsys exported,
	// stats tables, profiles) mix into the new capture.
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("capture: clear %s: %w", rel, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	cp := newCapture(c, step, session, dir, rel)
	if c.cfg.Delay <= 0 {
		if err := cp.start(ctx); err != nil {
			return err
		}
	} else {
		go cp.startAfter(context.WithoutCancel(ctx), c.cfg.Delay)
	}
	c.mu.Lock()
	c.active = cp
	c.mu.Unlock()
	return nil
}

// AfterMeasure stops the step's capture (`nsys stop`), imports and summarises it and
// writes the tables and profiles; it returns the capture directory relative to runDir
// (also when the conversion failed, as the raw report stays there) and any error.
func (c *Capturer) AfterMeasure(ctx context.Context, step plan.Step, runDir string) (string, error) {
	c.mu.Lock()
	cp := c.active
	if cp == nil || cp.step.Index != step.Index {
		c.mu.Unlock()
		return "", nil
	}
	c.active = nil
	c.mu.Unlock()
	ctx = context.WithoutCancel(ctx) // an interrupted sweep still stops and converts
	s := Summary{Step: step.Index, Segment: step.Segment, Schedule: step.Schedule, Load: step.Load(),
		Phase: phaseOf(step)}
	if err := cp.finish(ctx); err != nil {
		if cp.stopFailed() {
			c.mu.Lock()
			c.broken = err
			c.mu.Unlock()
		}
		if !cp.hungWithData() {
			return "", err
		}
		// A hung stop whose .qdstrm was kept: import it if nsys had finished writing it.
		s.StopHung = err.Error()
		s.DurationNs = cp.window().Nanoseconds()
		if _, cerr := ConvertReport(ctx, c.nsys, cp.base, cp.dir, s); cerr != nil {
			return cp.rel, fmt.Errorf("%w; importing what it wrote failed: %w", err, cerr)
		}
		c.log.Warn("capture recovered from a hung nsys stop", "step", step.Index+1, "dir", cp.rel)
		return cp.rel, nil
	}
	s.DurationNs = cp.window().Nanoseconds()
	sum, err := ConvertReport(ctx, c.nsys, cp.base, cp.dir, s)
	if err != nil {
		return cp.rel, fmt.Errorf("capture convert: %w", err)
	}
	c.log.Info("capture written", "step", step.Index+1, "dir", cp.rel, "gpu_time_ns", sum.GPUTimeNs,
		"osrt_time_ns", sum.OSRTTimeNs, "profiles", sum.Profiles)
	return cp.rel, nil
}

// stopActive stops a capture still running (the sweep ended inside a window).
func (c *Capturer) stopActive(ctx context.Context) {
	c.mu.Lock()
	cp := c.active
	c.active = nil
	c.mu.Unlock()
	if cp != nil {
		_ = cp.finish(ctx)
	}
}

// startArgs are the nsys start arguments: output, overwrite, --sample=none and
// --cpuctxsw=none (unless capture.extra_args sets them: nsys 2022.4's perf_event
// collection hangs `nsys stop`, see perfEventFlags), then capture.extra_args.
func (c *Capturer) startArgs(session, base string) []string {
	args := []string{"start", "--session=" + session, "--output=" + base, "--force-overwrite=true"}
	args = append(args, perfEventDefaults(c.cfg.ExtraArgs)...)
	return append(args, c.cfg.ExtraArgs...)
}

// timeNow is replaced in tests.
var timeNow = time.Now
