package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// JSONReport is report.json: the analysis plus the chart files written next to it.
type JSONReport struct {
	// Analysis is the analysis the report was rendered from (analysis.json's content).
	Analysis *analysis.Analysis `json:"analysis"`
	// RunDate is the run's start (RFC 3339, UTC); empty when unknown.
	RunDate string `json:"run_date,omitempty"`
	// Charts are chart file paths relative to the run directory (SVG and PNG).
	Charts []string `json:"charts"`
	// Records is the number of request records read from records.jsonl.
	Records int `json:"records"`
}

// writeJSON writes report.json (indented, stable field order).
func writeJSON(path string, in *input, charts []string) error {
	r := JSONReport{Analysis: in.a, Charts: charts, Records: in.requests.count}
	if r.Charts == nil {
		r.Charts = []string{}
	}
	if !in.date.IsZero() {
		r.RunDate = in.date.Format("2006-01-02T15:04:05Z07:00")
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		// encoding/json rejects NaN and ±Inf: write them as null instead.
		r.Analysis = finiteCopy(reflect.ValueOf(in.a)).Interface().(*analysis.Analysis)
		if b, err = json.MarshalIndent(r, "", "  "); err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		b = bytes.ReplaceAll(b, []byte(nonFiniteSentinelJSON), []byte("null"))
	}
	return rundir.WriteFileAtomic(path, append(b, '\n'))
}

// nonFiniteSentinel stands in for NaN/±Inf while encoding; its JSON text is then
// replaced by null. No measured quantity has this value.
const (
	nonFiniteSentinel     = -1.234567890123e-300
	nonFiniteSentinelJSON = "-1.234567890123e-300"
)

// finiteCopy deep-copies v, replacing non-finite float64s by nonFiniteSentinel.
func finiteCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		out := reflect.New(v.Type()).Elem()
		f := v.Float()
		if !finite(f) {
			f = nonFiniteSentinel
		}
		out.SetFloat(f)
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(finiteCopy(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(finiteCopy(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(finiteCopy(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), finiteCopy(it.Value()))
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(finiteCopy(v.Elem()))
		return out
	}
	return v
}
