package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/johnfercher/maroto/v2/pkg/props"

	"github.com/llmcap/llmcap/analysis"
)

// kernelTableRows is how many kernels or OS runtime calls a capture's table lists.
const kernelTableRows = 10

// profileHeading is the title of the captured-profiles section: GPU time at the knee
// when any capture has GPU kernels, else it says there is no GPU trace (or no data).
func profileHeading(a *analysis.Analysis) string {
	data := false
	for _, k := range a.Kernels {
		if len(k.Top) > 0 {
			return "Where GPU time goes at the knee"
		}
		data = data || len(k.OSRuntime) > 0
	}
	if !data {
		return "Profile captures (none succeeded)"
	}
	return "Profile at the knee (no GPU trace)"
}

// shownInFull reports whether capture k gets its own table: a knee capture, or any
// capture with data when none is marked (an analysis.json from before knees).
func shownInFull(a *analysis.Analysis, k analysis.KernelSummary) bool {
	if k.Knee {
		return true
	}
	if len(k.Top) == 0 && len(k.OSRuntime) == 0 {
		return false
	}
	return !slices.ContainsFunc(a.Kernels, func(o analysis.KernelSummary) bool { return o.Knee })
}

// profileDir is the capture directory relative to the run directory.
func profileDir(k analysis.KernelSummary) string {
	if strings.HasPrefix(k.Dir, "profiles/") {
		return k.Dir
	}
	return "profiles/" + k.Dir
}

// captureTitle names a capture's step, e.g. "chat @ 16 concurrency (step 3) — the knee".
func captureTitle(a *analysis.Analysis, k analysis.KernelSummary) string {
	t := fmt.Sprintf("%s @ %s %s (step %d)", orDash(k.Segment), loadText(k.Load), loadName(a), stepNumber(k.Step))
	if k.Knee {
		t += " — the knee"
	}
	return t
}

// kneeText says why a knee capture is the knee ("" for other captures).
func kneeText(k analysis.KernelSummary) string {
	if !k.Knee || k.KneeReason == "" {
		return ""
	}
	return "The knee: " + k.KneeReason + ". "
}

// othersHeading titles the one-line captures: "Other captured steps" after full ones.
func othersHeading(full bool) string {
	if full {
		return "Other captured steps"
	}
	return "Captured steps"
}

// classShareText lists a capture's kernel classes by share, largest first.
func classShareText(k analysis.KernelSummary) string {
	classes := slices.Sorted(maps.Keys(k.ClassShares))
	slices.SortStableFunc(classes, func(x, y string) int { return cmpFloat(k.ClassShares[y], k.ClassShares[x]) })
	parts := make([]string, 0, len(classes))
	for _, c := range classes {
		parts = append(parts, fmt.Sprintf("%s %s", c, pct(k.ClassShares[c])))
	}
	return strings.Join(parts, ", ")
}

// captureSummaryText is one capture in plain words: its GPU time by class, or why it
// has none and what OS runtime time it recorded instead, or why it failed; brief
// shortens the OS runtime case (for the other captured steps' one-liners).
func captureSummaryText(k analysis.KernelSummary, brief bool) string {
	window := ""
	if k.WindowNs > 0 {
		window = fmt.Sprintf(" over the %s s capture window", num(float64(k.WindowNs)/1e9, 1))
	}
	switch {
	case len(k.Top) > 0 && k.GPUTimeNs > 0:
		return fmt.Sprintf("GPU time %s ms%s, by kernel class: %s.", num(float64(k.GPUTimeNs)/1e6, 1), window, classShareText(k))
	case len(k.Top) > 0:
		return fmt.Sprintf("GPU time by kernel class: %s.", classShareText(k))
	case len(k.OSRuntime) > 0:
		top := k.OSRuntime[0]
		calls := num(float64(top.Calls), 0) + " calls"
		if top.Calls == 1 {
			calls = "1 call"
		}
		if brief {
			return fmt.Sprintf("no GPU trace; OS runtime calls %s ms%s, largest %s (%s).", num(float64(k.OSRuntimeTimeNs)/1e6, 1),
				window, top.Name, pct(top.Share))
		}
		return fmt.Sprintf("No GPU-time breakdown: %s. Shown instead: the server processes' OS runtime (libc) calls%s, "+
			"%s ms in all; the largest is %s (%s, %s ms, %s).", k.NoGPU, window,
			num(float64(k.OSRuntimeTimeNs)/1e6, 1), top.Name, calls, num(float64(top.TotalTimeNs)/1e6, 1), pct(top.Share))
	case k.CaptureError != "":
		return "Capture failed: " + k.CaptureError
	default:
		return "No profile data: " + k.NoGPU + "."
	}
}

// captureTable is a capture's largest kernels or OS runtime calls: headers and rows.
func captureTable(k analysis.KernelSummary) ([]string, [][]string) {
	var data [][]string
	if len(k.Top) > 0 {
		for _, r := range k.Top[:min(len(k.Top), kernelTableRows)] {
			data = append(data, []string{clipRunes(r.Name, 60), r.Class, num(float64(r.TotalTimeNs)/1e6, 1), num(float64(r.Instances), 0), pct(r.Share)})
		}
		return []string{"kernel", "class", "GPU time ms", "instances", "share"}, data
	}
	for _, r := range k.OSRuntime[:min(len(k.OSRuntime), kernelTableRows)] {
		data = append(data, []string{r.Name, num(float64(r.TotalTimeNs)/1e6, 1), num(float64(r.Calls), 0), num(r.AvgNs/1e3, 1), pct(r.Share)})
	}
	return []string{"OS runtime call", "time ms", "calls", "avg µs", "share"}, data
}

// kernelSection is the PDF's captured-profiles section: each knee capture with its
// table (the first under the heading), then one line per other captured (or failed)
// step; one block each.
func kernelSection(in *input) []block {
	a := in.a
	var out []block
	rows := block{heading(profileHeading(a))}
	var others []analysis.KernelSummary
	for _, k := range a.Kernels {
		if !shownInFull(a, k) {
			others = append(others, k)
			continue
		}
		rows = append(rows, subheading(captureTitle(a, k)), para(kneeText(k)+captureSummaryText(k, false)+" Profile: "+profileDir(k)+"."))
		if hdr, data := captureTable(k); len(data) > 0 {
			sizes := []int{11, 4, 3, 3, 3}
			if len(k.Top) == 0 {
				sizes = []int{9, 4, 4, 4, 3}
			}
			rows = append(rows, table(hdr, sizes, data)...)
		}
		out, rows = append(out, rows), nil
	}
	if len(others) > 0 {
		rows = append(rows, subheading(othersHeading(len(others) < len(a.Kernels))))
		for _, k := range others {
			rows = append(rows, para(captureTitle(a, k)+": "+captureSummaryText(k, true), props.Text{Size: 8.5, Top: 0.5, Bottom: 0.5}))
		}
	}
	return append(out, rows)
}

// writeMarkdownKernels writes the captured-profiles section of summary.md (nothing
// when the run captured no profile).
func writeMarkdownKernels(b *strings.Builder, a *analysis.Analysis) {
	if len(a.Kernels) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n", profileHeading(a))
	var others []analysis.KernelSummary
	for _, k := range a.Kernels {
		if !shownInFull(a, k) {
			others = append(others, k)
			continue
		}
		fmt.Fprintf(b, "\n**%s**\n\n%s Profile: `%s`.\n", mdEscape(captureTitle(a, k)), mdEscape(kneeText(k)+captureSummaryText(k, false)), profileDir(k))
		hdr, data := captureTable(k)
		if len(data) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n| %s |\n|---|%s\n", strings.Join(hdr, " | "), strings.Repeat("---:|", len(hdr)-1))
		for _, r := range data {
			for i := range r {
				r[i] = mdEscape(r[i])
			}
			fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(b, "\n%s:\n\n", othersHeading(len(others) < len(a.Kernels)))
		for _, k := range others {
			fmt.Fprintf(b, "- %s: %s\n", mdEscape(captureTitle(a, k)), mdEscape(captureSummaryText(k, true)))
		}
	}
}
