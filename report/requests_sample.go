package report

import (
	"fmt"
	"sort"
)

// rowSample is the Requests sheet's sample rule: every stride-th request of each step
// (the 1st, the (stride+1)-th, ... in records.jsonl order), so every step keeps rows.
// stride 1 keeps every request.
type rowSample struct {
	// stride is k; kept and total count the sheet's rows and the run's requests.
	stride, kept, total int
}

// sampleRows is the smallest stride whose rows fit in limit (≥ 1), from the requests
// per step: Σ⌈n/k⌉ ≤ limit. When even one row per step is more than limit (more steps
// than limit), each step keeps one row.
func sampleRows(perStep map[int]int, limit int) rowSample {
	total, most := 0, 0
	for _, n := range perStep {
		total += n
		most = max(most, n)
	}
	rows := func(k int) int {
		r := 0
		for _, n := range perStep {
			r += (n + k - 1) / k
		}
		return r
	}
	if total <= limit {
		return rowSample{stride: 1, kept: total, total: total}
	}
	// rows is non-increasing in k; the smallest fitting k is in [2, most].
	k := 2 + sort.Search(max(most-1, 0), func(i int) bool { return rows(2+i) <= limit })
	k = min(k, max(most, 1))
	return rowSample{stride: k, kept: rows(k), total: total}
}

// keep reports whether a step's i-th request (0-based, file order) is on the sheet.
func (s rowSample) keep(i int) bool { return i%s.stride == 0 }

// sampled reports whether the sheet leaves requests out.
func (s rowSample) sampled() bool { return s.kept < s.total }

// note is the sentence on the sheet and the Summary when sampled: how many rows of
// how many requests, the rule, the limit and where every row is.
func (s rowSample) note(limit int) string {
	return fmt.Sprintf("Sample of %d of %d requests: every %s request of each step, in records.jsonl order "+
		"(more than report.xlsx_max_rows = %d). Every request is a row of %s.",
		s.kept, s.total, ordinal(s.stride), limit, FileRecordsCSV)
}

// ordinal is "2nd", "3rd", "11th", "21st", ...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
