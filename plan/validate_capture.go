package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// NsysTraceAPIs are the values nsys accepts in --trace (capture.trace, comma-separated):
// those of Nsight Systems 2022.4 (`nsys profile --help`) plus the names later versions
// added (cuda-hw, cusolver, dx11/dx12, wddm, openxr, gds, nvmedia, python-gil, syscall…).
// "none" traces no API and stands alone.
var NsysTraceAPIs = []string{
	"cuda", "nvtx", "osrt", "cublas", "cublas-verbose", "cusparse", "cusparse-verbose",
	"cudnn", "mpi", "oshmem", "ucx", "opengl", "opengl-annotations", "openacc", "openmp",
	"nvvideo", "vulkan", "vulkan-annotations",
	// Added after 2022.4.
	"cuda-hw", "cusolver", "cusolver-verbose", "dx11", "dx11-annotations", "dx12",
	"dx12-annotations", "openxr", "openxr-annotations", "wddm", "tegra-accelerators",
	"gds", "nvmedia", "python-gil", "syscall",
	"none",
}

// Capture step marks (CaptureMark).
const (
	// CaptureMarkStep: the step matches capture.steps and is captured.
	CaptureMarkStep = "capture"
	// CaptureMarkKnee: capture.knee captures the step unless an earlier step of its
	// segment fails the quick SLA check during the sweep.
	CaptureMarkKnee = "knee"
)

// Matches reports whether cs names step s: the same segment (case-insensitive) and, when
// set, the same concurrency (a concurrency step) or rate (an open-loop step); a
// CaptureStep with neither matches every step of its segment.
func (cs CaptureStep) Matches(s Step) bool {
	if !strings.EqualFold(cs.Segment, s.Segment) {
		return false
	}
	if cs.Concurrency > 0 && (s.Schedule != ScheduleConcurrency || s.Concurrency != cs.Concurrency) {
		return false
	}
	if cs.Rate > 0 && (s.Schedule == ScheduleConcurrency || math.Abs(s.Rate-cs.Rate) > 1e-9*math.Max(1, cs.Rate)) {
		return false
	}
	return true
}

// CaptureMark says how step s will be captured: CaptureMarkStep when capture is enabled
// and s matches capture.steps, CaptureMarkKnee when capture.knee may capture it (every
// step of a ladder segment, until one fails the quick SLA check at run time), else "".
// `llmcap plan` shows it in its step listing.
func (p *Plan) CaptureMark(s Step) string {
	if !p.Capture.Enabled {
		return ""
	}
	for _, cs := range p.Capture.Steps {
		if cs.Matches(s) {
			return CaptureMarkStep
		}
	}
	if p.Capture.Knee {
		return CaptureMarkKnee
	}
	return ""
}

// checkCaptureTrace checks capture.trace against NsysTraceAPIs ("" means the default).
func (p *Plan) checkCaptureTrace(ps *problems) {
	t := p.Capture.Trace
	if t == "" {
		return
	}
	var bad []string
	apis := strings.Split(t, ",")
	for _, a := range apis {
		if !slices.Contains(NsysTraceAPIs, a) {
			bad = append(bad, fmt.Sprintf("%q", a))
		}
	}
	switch {
	case len(bad) > 0:
		ps.add("capture.trace", t, "unknown nsys trace API %s: a comma-separated list (no spaces) of %s",
			strings.Join(bad, ", "), strings.Join(NsysTraceAPIs, ", "))
	case len(apis) > 1 && slices.Contains(apis, "none"):
		ps.add("capture.trace", t, "\"none\" traces no API and cannot be combined with others")
	}
}

// checkCaptureSteps requires each capture.steps entry to name at least one step of the
// ladder (else nothing would be captured for it, silently).
func (p *Plan) checkCaptureSteps(ps *problems) {
	if len(p.Capture.Steps) == 0 {
		return
	}
	steps := p.Steps()
	for i, cs := range p.Capture.Steps {
		if p.segment(cs.Segment) == nil && cs.Segment != MixSegment {
			continue // reported by checkCapture
		}
		if slices.ContainsFunc(steps, cs.Matches) {
			continue
		}
		pre := fmt.Sprintf("capture.steps[%d]", i)
		switch {
		case cs.Concurrency > 0 && cs.Rate > 0:
			ps.add(pre, raw(fmt.Sprintf("concurrency %d and rate %g", cs.Concurrency, cs.Rate)),
				"set concurrency or rate, not both (a step is closed-loop or open-loop)")
		case cs.Concurrency > 0:
			ps.add(pre+".concurrency", cs.Concurrency, "names no step of segment %q: %s",
				cs.Segment, ladderLoads(steps, cs.Segment))
		case cs.Rate > 0:
			ps.add(pre+".rate", cs.Rate, "names no step of segment %q: %s", cs.Segment, ladderLoads(steps, cs.Segment))
		default:
			ps.add(pre+".segment", cs.Segment, "no step of the ladder runs this segment (ladder.mix / ladder.per_segment)")
		}
	}
}

// ladderLoads describes the loads of seg's steps, e.g. "the ladder's loads are
// concurrency 2, 8, 16".
func ladderLoads(steps []Step, seg string) string {
	var conc, rate, users []string
	trace := false
	for _, s := range steps {
		if !strings.EqualFold(s.Segment, seg) {
			continue
		}
		switch s.Schedule {
		case ScheduleConcurrency:
			conc = append(conc, fmt.Sprint(s.Concurrency))
		case ScheduleTrace:
			trace = true
		case ScheduleUsers:
			users = append(users, fmt.Sprint(s.Users))
		default:
			rate = append(rate, fmt.Sprintf("%g", s.Rate))
		}
	}
	var parts []string
	if len(conc) > 0 {
		parts = append(parts, "concurrency "+strings.Join(conc, ", "))
	}
	if len(rate) > 0 {
		parts = append(parts, "rate "+strings.Join(rate, ", ")+" req/s")
	}
	if len(users) > 0 {
		parts = append(parts, "users "+strings.Join(users, ", ")+" (name the segment alone to capture a users step)")
	}
	if trace {
		parts = append(parts, "one trace step (name the segment alone to capture it)")
	}
	if len(parts) == 0 {
		return "the ladder runs no step of it"
	}
	return "the ladder's loads are " + strings.Join(parts, "; ")
}
