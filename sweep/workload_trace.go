package sweep

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// traceRow is one request of a replayed trace, after scaling and caps.
type traceRow struct {
	offset  time.Duration // arrival time from the window's first row, time-scaled
	prompt  int           // prompt tokens
	output  int           // output tokens
	hashIDs []int64       // Mooncake 512-token prefix block ids
}

// traceData is the selected window of a trace.
type traceData struct {
	format string
	rows   []traceRow
	// blockWords is the words per hash-id block: 512 scaled by the prompt scale, so the
	// trace's prefix-sharing structure survives length scaling.
	blockWords int
}

// azureTimeLayout is the Azure trace's TIMESTAMP format ("2023-11-16 18:17:03.9799600").
const azureTimeLayout = "2006-01-02 15:04:05.9999999"

// loadTrace reads the window [StartRow, StartRow+Rows) of t's file (relative paths are
// resolved against base when not found as given), applying time and length scaling.
func loadTrace(t plan.Trace, base string) (*traceData, error) {
	path := t.File
	if _, err := os.Stat(path); err != nil && !filepath.IsAbs(path) && base != "" {
		path = filepath.Join(base, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	var raw []rawTraceRow
	switch t.Format {
	case plan.TraceMooncake:
		raw, err = readMooncake(f, t.StartRow, t.Rows)
	case plan.TraceAzure:
		raw, err = readAzure(f, t.StartRow, t.Rows)
	default:
		return nil, fmt.Errorf("unknown trace format %q", t.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("trace %s: no rows in window start_row=%d rows=%d", path, t.StartRow, t.Rows)
	}
	return scaleTrace(t, raw), nil
}

type rawTraceRow struct {
	atNs           int64
	prompt, output int
	hashIDs        []int64
}

func scaleTrace(t plan.Trace, raw []rawTraceRow) *traceData {
	ts, ps, os := orOne(t.TimeScale), orOne(t.PromptScale), orOne(t.OutputScale)
	td := &traceData{format: t.Format, rows: make([]traceRow, len(raw)),
		blockWords: max(int(math.Round(blockTokens*ps)), 1)}
	for i, r := range raw {
		row := traceRow{
			offset:  time.Duration(float64(r.atNs-raw[0].atNs) * ts),
			prompt:  scaleCap(r.prompt, ps, t.MaxPromptTokens),
			output:  scaleCap(r.output, os, t.MaxOutputTokens),
			hashIDs: r.hashIDs,
		}
		td.rows[i] = row
	}
	return td
}

func orOne(v float64) float64 {
	if v <= 0 {
		return 1
	}
	return v
}

func scaleCap(n int, scale float64, limit int) int {
	v := max(int(math.Round(float64(n)*scale)), 1)
	if limit > 0 && v > limit {
		v = limit
	}
	return v
}

func readMooncake(r io.Reader, start, rows int) ([]rawTraceRow, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []rawTraceRow
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
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, rawTraceRow{atNs: int64(v.Timestamp * 1e6), prompt: v.InputLength,
			output: v.OutputLength, hashIDs: v.HashIDs})
	}
	return out, sc.Err()
}

func readAzure(r io.Reader, start, rows int) ([]rawTraceRow, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	ti, ok1 := col["TIMESTAMP"]
	ci, ok2 := col["ContextTokens"]
	gi, ok3 := col["GeneratedTokens"]
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("header %q lacks TIMESTAMP, ContextTokens or GeneratedTokens", head)
	}
	var out []rawTraceRow
	for i := 0; rows <= 0 || len(out) < rows; i++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		if i < start {
			continue
		}
		at, err := time.Parse(azureTimeLayout, strings.TrimSpace(rec[ti]))
		if err != nil {
			return nil, fmt.Errorf("row %d: TIMESTAMP: %w", i, err)
		}
		c, err1 := strconv.Atoi(strings.TrimSpace(rec[ci]))
		g, err2 := strconv.Atoi(strings.TrimSpace(rec[gi]))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("row %d: bad token counts %q, %q", i, rec[ci], rec[gi])
		}
		out = append(out, rawTraceRow{atNs: at.UnixNano(), prompt: c, output: g})
	}
	return out, nil
}

// promptText builds row's prompt: for Mooncake rows, one deterministic block of
// blockWords words per hash id (equal ids give equal blocks, hence shared prefixes), cut
// or extended with unique words to the row's prompt tokens; otherwise unique words.
func (td *traceData) promptText(row traceRow, seed int64, r *rand.Rand) string {
	var b strings.Builder
	words := 0
	for _, id := range row.hashIDs {
		if words >= row.prompt {
			break
		}
		n := min(td.blockWords, row.prompt-words)
		appendWords(&b, seededRand(seed, 0xB10C, uint64(id)), n)
		words += n
	}
	appendWords(&b, r, row.prompt-words)
	return b.String()
}
