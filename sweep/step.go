package sweep

import (
	"context"
	"errors"
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
// recorded as grace. The step ends at the end of the grace period, or earlier when its
// wall-time bound (plan.Step.Timeout) expires; a request still in flight then is
// unfinished (error_class unfinished, its wait so far in waited_ms: a censored
// observation the SLA judge counts), recorded as grace whatever stage claimed it, since
// it was in flight through the window. An interruption (ctx) cancels them instead
// (error_class cancelled). No request is sent after the window closes.
type stepRun struct {
	rn *runner
	// st is the step as this process drives it: the plan's step, or a shard's share of
	// it (shareOf); whole is the plan's step, whose load the records and summary carry.
	st, whole plan.Step
	// shard is the sweep's shard (nil: unsharded): it owns every Count-th arrival,
	// trace row, session and user of the step's one sequence (Shard.owns, global).
	shard *Shard
	// planned, when set, is the step's planned start on a shard's timeline: the origin
	// of its arrivals, so every shard's open loop keeps the one schedule.
	planned time.Time
	wl      *workload
	trace   *segmentGen // trace steps: the trace segment

	reqCtx     context.Context // requests; cancelled at the end of the step (errStepEnded) or an interruption
	cancelReqs context.CancelCauseFunc
	sendCtx    context.Context // senders; cancelled when the window closes
	stopSend   context.CancelFunc
	reqWG      sync.WaitGroup // open-loop request goroutines
	wake       chan struct{}
	seq        atomic.Int64

	origin, start time.Time

	mu       sync.Mutex
	stage    int
	warmDone int
	warmSent int
	// traceWarmup is a trace step's warm-up request count when claim itself opens the
	// window on the next send (no step hook); 0 otherwise.
	traceWarmup  int
	measureSent  int
	measureDone  int
	inflight     int
	senderDone   bool
	results      []stepResult
	measureStart time.Time
	measureEnd   time.Time
	maxInflight  int
	early        errorWatch // the early stop on errors (early_stop.go)
	cutAt        time.Time  // when the step's requests were cancelled (the end of the step)
	boundCut     bool       // the wall-time bound ended the step
}

// errStepEnded is the cause with which the step cancels its requests still in flight
// when it ends (grace period over or wall-time bound expired): they are unfinished.
var errStepEnded = errors.New("still in flight when the step ended")

func newStepRun(rn *runner, st plan.Step, wl *workload, trace *segmentGen) *stepRun {
	s := &stepRun{rn: rn, st: st, whole: st, wl: wl, trace: trace, wake: make(chan struct{}, 1)}
	s.reqCtx, s.cancelReqs = context.WithCancelCause(context.Background())
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
	case s.traceWarmup > 0 && s.warmSent >= s.traceWarmup:
		// A trace step's warm-up is its first traceWarmup sends, exactly: the send after
		// them opens the window here, not when the controller next runs (a stall of the
		// controller would count the sends in between as warm-up).
		s.stage = stageMeasure
		s.measureStart = time.Now()
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
		Schedule: s.st.Schedule, Concurrency: s.whole.Concurrency, Rate: s.whole.Rate, Users: s.whole.Users, Phase: phase,
		RequestID: requestID(s.rn.idTag, s.st.Index, n), SessionID: j.sess.id, Turn: j.turn,
		IntendedPromptTokens: j.intendedP, IntendedOutputTokens: j.intendedO,
	}
}

// requestID is the n-th request of step's id, "<tag>-s0003-r000012": sent as the
// request's X-Request-Id and kept as its record's request_id. The tag (NewIDTag, one
// per invocation) makes it unique across runs and resumed attempts; without one it is
// "s0003-r000012".
func requestID(tag string, step int, n int64) string {
	if tag == "" {
		return fmt.Sprintf("s%04d-r%06d", step, n)
	}
	return fmt.Sprintf("%s-s%04d-r%06d", tag, step, n)
}

// execute sends j and records the outcome. scheduled is the intended send time: the
// open loop's schedule, or when a user's think ended (zero for a closed loop).
func (s *stepRun) execute(j *job, rec *rundir.Record, scheduled time.Time) {
	if !scheduled.IsZero() {
		rec.ScheduledNs = unixNs(scheduled)
	}
	began := time.Now()
	answer := s.rn.client.Do(s.reqCtx, &j.req, rec)
	end := time.Now()
	if s.reqCtx.Err() != nil && !rec.OK() {
		s.markCut(rec, began)
	}
	if rec.ScheduledNs != 0 && rec.SentNs != 0 && rec.ScheduleLagMs == nil {
		lag := float64(rec.SentNs-rec.ScheduledNs) / 1e6
		rec.ScheduleLagMs = &lag
	}
	s.wl.done(j, answer, rec.OK(), end)
	s.rn.progress.observe(rec)
	s.finish(stepResult{rec: rec, end: end})
}

// markCut classifies a failed request that the step's cancellation stopped: unfinished,
// with its wait up to the cut in WaitedMs, when the step ended; cancelled when an
// interruption did.
func (s *stepRun) markCut(rec *rundir.Record, began time.Time) {
	rec.Status = rundir.StatusError
	if !errors.Is(context.Cause(s.reqCtx), errStepEnded) {
		rec.ErrorClass = rundir.ErrCancelled
		if rec.Error == "" {
			rec.Error = "cancelled: interrupted"
		}
		return
	}
	s.mu.Lock()
	cut := unixNs(s.cutAt)
	s.mu.Unlock()
	from := rec.SentNs
	if from == 0 {
		from = unixNs(began)
	}
	waited := max(float64(cut-from)/1e6, 0)
	rec.ErrorClass, rec.WaitedMs = rundir.ErrUnfinished, &waited
	rec.Error = fmt.Sprintf("unfinished: still in flight when the step ended, after %.0f ms", waited)
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
	if !s.planned.IsZero() && s.planned.Before(s.start) {
		s.origin = s.planned
	}
	s.rn.scrape.setStep(s.st.Index) // samples taken from now on belong to this step
	w := s.st.Warmup
	if s.trace != nil { // warm up on a small share of the trace's requests only
		w = plan.Warmup{Requests: plan.TraceWarmupRequests(w, s.traceRows())}
	}
	s.mu.Lock()
	s.stage = stageMeasure
	if w.Requests > 0 || w.Duration > 0 {
		s.stage = stageWarmup
	}
	if s.trace != nil && s.rn.opts.Hook == nil {
		// With a hook (a capture starting) the window opens when the hook returns: the
		// trace's sends in the meantime are warm-up.
		s.traceWarmup = w.Requests
	}
	s.mu.Unlock()
	go s.sender()
	bctx, cancelBound := context.WithDeadline(ctx, s.start.Add(s.timeout()))
	defer cancelBound()
	interrupted := false
	if w.Requests > 0 || w.Duration > 0 {
		var dl time.Time
		if w.Duration > 0 {
			dl = s.start.Add(w.Duration)
		}
		if !s.waitFor(bctx, dl, func() bool {
			warmed := s.warmDone
			if s.trace != nil {
				warmed = s.warmSent // the trace's timeline goes on; measure from the next request
			}
			return (w.Requests > 0 && warmed >= w.Requests) || (s.senderDone && s.inflight == 0)
		}) {
			interrupted = ctx.Err() != nil
			if !interrupted { // the bound expired in warm-up: an empty window, closed at once
				s.closeWindow(true)
			}
		}
	}
	if !interrupted && !s.windowClosed() {
		sum, interrupted = s.measure(ctx, bctx)
	}
	if interrupted {
		s.stopSend()
	}
	s.endRequests(interrupted)
	s.waitAll()
	s.rn.scrape.setStep(-1)
	results = s.finalize()
	sum = s.summarize(sum, results)
	sum.CutByStepTimeout = s.boundCut
	if s.boundCut {
		s.rn.log.Warn("step cut by its wall-time bound", "step", s.st.Index+1, "bound", s.timeout(),
			"unfinished", sum.Unfinished)
	}
	if interrupted {
		return sum, results, ErrInterrupted
	}
	return sum, results, nil
}

// timeout is the step's wall-time bound: plan.Step.Timeout, or the plan's derived one
// for a step written without it.
func (s *stepRun) timeout() time.Duration {
	if s.st.Timeout > 0 {
		return s.st.Timeout
	}
	return s.rn.plan.StepTimeout(s.st)
}

// closeWindow closes the measurement window now (opening it first when the bound
// expired in warm-up) and stops the senders; bound says the wall-time bound did it.
func (s *stepRun) closeWindow(bound bool) {
	s.mu.Lock()
	now := time.Now()
	if s.measureStart.IsZero() {
		s.measureStart = now
	}
	if s.measureEnd.IsZero() {
		s.measureEnd = now
	}
	s.stage = stageClosed
	s.boundCut = s.boundCut || bound
	s.mu.Unlock()
	s.stopSend()
}

func (s *stepRun) windowClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.measureEnd.IsZero()
}

// endRequests cancels the requests still in flight: by the interruption, or as the end
// of the step (they are unfinished, cut now).
func (s *stepRun) endRequests(interrupted bool) {
	if interrupted {
		s.cancelReqs(ErrInterrupted)
		return
	}
	s.mu.Lock()
	s.cutAt = time.Now()
	s.mu.Unlock()
	s.cancelReqs(errStepEnded)
}

// measure runs the hooks, the measurement window and the grace period, the waits
// bounded by bctx (ctx with the step's wall-time bound); it reports whether ctx
// interrupted it. When the bound expires the window (or grace period) ends there.
func (s *stepRun) measure(ctx, bctx context.Context) (sum rundir.StepSummary, interrupted bool) {
	if h := s.rn.opts.Hook; h != nil {
		if err := h.BeforeMeasure(ctx, s.st, s.rn.dir); err != nil {
			sum.CaptureError = fmt.Sprintf("before measure: %v", err)
			s.rn.log.Warn("step hook failed", "step", s.st.Index+1, "err", err)
		}
	}
	s.mu.Lock()
	s.stage = stageMeasure
	if s.measureStart.IsZero() { // claim opened it already on a trace step's send
		s.measureStart = time.Now()
	}
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
	if !s.waitFor(bctx, dl, func() bool {
		return (n > 0 && s.measureSent >= n && s.measureDone >= n) || (s.senderDone && s.inflight == 0) || s.stoppedEarly()
	}) && ctx.Err() != nil {
		// Interrupted: still close the hook (e.g. stop a running capture).
		s.afterMeasure(context.WithoutCancel(ctx), &sum)
		return sum, true
	}
	bound := bctx.Err() != nil
	s.closeWindow(bound)
	s.afterMeasure(ctx, &sum)
	s.rn.progress.stepPhase("grace")
	if s.st.Grace > 0 && !bound {
		if !s.waitFor(bctx, s.measureEnd.Add(s.st.Grace), func() bool { return s.inflight == 0 }) {
			if ctx.Err() != nil {
				return sum, true
			}
			s.closeWindow(true) // the bound expired in the grace period
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
		s.rn.log.Warn("step hook failed", "step", s.st.Index+1, "err", err)
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
// one unfinished at the end of the step is grace). An unfinished request claimed in
// warm-up is grace too: it was in flight through the whole window, and is judged.
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
		switch {
		case r.rec.Phase == rundir.PhaseMeasure && end > closed:
			r.rec.Phase = rundir.PhaseGrace
		case r.rec.Phase == rundir.PhaseWarmup && r.rec.ErrorClass == rundir.ErrUnfinished:
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
		if s.shard != nil && s.st.Concurrency == 0 {
			return // a shard whose share of the step is empty
		}
		s.closedLoop(max(s.st.Concurrency, 1))
	case plan.ScheduleUsers:
		if s.shard != nil && s.st.Users == 0 {
			return
		}
		s.usersLoop(max(s.st.Users, 1))
	case plan.ScheduleTrace:
		rows := s.trace.trace.rows
		s.openLoop(func(k int) (time.Duration, *job, bool) {
			g := s.shard.global(k) // the shard's k-th row: every Count-th
			if g >= len(rows) {
				return 0, nil, false
			}
			return rows[g].Offset, s.traceJob(g), true
		})
	default:
		if s.st.Rate <= 0 {
			return
		}
		arr := newArrivals(s.rn.plan, s.st)
		g := 0 // the arrival's index in the step's one sequence (every shard draws it whole)
		s.openLoop(func(int) (time.Duration, *job, bool) {
			for {
				off, mine := arr.next(), s.shard.owns(g)
				g++
				if mine {
					return off, nil, true
				}
			}
		})
	}
}

// traceRows is how many of the trace's rows this process replays: all, or a shard's
// every Count-th.
func (s *stepRun) traceRows() int {
	n := len(s.trace.trace.rows)
	if s.shard == nil {
		return n
	}
	return splitInt(n, s.shard.Index, s.shard.Count)
}
