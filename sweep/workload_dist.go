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
	"sync"

	"github.com/llmcap/llmcap/plan"
)

// sampler draws one value (tokens, or seconds for think time) from a distribution.
type sampler interface {
	sample(r *rand.Rand) float64
}

type fixedSampler float64

func (f fixedSampler) sample(*rand.Rand) float64 { return float64(f) }

type uniformSampler struct{ lo, hi float64 }

func (u uniformSampler) sample(r *rand.Rand) float64 { return u.lo + r.Float64()*(u.hi-u.lo) }

// normalSampler draws N(mean, sd), or lognormal when logNormal (mu, sigma of the log),
// clamped to [min, max] when those are set (non-zero).
type normalSampler struct {
	mean, sd   float64
	logNormal  bool
	minV, maxV float64
}

func (n normalSampler) sample(r *rand.Rand) float64 {
	v := n.mean + n.sd*r.NormFloat64()
	if n.logNormal {
		v = math.Exp(v)
	}
	if n.minV != 0 && v < n.minV {
		v = n.minV
	}
	if n.maxV != 0 && v > n.maxV {
		v = n.maxV
	}
	return v
}

type empiricalSampler []float64

func (e empiricalSampler) sample(r *rand.Rand) float64 { return e[r.IntN(len(e))] }

// newSampler builds the sampler of d. An empty Kind with a Value is fixed. Errors name
// the field path (e.g. "segments[0].prompt_tokens").
func newSampler(d plan.Dist, path string) (sampler, error) {
	switch d.Kind {
	case plan.DistFixed, "":
		return fixedSampler(d.Value), nil
	case plan.DistUniform:
		if d.Max < d.Min {
			return nil, fmt.Errorf("%s: uniform max %g < min %g", path, d.Max, d.Min)
		}
		return uniformSampler{d.Min, d.Max}, nil
	case plan.DistNormal:
		return normalSampler{mean: d.Mean, sd: d.StdDev, minV: d.Min, maxV: d.Max}, nil
	case plan.DistLognormal:
		if d.Mean <= 0 {
			return nil, fmt.Errorf("%s: lognormal mean must be > 0, got %g", path, d.Mean)
		}
		// Parameters of the underlying normal from the mean and stddev of the values.
		s2 := math.Log(1 + d.StdDev*d.StdDev/(d.Mean*d.Mean))
		return normalSampler{mean: math.Log(d.Mean) - s2/2, sd: math.Sqrt(s2), logNormal: true,
			minV: d.Min, maxV: d.Max}, nil
	case plan.DistEmpirical:
		vals, err := loadColumn(d.File, d.Column)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return empiricalSampler(vals), nil
	}
	return nil, fmt.Errorf("%s: unknown distribution %q", path, d.Kind)
}

// tokensFrom draws a token count: rounded and clamped to [1, plan.MaxTokens] before
// the conversion to int, so a huge draw (an unclamped normal's tail, an empirical
// file's value) cannot wrap.
func tokensFrom(s sampler, r *rand.Rand) int {
	return int(math.Round(clampTokens(s.sample(r))))
}

// clampTokens clamps v to [1, plan.MaxTokens] (NaN becomes 1).
func clampTokens(v float64) float64 {
	if !(v >= 1) {
		return 1
	}
	return min(v, plan.MaxTokens)
}

var columnCache sync.Map // "file\x00column" → []float64

// loadColumn reads the numeric column of a CSV (by header name) or JSONL (by key) file.
// Results are cached per file and column.
func loadColumn(file, column string) ([]float64, error) {
	key := file + "\x00" + column
	if v, ok := columnCache.Load(key); ok {
		return v.([]float64), nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("empirical distribution: %w", err)
	}
	defer f.Close()
	var vals []float64
	if strings.EqualFold(filepath.Ext(file), ".jsonl") || strings.EqualFold(filepath.Ext(file), ".json") {
		vals, err = jsonlColumn(f, column)
	} else {
		vals, err = csvColumn(f, column)
	}
	if err != nil {
		return nil, fmt.Errorf("empirical distribution %s column %q: %w", file, column, err)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("empirical distribution %s column %q: no values", file, column)
	}
	columnCache.Store(key, vals)
	return vals, nil
}

func csvColumn(r io.Reader, column string) ([]float64, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	idx := -1
	for i, h := range head {
		if strings.TrimSpace(h) == column {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("no such column (have %s)", strings.Join(head, ","))
	}
	var vals []float64
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return vals, nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if idx >= len(rec) {
			return nil, fmt.Errorf("line %d: missing column", line)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[idx]), 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("line %d: %q is not a finite number", line, rec[idx])
		}
		vals = append(vals, v)
	}
}

func jsonlColumn(r io.Reader, column string) ([]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var vals []float64
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		raw, ok := obj[column]
		if !ok {
			return nil, fmt.Errorf("line %d: no key %q", line, column)
		}
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		vals = append(vals, v)
	}
	return vals, sc.Err()
}
