package profiles

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// QuickSLACheck is the capture's own coarse SLA verdict for one step's measured
// records (Phase "measure"): the error rate against sla.MaxErrorRate, then each latency
// constraint (TTFT, TTFO, ITL, E2E at p50/p90/p95/p99/mean, nearest-rank percentiles over
// successful requests) against its threshold. A step with no measured request fails.
// It returns whether the step passes and, if not, why. The analysis stage computes the
// authoritative verdict; this one only chooses what to capture.
func QuickSLACheck(recs []rundir.Record, sla plan.SLA) (bool, string) {
	var n, errs int
	vals := map[string][]float64{}
	for i := range recs {
		r := &recs[i]
		if r.Phase != rundir.PhaseMeasure {
			continue
		}
		n++
		if !r.OK() {
			errs++
			continue
		}
		for m, v := range map[string]*float64{"ttft": r.TTFTMs, "ttfo": r.TTFOMs, "itl": r.ITLMs, "e2e": r.E2EMs} {
			if v != nil {
				vals[m] = append(vals[m], *v)
			}
		}
	}
	if n == 0 {
		return false, "no measured requests"
	}
	if rate := float64(errs) / float64(n); rate > sla.MaxErrorRate {
		return false, fmt.Sprintf("error rate %.3f > %.3f", rate, sla.MaxErrorRate)
	}
	for _, c := range []struct {
		metric string
		limits map[plan.Percentile]float64
	}{{"ttft", sla.TTFTMs}, {"ttfo", sla.TTFOMs}, {"itl", sla.ITLMs}, {"e2e", sla.E2EMs}} {
		stats := make([]string, 0, len(c.limits))
		for s := range c.limits {
			stats = append(stats, s)
		}
		sort.Strings(stats)
		for _, s := range stats {
			v, ok := statOf(vals[c.metric], s)
			if ok && v > c.limits[s] {
				return false, fmt.Sprintf("%s %s %.1f ms > %.1f ms", c.metric, s, v, c.limits[s])
			}
		}
	}
	return true, ""
}

// statOf returns the statistic ("mean" or "pNN") of vs; ok is false when vs is empty
// or the statistic unknown.
func statOf(vs []float64, stat string) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	if stat == "mean" {
		var sum float64
		for _, v := range vs {
			sum += v
		}
		return sum / float64(len(vs)), true
	}
	var q float64
	if _, err := fmt.Sscanf(strings.TrimPrefix(stat, "p"), "%g", &q); err != nil || q <= 0 || q > 100 {
		return 0, false
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	k := int(math.Ceil(q/100*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))], true
}

// readStepRecords reads runDir's records (rundir's reader and damage rule: the file may
// be mid-append) and groups them by step index, keeping only steps whose step segment is
// segment. A missing records.jsonl has none.
func readStepRecords(runDir, segment string) (map[int][]rundir.Record, error) {
	if _, err := os.Stat(filepath.Join(runDir, rundir.FileRecords)); os.IsNotExist(err) {
		return nil, nil
	}
	out := map[int][]rundir.Record{}
	_, err := rundir.EachRecord(runDir, func(r *rundir.Record) error {
		seg := r.StepSegment
		if seg == "" {
			seg = r.Segment
		}
		if seg == segment {
			out[r.Step] = append(out[r.Step], *r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rundir.FileRecords, err)
	}
	return out, nil
}
