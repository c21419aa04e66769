// Package tracefile reads real request traces (Mooncake JSONL, Azure LLM inference CSV)
// into arrival offsets and token lengths. plan reads them for its wall-time estimates
// and the sweep for replay, so there is one reader of each format.
package tracefile

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Trace formats.
const (
	FormatMooncake = "mooncake" // JSONL: timestamp (ms), input_length, output_length, hash_ids
	FormatAzure    = "azure"    // CSV: TIMESTAMP, ContextTokens, GeneratedTokens
)

// MaxTokens bounds a request's prompt or output tokens: a trace row with more is
// refused, and scaling clamps to it, so no float→int conversion wraps. 10 M tokens is
// longer than any model's context today.
const MaxTokens = 10_000_000

// BlockTokens is the size of a Mooncake prefix block: hash_ids name 512-token blocks.
const BlockTokens = 512

// AzureTimeLayout is the Azure trace's TIMESTAMP format ("2023-11-16 18:17:03.9799600").
const AzureTimeLayout = "2006-01-02 15:04:05.9999999"

// MaxAtNs bounds a row's arrival time: 0 ≤ AtNs < MaxAtNs (2^62 ns, about 146 years
// after the Unix epoch or a Mooncake trace's start), so that the gap between any two
// rows, and the wall-time estimate from it, fits a time.Duration.
const MaxAtNs = 1 << 62

// Raw is one trace row as read: arrival time (unix ns), prompt and output tokens, the
// Mooncake prefix block ids (nil for Azure) and the file line it came from (1-based,
// as error messages name it).
type Raw struct {
	AtNs           int64
	Prompt, Output int
	HashIDs        []int64
	Line           int
}

// Row is one request of a replayed trace after scaling and caps.
type Row struct {
	Offset  time.Duration // arrival time from the window's first row, time-scaled
	Prompt  int           // prompt tokens (≥ 1)
	Output  int           // output tokens (≥ 1)
	HashIDs []int64       // Mooncake 512-token prefix block ids
}

// Scale stretches a trace: Time multiplies inter-arrival gaps, Prompt and Output token
// lengths (0 means 1); MaxPrompt and MaxOutput cap lengths after scaling (0 = no cap).
type Scale struct {
	Time, Prompt, Output float64
	MaxPrompt, MaxOutput int
}

// Read reads the data rows [start, start+rows) of the trace file at path (rows 0 = to
// the end; 0-based rows after any header). Errors: an unknown format, an unreadable
// file, a malformed row, rows out of time order, a negative token count or one above
// MaxTokens (each named by its 1-based file line), or an empty window.
func Read(format, path string, start, rows int) ([]Raw, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	var raw []Raw
	var total int // data rows read; all of the file's when the window is empty
	switch format {
	case FormatMooncake:
		raw, total, err = readMooncake(f, start, rows)
	case FormatAzure:
		raw, total, err = readAzure(f, start, rows)
	default:
		return nil, fmt.Errorf("unknown trace format %q", format)
	}
	if err == nil {
		err = checkRows(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("trace %s: no rows in window start_row=%d rows=%d (the file has %d data rows; start_row counts from 0)",
			path, start, rows, total)
	}
	return raw, nil
}

// Apply scales raw rows: offsets from the first row times Time, lengths times
// Prompt/Output rounded (at least 1) and capped.
func (s Scale) Apply(raw []Raw) []Row {
	ts, ps, os := orOne(s.Time), orOne(s.Prompt), orOne(s.Output)
	out := make([]Row, len(raw))
	for i, r := range raw {
		out[i] = Row{
			Offset:  time.Duration(float64(r.AtNs-raw[0].AtNs) * ts),
			Prompt:  scaleCap(r.Prompt, ps, s.MaxPrompt),
			Output:  scaleCap(r.Output, os, s.MaxOutput),
			HashIDs: r.HashIDs,
		}
	}
	return out
}

// BlockWords is the words per prefix block after prompt scaling (at least 1), so a
// Mooncake trace's prefix-sharing structure survives length scaling.
func (s Scale) BlockWords() int { return max(int(math.Round(BlockTokens*orOne(s.Prompt))), 1) }

func orOne(v float64) float64 {
	if v <= 0 {
		return 1
	}
	return v
}

// scaleCap is n × scale rounded, clamped to [1, MaxTokens] before the conversion to
// int, then capped at limit (0 = no cap).
func scaleCap(n int, scale float64, limit int) int {
	v := int(math.Round(min(max(float64(n)*scale, 1), MaxTokens)))
	if limit > 0 && v > limit {
		v = limit
	}
	return v
}

func readMooncake(r io.Reader, start, rows int) ([]Raw, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []Raw
	idx := 0
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		i := idx
		idx++
		if i < start {
			continue
		}
		if rows > 0 && len(out) >= rows {
			break
		}
		var v struct {
			Timestamp    float64 `json:"timestamp"`
			InputLength  int     `json:"input_length"`
			OutputLength int     `json:"output_length"`
			HashIDs      []int64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, idx, fmt.Errorf("line %d: %w", line, err)
		}
		if ns := v.Timestamp * 1e6; !(ns >= 0 && ns < MaxAtNs) { // also NaN
			return nil, idx, fmt.Errorf("line %d: timestamp %g ms is out of range (must be >= 0 and < %.4g ms)", line, v.Timestamp, MaxAtNs/1e6)
		}
		out = append(out, Raw{AtNs: int64(v.Timestamp * 1e6), Prompt: v.InputLength,
			Output: v.OutputLength, HashIDs: v.HashIDs, Line: line})
	}
	return out, idx, sc.Err()
}

func readAzure(r io.Reader, start, rows int) ([]Raw, int, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	head, err := cr.Read()
	if err != nil {
		return nil, 0, fmt.Errorf("read header (line 1): %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	ti, ok1 := col["TIMESTAMP"]
	ci, ok2 := col["ContextTokens"]
	gi, ok3 := col["GeneratedTokens"]
	if !ok1 || !ok2 || !ok3 {
		return nil, 0, fmt.Errorf("header (line 1) %q lacks TIMESTAMP, ContextTokens or GeneratedTokens", head)
	}
	var out []Raw
	i := 0
	for ; rows <= 0 || len(out) < rows; i++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, i, err // a *csv.ParseError names its line
		}
		if i < start {
			continue
		}
		line, _ := cr.FieldPos(0)
		at, err := time.Parse(AzureTimeLayout, strings.TrimSpace(rec[ti]))
		if err != nil {
			return nil, i, fmt.Errorf("line %d: TIMESTAMP: %w", line, err)
		}
		if at.Before(time.Unix(0, 0)) || !at.Before(time.Unix(0, MaxAtNs)) {
			return nil, i, fmt.Errorf("line %d: TIMESTAMP %s is out of range (must be from %s to before %s)", line,
				strings.TrimSpace(rec[ti]), time.Unix(0, 0).UTC().Format(AzureTimeLayout), time.Unix(0, MaxAtNs).UTC().Format(AzureTimeLayout))
		}
		c, err1 := strconv.Atoi(strings.TrimSpace(rec[ci]))
		g, err2 := strconv.Atoi(strings.TrimSpace(rec[gi]))
		if err1 != nil || err2 != nil {
			return nil, i, fmt.Errorf("line %d: ContextTokens %q and GeneratedTokens %q must be integers", line, rec[ci], rec[gi])
		}
		out = append(out, Raw{AtNs: at.UnixNano(), Prompt: c, Output: g, Line: line})
	}
	return out, i, nil
}
