package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/rundir"

	"github.com/xuri/excelize/v2"
)

// maxServerColumns bounds the ServerMetrics sheet's metric columns.
const maxServerColumns = 60

// streamSheet writes header and rows with a StreamWriter: column widths and number
// formats first (after its print setup, printTable), a frozen header, rows, then one
// filterable table. rows is called with an emit function that writes one row (values
// in column order). A non-empty note is a bold first row above the header (the table
// then starts on row 2).
func streamSheet(f *excelize.File, sheet, tableName string, st styles, cols []sheetColumn, note string, rows func(emit func([]any) error) error) error {
	if err := printTable(f, sheet); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return fmt.Errorf("%s: %w", sheet, err)
	}
	for i, c := range cols {
		if err := sw.SetColWidth(i+1, i+1, c.width); err != nil {
			return err
		}
		if c.style != 0 {
			if err := sw.SetColStyle(i+1, i+1, c.style); err != nil {
				return err
			}
		}
	}
	top := 1 // the header's row
	if note != "" {
		top = 2
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: top, TopLeftCell: cellName(1, top+1, false), ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if note != "" {
		if err := sw.SetRow("A1", []any{excelize.Cell{StyleID: st.bold, Value: note}}); err != nil {
			return err
		}
	}
	hdr := make([]any, len(cols))
	for i, c := range cols {
		hdr[i] = excelize.Cell{StyleID: st.header, Value: c.header}
	}
	if err := sw.SetRow(cellName(1, top, false), hdr); err != nil {
		return err
	}
	r := top
	err = rows(func(vals []any) error {
		r++
		return sw.SetRow(cellName(1, r, false), vals)
	})
	if err != nil {
		return fmt.Errorf("%s row %d: %w", sheet, r, err)
	}
	if r == top { // a table needs a data row
		r++
		if err := sw.SetRow(cellName(1, r, false), []any{nil}); err != nil {
			return err
		}
	}
	if err := sw.AddTable(&excelize.Table{Range: cellName(1, top, false) + ":" + cellName(len(cols), r, false), Name: tableName, StyleName: "TableStyleLight9"}); err != nil {
		return fmt.Errorf("%s table: %w", sheet, err)
	}
	return sw.Flush()
}

// requestColumns are the Requests sheet's columns, in requestRow order.
func requestColumns(st styles) []sheetColumn {
	return []sheetColumn{
		{"segment", 0, 14}, {"step segment", 0, 14}, {"step", 0, 6}, {"concurrency", 0, 11}, {"rate (req/s)", st.num2, 10},
		{"phase", 0, 9}, {"request id", 0, 14}, {"session id", 0, 14}, {"turn", 0, 6}, {"sent (s since run start)", st.secs, 14},
		{"TTFT (ms)", st.ms, 11}, {"TTFO (ms)", st.ms, 11}, {"ITL (ms)", st.ms, 10}, {"E2E (ms)", st.ms, 11},
		{"prompt tokens", st.int0, 10}, {"output tokens", st.int0, 10}, {"reasoning tokens", st.int0, 10},
		{"intended prompt tokens", st.int0, 10}, {"intended output tokens", st.int0, 10}, {"tokens source", 0, 9},
		{"finish reason", 0, 9}, {"status", 0, 7}, {"error class", 0, 16}, {"HTTP status", 0, 8}, {"error", 0, 30},
	}
}

// writeRequestsSheet streams records.jsonl (eachRequest), one row per request, or,
// above in.xlsxMaxRows requests, the sample rowSample states in a note row above the
// table (and the Summary sheet, requestsSampleNote). everyRow (nil: none) is called with
// every request's row, kept on the sheet or not.
func writeRequestsSheet(f *excelize.File, st styles, in *input, everyRow func([]any) error) error {
	smp := sampleRows(in.requests.perStep, in.xlsxMaxRows)
	note := ""
	if smp.sampled() {
		note = smp.note(in.xlsxMaxRows)
	}
	vals := make([]any, len(requestColumns(st)))
	return streamSheet(f, SheetRequests, "RequestsTable", st, requestColumns(st), note, func(emit func([]any) error) error {
		seen := make(map[int]int, len(in.requests.perStep))
		return in.eachRequest(func(r *rundir.Record) error {
			i := seen[r.Step]
			seen[r.Step] = i + 1
			keep := smp.keep(i)
			if !keep && everyRow == nil {
				return nil
			}
			requestRow(vals, r, in.requests.firstSentNs)
			if everyRow != nil {
				if err := everyRow(vals); err != nil {
					return err
				}
			}
			if !keep {
				return nil
			}
			return emit(vals)
		})
	})
}

// requestsSampleNote is the Requests sheet's sample sentence for the Summary sheet; ""
// when the sheet has every request.
func requestsSampleNote(in *input) string {
	if smp := sampleRows(in.requests.perStep, in.xlsxMaxRows); smp.sampled() {
		return SheetRequests + " sheet: " + smp.note(in.xlsxMaxRows)
	}
	return ""
}

// requestRow fills vals with one record's cells (nil for undefined latencies).
func requestRow(vals []any, r *rundir.Record, t0 int64) {
	ptr := func(p *float64) any {
		if p == nil || !finite(*p) {
			return nil
		}
		return *p
	}
	var sent any
	if r.SentNs > 0 {
		sent = float64(r.SentNs-t0) / 1e9
	}
	var rate, http any
	if r.Rate > 0 {
		rate = r.Rate
	}
	if r.HTTPStatus != 0 {
		http = r.HTTPStatus
	}
	copy(vals, []any{r.Segment, stepSegment(r), stepNumber(r.Step), r.Concurrency, rate, r.Phase, r.RequestID, r.SessionID, r.Turn, sent,
		ptr(r.TTFTMs), ptr(r.TTFOMs), ptr(r.ITLMs), ptr(r.E2EMs), r.PromptTokens, r.OutputTokens, r.ReasoningTokens,
		r.IntendedPromptTokens, r.IntendedOutputTokens, r.TokensSource, r.FinishReason, r.Status, r.ErrorClass, http, r.Error})
}

// serverMetricNames lists the metric keys to tabulate: every key except histogram
// buckets, sorted, at most maxServerColumns. When the cap bites, the keys that rundir's
// server-metric table reads (running, waiting, KV cache usage, ...) are kept first.
func serverMetricNames(samples []rundir.MetricSample) []string {
	seen := map[string]bool{}
	for _, s := range samples {
		for k := range s.Values {
			base, _, _ := strings.Cut(k, "{")
			if !strings.HasSuffix(base, "_bucket") {
				seen[k] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) <= maxServerColumns {
		return names
	}
	read := func(k string) bool { _, ok := rundir.ServerMetricOf(k); return ok }
	kept := make([]string, 0, maxServerColumns)
	for _, k := range names {
		if read(k) && len(kept) < maxServerColumns {
			kept = append(kept, k)
		}
	}
	for _, k := range names {
		if !read(k) && len(kept) < maxServerColumns {
			kept = append(kept, k)
		}
	}
	slices.Sort(kept)
	return kept
}

// writeServerSheet streams server-metrics.jsonl: one row per scrape, one column per metric.
func writeServerSheet(f *excelize.File, st styles, samples []rundir.MetricSample) error {
	names := serverMetricNames(samples)
	cols := []sheetColumn{{"time (s since first scrape)", st.secs, 14}, {"step", 0, 6}, {"endpoint", 0, 30}}
	for _, n := range names {
		cols = append(cols, sheetColumn{n, st.num3, 18})
	}
	var t0 int64
	if len(samples) > 0 {
		t0 = samples[0].TimeNs
	}
	vals := make([]any, len(cols))
	return streamSheet(f, SheetServer, "ServerMetricsTable", st, cols, "", func(emit func([]any) error) error {
		for _, s := range samples {
			vals[0], vals[1], vals[2] = float64(s.TimeNs-t0)/1e9, nil, s.URL
			if s.Step >= 0 { // empty between steps
				vals[1] = stepNumber(s.Step)
			}
			for i, n := range names {
				v, ok := s.Values[n]
				vals[3+i] = nil
				if ok && finite(v) {
					vals[3+i] = v
				}
			}
			if err := emit(vals); err != nil {
				return err
			}
		}
		return nil
	})
}
