package profiles

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// StatRow is one row of an `nsys stats` summary table (rundir owns the type: osrt.json
// holds them).
type StatRow = rundir.StatRow

// ParseError is a malformed stats table: Line is 1-based in the CSV.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("nsys stats csv: line %d: %s", e.Line, e.Msg) }

// column keys after header normalisation.
const (
	colTimePct = "time%"
	colTotal   = "total"
	colCount   = "count"
	colAvg     = "avg"
	colMed     = "med"
	colMin     = "min"
	colMax     = "max"
	colStdDev  = "stddev"
	colName    = "name"
)

// headerKey maps a column header of any nsys generation to a column key, or "".
// New (2022.x+): "Time (%)", "Total Time (ns)", "Instances"/"Num Calls", "Avg (ns)",
// "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"; older (2020–2021):
// "Time(%)", "Total Time (ns)"/"Total Time", "Instances"/"Calls", "Average", "Median",
// "Minimum", "Maximum", "StdDev".
func headerKey(h string) string {
	k := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
	k = strings.NewReplacer(" ", "", "(ns)", "", "_", "").Replace(k)
	switch k {
	case "time(%)", "time%":
		return colTimePct
	case "totaltime":
		return colTotal
	case "instances", "numcalls", "calls", "count":
		return colCount
	case "avg", "average", "mean":
		return colAvg
	case "med", "median":
		return colMed
	case "min", "minimum":
		return colMin
	case "max", "maximum":
		return colMax
	case "stddev", "stdev":
		return colStdDev
	case "name", "operation":
		return colName
	}
	return ""
}

// ParseStatsCSV reads one `nsys stats --format csv` table. Lines before the header (a
// title some versions print) are skipped; unknown columns (GridXYZ, BlockXYZ…) are
// ignored. An empty input (a report nsys skipped for lack of data) gives no rows and no
// error. Errors are *ParseError with the line.
func ParseStatsCSV(r io.Reader) ([]StatRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	var cols map[string]int
	var rows []StatRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, &ParseError{Line: line, Msg: err.Error()}
		}
		if cols == nil {
			cols = headerColumns(rec)
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		row, err := parseStatRow(rec, cols)
		if err != nil {
			return nil, &ParseError{Line: line, Msg: err.Error()}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// headerColumns returns key → index when rec is a stats header (it names at least the
// total time and the name), else nil.
func headerColumns(rec []string) map[string]int {
	cols := map[string]int{}
	for i, h := range rec {
		if k := headerKey(h); k != "" {
			if _, dup := cols[k]; !dup {
				cols[k] = i
			}
		}
	}
	if _, ok := cols[colTotal]; !ok {
		return nil
	}
	if _, ok := cols[colName]; !ok {
		return nil
	}
	return cols
}

// parseStatRow converts one data record.
func parseStatRow(rec []string, cols map[string]int) (StatRow, error) {
	get := func(k string) (float64, error) {
		i, ok := cols[k]
		if !ok || i >= len(rec) {
			return 0, nil
		}
		s := strings.TrimSpace(strings.ReplaceAll(rec[i], ",", ""))
		if s == "" {
			return 0, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("column %d: bad number %q", i+1, rec[i])
		}
		return v, nil
	}
	var row StatRow
	if i := cols[colName]; i < len(rec) {
		row.Name = strings.TrimSpace(rec[i])
	}
	if row.Name == "" {
		return row, errors.New("empty name")
	}
	vals := map[string]*float64{colTimePct: &row.TimePct, colAvg: &row.AvgNs, colMed: &row.MedNs,
		colMin: &row.MinNs, colMax: &row.MaxNs, colStdDev: &row.StdDevNs}
	for k, p := range vals {
		v, err := get(k)
		if err != nil {
			return row, err
		}
		*p = v
	}
	total, err := get(colTotal)
	if err != nil {
		return row, err
	}
	count, err := get(colCount)
	if err != nil {
		return row, err
	}
	if total < 0 || count < 0 {
		return row, errors.New("negative total time or count")
	}
	row.TotalNs, row.Count = int64(math.Round(total)), int64(math.Round(count))
	return row, nil
}

// ReadStatsCSV parses the table in the file at path.
func ReadStatsCSV(path string) ([]StatRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := ParseStatsCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// MergeByName merges rows with the same Name (2022.x's gpukernsum has one row per
// kernel and grid/block shape): totals and counts add, min/max widen, the average is
// recomputed, and the median and standard deviation become instance-weighted means (an
// approximation). The result is sorted by TotalNs, largest first, and TimePct is
// recomputed over the merged table.
func MergeByName(rows []StatRow) []StatRow {
	idx := map[string]int{}
	var out []StatRow
	for _, r := range rows {
		i, ok := idx[r.Name]
		if !ok {
			idx[r.Name] = len(out)
			out = append(out, r)
			continue
		}
		m := &out[i]
		n0, n1 := float64(m.Count), float64(r.Count)
		if n0+n1 > 0 {
			m.MedNs = (m.MedNs*n0 + r.MedNs*n1) / (n0 + n1)
			m.StdDevNs = (m.StdDevNs*n0 + r.StdDevNs*n1) / (n0 + n1)
		}
		m.MinNs, m.MaxNs = math.Min(m.MinNs, r.MinNs), math.Max(m.MaxNs, r.MaxNs)
		m.TotalNs += r.TotalNs
		m.Count += r.Count
	}
	var total int64
	for i := range out {
		if out[i].Count > 0 {
			out[i].AvgNs = float64(out[i].TotalNs) / float64(out[i].Count)
		}
		total += out[i].TotalNs
	}
	for i := range out {
		if total > 0 {
			out[i].TimePct = 100 * float64(out[i].TotalNs) / float64(total)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].TotalNs > out[b].TotalNs })
	return out
}
