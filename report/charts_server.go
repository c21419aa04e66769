package report

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/llmcap/llmcap/sweep"
)

// Server metric names (vLLM, then llama.cpp) read for the server charts.
var (
	metricRunning = []string{"vllm:num_requests_running", "llamacpp:requests_processing"}
	metricWaiting = []string{"vllm:num_requests_waiting", "llamacpp:requests_deferred"}
	metricKV      = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "llamacpp:kv_cache_usage_ratio"}
)

// metricValue sums the series of the first name in names present in values, matching
// "name" and "name{labels}". ok is false when none is present.
func metricValue(values map[string]float64, names []string) (float64, bool) {
	for _, name := range names {
		sum, found := 0.0, false
		for k, v := range values {
			base, _, _ := strings.Cut(k, "{")
			if base == name && finite(v) {
				sum, found = sum+v, true
			}
		}
		if found {
			return sum, true
		}
	}
	return 0, false
}

// firstURLSamples keeps the samples of the first scraped endpoint (one line per series).
func firstURLSamples(samples []sweep.MetricSample) []sweep.MetricSample {
	if len(samples) == 0 {
		return nil
	}
	url := samples[0].URL
	var out []sweep.MetricSample
	for _, s := range samples {
		if s.URL == url {
			out = append(out, s)
		}
	}
	return out
}

// serverSeries extracts one time series (x: seconds since the first sample).
func serverSeries(samples []sweep.MetricSample, names []string, scale float64) plotter.XYs {
	var pts plotter.XYs
	if len(samples) == 0 {
		return nil
	}
	t0 := samples[0].TimeNs
	for _, s := range samples {
		if v, ok := metricValue(s.Values, names); ok {
			pts = append(pts, plotter.XY{X: float64(s.TimeNs-t0) / 1e9, Y: v * scale})
		}
	}
	return pts
}

// shadeSteps adds alternating background bands for each step's time span (Step ≥ 0),
// from y = 0 to yMax, before the series so they are drawn underneath.
func shadeSteps(p *plot.Plot, samples []sweep.MetricSample, yMax float64) error {
	if len(samples) == 0 || !(yMax > 0) {
		return nil
	}
	t0 := samples[0].TimeNs
	band := 0
	for i := 0; i < len(samples); {
		j := i
		for j+1 < len(samples) && samples[j+1].Step == samples[i].Step {
			j++
		}
		if samples[i].Step >= 0 && j > i {
			x0, x1 := float64(samples[i].TimeNs-t0)/1e9, float64(samples[j].TimeNs-t0)/1e9
			poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: yMax}, {X: x0, Y: yMax}})
			if err != nil {
				return fmt.Errorf("step band: %w", err)
			}
			poly.Color, poly.LineStyle.Width = shadeCols[band%len(shadeCols)], 0
			p.Add(poly)
			band++
		}
		i = j + 1
	}
	return nil
}

// ServerQueuePlot is the server's running and waiting requests over time, with the
// sweep's steps shaded (from server-metrics.jsonl, first endpoint only).
func ServerQueuePlot(samples []sweep.MetricSample) (*plot.Plot, error) {
	s := firstURLSamples(samples)
	running := serverSeries(s, metricRunning, 1)
	waiting := serverSeries(s, metricWaiting, 1)
	if len(running)+len(waiting) == 0 {
		return nil, fmt.Errorf("server metrics: no running/waiting request gauges")
	}
	p := newPlot("Server queue (steps shaded)", "time since first scrape (s)", "requests")
	if err := shadeSteps(p, s, 1.05*maxY(running, waiting)); err != nil {
		return nil, err
	}
	if err := addPlainLine(p, "running", running, 0, nil); err != nil {
		return nil, err
	}
	if err := addPlainLine(p, "waiting (queued)", waiting, 3, nil); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	return p, nil
}

// ServerKVPlot is the server's KV cache usage (%) over time with the steps shaded.
func ServerKVPlot(samples []sweep.MetricSample) (*plot.Plot, error) {
	s := firstURLSamples(samples)
	kv := serverSeries(s, metricKV, 100)
	if len(kv) == 0 {
		return nil, fmt.Errorf("server metrics: no KV cache usage gauge")
	}
	p := newPlot("KV cache usage (steps shaded)", "time since first scrape (s)", "KV cache usage (%)")
	if err := shadeSteps(p, s, 100); err != nil {
		return nil, err
	}
	if err := addPlainLine(p, "KV cache usage", kv, 4, nil); err != nil {
		return nil, err
	}
	p.Y.Min, p.Y.Max = 0, 100
	return p, nil
}

// maxY is the largest finite y over the series (0 when empty).
func maxY(series ...plotter.XYs) float64 {
	m := 0.0
	for _, s := range series {
		for _, pt := range s {
			if finite(pt.Y) {
				m = math.Max(m, pt.Y)
			}
		}
	}
	return m
}
