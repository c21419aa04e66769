package sweep

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// defaultWindow is the measurement window of a step that sets neither a duration nor a
// request count.
const defaultWindow = 10 * time.Second

// Step phases while a step runs (stepRun.phase).
const (
	stagePreWarm = iota
	stageWarmup
	stageMeasure
	stageClosed
)

// requestDoer sends one request and fills its record: *Client in production.
type requestDoer interface {
	Do(ctx context.Context, req *Request, rec *rundir.Record) string
}

// stepResult is one finished request of a step.
type stepResult struct {
	rec *rundir.Record
	end time.Time // when Do returned (monotonic)
}

// stepRun drives one step: warm-up, measurement window, grace period. Requests are sent
// by a closed loop (concurrency), a closed population of users with think time
// (users), an open loop (rate) or a trace timeline.
//
// Phase rules: a request's phase is the stage at which it was claimed (scheduled):
// warm-up or measure. A measure request that finishes after the window closed is
// recorded as grace; one still pending at the end of the grace period is cancelled
// (error_class cancelled). No request is sent after the window closes.
type stepRun struct {
	rn    *runner
	st    plan.Step
	wl    *workload
	trace *segmentGen // trace steps: the trace segment

	reqCtx     context.Context // requests; cancelled at the end of grace
	cancelReqs context.CancelFunc
	sendCtx    context.Context // senders; cancelled when the window closes
	stopSend   context.CancelFunc
	reqWG      sync.WaitGroup // open-loop request goroutines
	wake       chan struct{}
	seq        atomic.Int64

	origin, start time.Time

	mu           sync.Mutex
	stage        int
	warmDone     int
	warmSent     int
	measureSent  int
	measureDone  int
	inflight     int
	senderDone   bool
	results      []stepResult
	measureStart time.Time
	measureEnd   time.Time
	maxInflight  int
	early        errorWatch // the early stop on errors (early_stop.go)
}

func newStepRun(rn *runner, st plan.Step, wl *workload, trace *segmentGen) *stepRun {
	s := &stepRun{rn: rn, st: st, wl: wl, trace: trace, wake: make(chan struct{}, 1)}
	s.reqCtx, s.cancelReqs = context.WithCancel(context.Background())
	s.sendCtx, s.stopSend = context.WithCancel(context.Background())
	return s
}

// claim reserves a send in the current stage; false once no more may be sent.
func (s *stepRun) claim() (phase string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stage == stageClosed:
		return "", false
	case s.stage == stageMeasure && s.st.Requests > 0 && s.measureSent >= s.st.Requests:
		return "", false
	case s.stage == stageMeasure:
		s.measureSent++
		phase = rundir.PhaseMeasure
	default:
		phase = rundir.PhaseWarmup
		s.warmSent++
		if s.trace != nil {
			s.signal() // a trace step's warm-up ends on requests sent
		}
	}
	s.inflight++
	s.maxInflight = max(s.maxInflight, s.inflight)
	return phase, true
}

// finish stores a finished request and wakes the controller.
func (s *stepRun) finish(res stepResult) {
	s.mu.Lock()
	s.results = append(s.results, res)
	s.inflight--
	switch res.rec.Phase {
	case rundir.PhaseWarmup:
		s.warmDone++
	case rundir.PhaseMeasure:
		s.measureDone++
	}
	s.watchErrors(res.rec)
	s.mu.Unlock()
	s.signal()
}

func (s *stepRun) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *stepRun) senderFinished() {
	s.mu.Lock()
	s.senderDone = true
	s.mu.Unlock()
	s.signal()
}

// newRecord fills the request-independent fields of j's record.
func (s *stepRun) newRecord(j *job, phase string) *rundir.Record {
	n := s.seq.Add(1) - 1
	return &rundir.Record{
		RunID: s.rn.runID, Segment: j.seg.name, StepSegment: s.st.Segment, Step: s.st.Index,
		Schedule: s.st.Schedule, Concurrency: s.st.Concurrency, Rate: s.st.Rate, Users: s.st.Users, Phase: phase,
		RequestID: fmt.Sprintf("s%04d-r%06d", s.st.Index, n), SessionID: j.sess.id, Turn: j.turn,
		IntendedPromptTokens: j.intendedP, IntendedOutputTokens: j.intendedO,
	}
}

// execute sends j and records the outcome. scheduled is the intended send time: the
// open loop's schedule, or when a user's think ended (zero for a closed loop).
func (s *stepRun) execute(j *job, rec *rundir.Record, scheduled time.Time) {
	if !scheduled.IsZero() {
		rec.ScheduledNs = unixNs(scheduled)
	}
	answer := s.rn.client.Do(s.reqCtx, &j.req, rec)
	end := time.Now()
	if s.reqCtx.Err() != nil && !rec.OK() {
		rec.Status, rec.ErrorClass = rundir.StatusError, rundir.ErrCancelled
		if rec.Error == "" {
			rec.Error = "cancelled: still pending at the end of the grace period or interrupted"
		}
	}
	if rec.ScheduledNs != 0 && rec.SentNs != 0 && rec.ScheduleLagMs == nil {
		lag := float64(rec.SentNs-rec.ScheduledNs) / 1e6
		rec.ScheduleLagMs = &lag
	}
	s.wl.done(j, answer, rec.OK(), end)
	s.rn.progress.observe(rec)
	s.finish(stepResult{rec: rec, end: end})
}

// waitFor blocks until cond holds (checked under s.mu), deadline passes (zero: none) or
// ctx is done; it reports false only when ctx ended the wait.
func (s *stepRun) waitFor(ctx context.Context, deadline time.Time, cond func() bool) bool {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-s.wake:
		case <-timeout:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// run drives the step and returns its results; err is ErrInterrupted when ctx ended it.
func (s *stepRun) run(ctx context.Context) (sum rundir.StepSummary, results []stepResult, err error) {
	s.start = time.Now()
	s.origin = s.start
	s.rn.scrape.setStep(s.st.Index) // samples taken from now on belong to this step
	w := s.st.Warmup
	if s.trace != nil { // warm up on a small share of the trace's requests only
		w = plan.Warmup{Requests: plan.TraceWarmupRequests(w, len(s.trace.trace.rows))}
	}
	s.mu.Lock()
	s.stage = stageMeasure
	if w.Requests > 0 || w.Duration > 0 {
		s.stage = stageWarmup
	}
	s.mu.Unlock()
	go s.sender()
	interrupted := false
	if w.Requests > 0 || w.Duration > 0 {
		var dl time.Time
		if w.Duration > 0 {
			dl = s.start.Add(w.Duration)
		}
		interrupted = !s.waitFor(ctx, dl, func() bool {
			warmed := s.warmDone
			if s.trace != nil {
				warmed = s.warmSent // the trace's timeline goes on; measure from the next request
			}
			return (w.Requests > 0 && warmed >= w.Requests) || (s.senderDone && s.inflight == 0)
		})
	}
	if !interrupted {
		sum, interrupted = s.measure(ctx)
	}
	if interrupted {
		s.stopSend()
	}
	s.cancelReqs()
	s.waitAll()
	s.rn.scrape.setStep(-1)
	results = s.finalize()
	sum = s.summarize(sum, results)
	if interrupted {
		return sum, results, ErrInterrupted
	}
	return sum, results, nil
}

// measure runs the hooks, the measurement window and the grace period; it reports
// whether ctx interrupted it.
func (s *stepRun) measure(ctx context.Context) (sum rundir.StepSummary, interrupted bool) {
	if h := s.rn.opts.Hook; h != nil {
		if err := h.BeforeMeasure(ctx, s.st, s.rn.dir); err != nil {
			sum.CaptureError = fmt.Sprintf("before measure: %v", err)
			s.rn.log.Warn("step hook failed", "step", s.st.Index, "err", err)
		}
	}
	s.mu.Lock()
	s.stage = stageMeasure
	s.measureStart = time.Now()
	s.mu.Unlock()
	s.rn.progress.stepPhase("measure")
	dur, n := s.st.Duration, s.st.Requests
	if dur <= 0 && n <= 0 && s.trace == nil { // a trace step without either replays the whole trace
		dur = defaultWindow
	}
	var dl time.Time
	if dur > 0 {
		dl = s.measureStart.Add(dur)
	}
	if !s.waitFor(ctx, dl, func() bool {
		return (n > 0 && s.measureSent >= n && s.measureDone >= n) || (s.senderDone && s.inflight == 0) || s.stoppedEarly()
	}) {
		// Interrupted: still close the hook (e.g. stop a running capture).
		s.afterMeasure(context.WithoutCancel(ctx), &sum)
		return sum, true
	}
	s.mu.Lock()
	s.stage = stageClosed
	s.measureEnd = time.Now()
	s.mu.Unlock()
	s.stopSend()
	s.afterMeasure(ctx, &sum)
	s.rn.progress.stepPhase("grace")
	if s.st.Grace > 0 {
		if !s.waitFor(ctx, s.measureEnd.Add(s.st.Grace), func() bool { return s.inflight == 0 }) {
			return sum, true
		}
	}
	return sum, false
}

// afterMeasure calls the hook's AfterMeasure, recording what it captured; a hook error
// is recorded and logged, never fatal.
func (s *stepRun) afterMeasure(ctx context.Context, sum *rundir.StepSummary) {
	h := s.rn.opts.Hook
	if h == nil {
		return
	}
	captured, err := h.AfterMeasure(ctx, s.st, s.rn.dir)
	sum.Captured = captured
	if err != nil {
		sum.CaptureError = joinMsg(sum.CaptureError, fmt.Sprintf("after measure: %v", err))
		s.rn.log.Warn("step hook failed", "step", s.st.Index, "err", err)
	}
	if sum.CaptureError != "" || sum.Captured != "" {
		s.rn.noteCapture(s.st, sum.CaptureError)
	}
}

func joinMsg(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// waitAll waits for the senders and every request to return.
func (s *stepRun) waitAll() {
	s.waitFor(context.Background(), time.Time{}, func() bool { return s.senderDone && s.inflight == 0 })
	s.reqWG.Wait()
}

// finalize assigns grace phases and returns the results in completion order. A measure
// request is grace when it ended after the window closed: a successful one at its last
// content event (end_ns, the time the analysis uses), a failed one when Do returned (so
// one cancelled at the end of the grace period is grace).
func (s *stepRun) finalize() []stepResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.measureEnd.IsZero() {
		return s.results
	}
	closed := unixNs(s.measureEnd)
	for _, r := range s.results {
		end := unixNs(r.end)
		if r.rec.OK() && r.rec.EndNs != 0 {
			end = r.rec.EndNs
		}
		if r.rec.Phase == rundir.PhaseMeasure && end > closed {
			r.rec.Phase = rundir.PhaseGrace
		}
	}
	return s.results
}

// sender runs the step's schedule until the window closes or the schedule ends.
func (s *stepRun) sender() {
	defer s.senderFinished()
	switch s.st.Schedule {
	case plan.ScheduleConcurrency:
		s.closedLoop(max(s.st.Concurrency, 1))
	case plan.ScheduleUsers:
		s.usersLoop(max(s.st.Users, 1))
	case plan.ScheduleTrace:
		rows := s.trace.trace.rows
		s.openLoop(func(k int) (time.Duration, *job, bool) {
			if k >= len(rows) {
				return 0, nil, false
			}
			return rows[k].Offset, s.traceJob(k), true
		})
	default:
		if s.st.Rate <= 0 {
			return
		}
		arr := newArrivals(s.rn.plan, s.st)
		s.openLoop(func(int) (time.Duration, *job, bool) {
			return arr.next(), nil, true
		})
	}
}
