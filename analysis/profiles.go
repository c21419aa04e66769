package analysis

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

const (
	topCaptureRows = 20
	// defaultCaptureTrace is profiles.DefaultTrace (nsys --trace when capture.trace is empty).
	defaultCaptureTrace = "cuda,nvtx,osrt,cublas"
)

// readKernels reads every capture directory under profiles/ (one with kernels.json,
// osrt.json or capture.json); unreadable or malformed files are skipped.
func readKernels(dir string) []KernelSummary {
	dirs, _ := rundir.CaptureDirs(dir)
	var out []KernelSummary
	for _, d := range dirs {
		if ks, ok := readCapture(d); ok {
			out = append(out, ks)
		}
	}
	return out
}

// readCapture reads one capture directory; ok is false when it holds no profile data.
func readCapture(d string) (KernelSummary, bool) {
	ks := KernelSummary{Step: -1, Dir: filepath.Base(d), ClassShares: map[string]float64{}}
	c, ok := rundir.ReadCapture(d)
	if !ok {
		return ks, false
	}
	if c.Summary != nil {
		ks.Step, ks.WindowNs, ks.StopHung = c.Summary.Step, c.Summary.DurationNs, c.Summary.StopHung
	}
	if c.Kernels != nil {
		ks.Top, ks.ClassShares, ks.GPUTimeNs = kernelShares(c.Kernels)
	}
	if len(c.OSRT) > 0 {
		ks.OSRuntime, ks.OSRuntimeTimeNs = osCalls(c.OSRT)
	}
	return ks, c.Summary != nil || c.Kernels != nil || len(ks.OSRuntime) > 0
}

// kernelShares returns the largest kernels with their shares of GPU time, the class
// shares and the total GPU time (ns).
func kernelShares(rows []KernelRow) ([]KernelRow, map[string]float64, int64) {
	shares := map[string]float64{}
	var total int64
	for _, r := range rows {
		total += r.TotalTimeNs
	}
	for i := range rows {
		if total > 0 {
			rows[i].Share = float64(rows[i].TotalTimeNs) / float64(total)
		}
		shares[cmp.Or(rows[i].Class, "other")] += rows[i].Share
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].TotalTimeNs > rows[j].TotalTimeNs })
	return rows[:min(len(rows), topCaptureRows)], shares, total
}

// osCalls returns the largest OS runtime calls with their shares and the total (ns).
func osCalls(rows []rundir.StatRow) ([]OSCallRow, int64) {
	var total int64
	for _, r := range rows {
		total += r.TotalNs
	}
	out := make([]OSCallRow, 0, len(rows))
	for _, r := range rows {
		c := OSCallRow{Name: r.Name, Calls: r.Count, TotalTimeNs: r.TotalNs, AvgNs: r.AvgNs}
		if total > 0 {
			c.Share = float64(r.TotalNs) / float64(total)
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(x, y OSCallRow) int { return cmp.Compare(y.TotalTimeNs, x.TotalTimeNs) })
	return out[:min(len(out), topCaptureRows)], total
}

// kernelsOf attaches step identities to the captures read from profiles/, adds the
// steps whose capture failed (steps.jsonl capture_error), says why a capture has no GPU
// breakdown, and marks each segment's knee capture. Knee captures come first, then by
// step.
func kernelsOf(in *runInputs, a *Analysis) []KernelSummary {
	ks := in.kernels
	byDir := map[string]rundir.StepSummary{}
	for _, s := range in.steps {
		if s.Captured != "" {
			byDir[filepath.Base(s.Captured)] = s
		}
	}
	for i := range ks {
		if s, ok := byDir[ks[i].Dir]; ok {
			ks[i].Step = s.Index
		}
		if st, ok := in.stepOf(ks[i].Step); ok {
			ks[i].Segment, ks[i].Load = st.Segment, st.Load()
		}
		if s, ok := in.steps[ks[i].Step]; ok && s.CaptureError != "" {
			ks[i].CaptureError = s.CaptureError // recovered partially, or conversion failed
		}
	}
	for _, s := range in.steps {
		if s.CaptureError != "" && (s.Captured == "" || !slices.ContainsFunc(ks, func(k KernelSummary) bool { return k.Step == s.Index })) {
			ks = append(ks, KernelSummary{Step: s.Index, Segment: s.Segment, Load: s.Load(), Dir: filepath.Base(s.Captured),
				ClassShares: map[string]float64{}, CaptureError: s.CaptureError})
		}
	}
	trace := cmp.Or(a.Plan.Capture.Trace, defaultCaptureTrace)
	for i := range ks {
		ks[i].NoGPU = noGPUReason(ks[i], trace)
	}
	markKnees(a, ks)
	slices.SortStableFunc(ks, func(x, y KernelSummary) int {
		if x.Knee != y.Knee {
			if x.Knee {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.Step, y.Step)
	})
	return ks
}

// noGPUReason says why a capture has no GPU-time breakdown ("" when it has one).
func noGPUReason(k KernelSummary, trace string) string {
	switch {
	case len(k.Top) > 0:
		return ""
	case k.CaptureError != "" && len(k.OSRuntime) == 0:
		return "the capture failed: " + k.CaptureError
	case !slices.Contains(strings.Split(strings.ReplaceAll(trace, " ", ""), ","), "cuda"):
		return fmt.Sprintf("no GPU trace was captured (capture.trace is %q, without cuda)", trace)
	default:
		return fmt.Sprintf("the capture (trace %q) recorded no GPU kernels: the server did not run CUDA work "+
			"in the window, or was not started under nsys with CUDA tracing", trace)
	}
}

// markKnees marks, per segment, the capture at the knee: the first captured step
// (by load) that broke the SLA, else the highest captured load.
func markKnees(a *Analysis, ks []KernelSummary) {
	bySeg := map[string][]int{}
	for i, k := range ks {
		if k.Step >= 0 && (len(k.Top) > 0 || len(k.OSRuntime) > 0) {
			bySeg[k.Segment] = append(bySeg[k.Segment], i)
		}
	}
	for seg, idx := range bySeg {
		meets := map[int]bool{}
		if sa := segmentByName(a, seg); sa != nil {
			for _, st := range sa.Steps {
				meets[st.Step] = st.MeetsSLA
			}
		}
		slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(ks[x].Load, ks[y].Load) })
		knee, why := idx[len(idx)-1], "the highest captured load (every captured step met the SLA)"
		for _, i := range idx {
			if ok, known := meets[ks[i].Step]; known && !ok {
				knee, why = i, "the first captured step that broke the SLA"
				break
			}
		}
		ks[knee].Knee, ks[knee].KneeReason = true, why
	}
}

// segmentByName returns the analysis of segment name (the mix for plan.MixSegment).
func segmentByName(a *Analysis, name string) *SegmentAnalysis {
	if name == plan.MixSegment {
		return a.Mix
	}
	for i := range a.Segments {
		if a.Segments[i].Segment == name {
			return &a.Segments[i]
		}
	}
	return nil
}
