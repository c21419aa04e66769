package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// The tune report renders a tune directory (`llmcap tune`: tune.json, trials.jsonl,
// tune-result.json) for the people who act on it: page 1 is the recommendation (the
// tune package's answer sentence, as written), its exact launch command, the gain over
// the starting configuration and why the search stopped; after it, the Pareto front
// chart, every trial in a table, the failed trials' reasons and the search's plan. One
// file per format: tune_pdf.go, tune_html.go, tune_xlsx.go, tune_json.go and
// tune_chart.go; the words and tables they share are in tune_text.go.

// TuneFormats are the accepted tune report formats.
var TuneFormats = []string{"pdf", "html", "xlsx", "json", "charts"}

// Output file names of the tune report inside the tune directory (the chart's under
// DirCharts, as TuneChartName + ".svg" and ".png").
const (
	FileTunePDF   = "tune-report.pdf"
	FileTuneHTML  = "tune-report.html"
	FileTuneXLSX  = "tune-report.xlsx"
	FileTuneJSON  = "tune-report.json"
	TuneChartName = "tune-pareto"
)

// tuneOutputs are the files each tune format writes, relative to the tune directory.
var tuneOutputs = map[string][]string{
	"pdf": {FileTunePDF}, "html": {FileTuneHTML}, "xlsx": {FileTuneXLSX}, "json": {FileTuneJSON},
	"charts": {filepath.Join(DirCharts, TuneChartName+".svg"), filepath.Join(DirCharts, TuneChartName+".png")},
}

// WriteTune renders the tune directory dir's report in the given formats (any of pdf,
// html, xlsx, json, charts; nil = all), each written through rundir.WriteAtomic:
// tune-report.pdf, tune-report.html, tune-report.xlsx, tune-report.json,
// charts/tune-pareto.svg and .png. It reads the directory only through rundir
// (ReadTuneMeta, ReadTrials, ReadTuneResult) and returns the paths it wrote (the
// chart files first, then pdf, html, xlsx and json, as asked). The charts format writes nothing when no trial measured its
// configuration (there is nothing to plot; the other formats say so). Errors: an
// unknown format (before anything is read or written), a file of the directory that is
// missing or unreadable, or outputs that could not be written (joined; the other
// formats are still written and returned); each names the file.
// Stale temporary files a killed earlier write left next to the outputs are removed
// first (rundir.RemoveTemps).
func WriteTune(dir string, formats []string) ([]string, error) {
	want, err := tuneFormatSet(formats)
	if err != nil {
		return nil, err
	}
	in, err := readTuneInput(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range TuneFormats {
		for _, p := range tuneOutputs[f] {
			if want[f] {
				if _, err := rundir.RemoveTemps(filepath.Join(dir, p)); err != nil {
					return nil, fmt.Errorf("tune report %s: %w", f, err)
				}
			}
		}
	}
	var chart Chart
	if want["charts"] || want["pdf"] || want["html"] {
		chart = buildTuneChart(in)
	}
	var written []string
	var errs []error
	for _, f := range tuneWriteOrder {
		if !want[f] {
			continue
		}
		paths, err := writeTuneFormat(f, in, chart, written)
		if err != nil { // the other formats are still written
			errs = append(errs, fmt.Errorf("tune report %s: %w", f, err))
			continue
		}
		written = append(written, paths...)
	}
	return written, errors.Join(errs...)
}

// CheckTuneFormats reports an error naming an unknown tune report format (before a
// tune starts, so that a typo does not wait for its end).
func CheckTuneFormats(formats []string) error {
	_, err := tuneFormatSet(formats)
	return err
}

// tuneWriteOrder is the order WriteTune writes the formats in: the chart files first,
// so that tune-report.json lists those written.
var tuneWriteOrder = []string{"charts", "pdf", "html", "xlsx", "json"}

// writeTuneFormat writes one format and returns the paths it wrote; before are the
// paths written so far (the chart files, for the JSON report).
func writeTuneFormat(format string, in *tuneInput, chart Chart, before []string) ([]string, error) {
	path := filepath.Join(in.dir, tuneOutputs[format][0])
	var err error
	switch format {
	case "pdf":
		err = writeTunePDF(path, in, chart)
	case "html":
		err = writeTuneHTML(path, in, chart)
	case "xlsx":
		err = writeTuneXLSX(path, in)
	case "json":
		var charts []string
		for _, p := range before {
			if filepath.Dir(p) == filepath.Join(in.dir, DirCharts) {
				charts = append(charts, p)
			}
		}
		err = writeTuneJSON(path, in, charts)
	case "charts":
		return writeTuneChartFiles(in.dir, chart)
	}
	if err != nil {
		return nil, err
	}
	return []string{path}, nil
}

// tuneFormatSet turns a format list into a set; nil or empty means every format.
// Errors: a format that is not one of TuneFormats.
func tuneFormatSet(formats []string) (map[string]bool, error) {
	return formatSet(formats, TuneFormats, "tune report", nil)
}

// tuneInput is a tune directory read for its report.
type tuneInput struct {
	dir    string
	meta   *rundir.TuneMeta
	result *rundir.TuneResult
	// tune is the plan's tune section (zero when tune.json has none).
	tune plan.Tune
	// trials are trials.jsonl's, in trial-number order; damage is what its reading
	// skipped.
	trials []rundir.Trial
	damage rundir.Damage
	// params are the parameter names, the space's in order, then any other a trial
	// holds (sorted); objectives are the result's objectives, else the plan's.
	params     []string
	objectives []plan.TuneObjective
	front      map[int]bool
}

// readTuneInput reads tune.json, trials.jsonl and tune-result.json. Errors: dir is not
// a directory, or a file is missing or corrupt (each error names its file).
func readTuneInput(dir string) (*tuneInput, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("tune report: tune directory %q: not a directory", dir)
	}
	meta, err := rundir.ReadTuneMeta(dir)
	if err != nil {
		return nil, fmt.Errorf("tune report: %w", err)
	}
	res, err := rundir.ReadTuneResult(dir)
	if err != nil {
		return nil, fmt.Errorf("tune report: %w", err)
	}
	trials, dmg, err := rundir.ReadTrials(dir)
	if err != nil {
		return nil, fmt.Errorf("tune report: %w", err)
	}
	sort.SliceStable(trials, func(i, j int) bool { return trials[i].Trial < trials[j].Trial })
	in := &tuneInput{dir: dir, meta: meta, result: res, trials: trials, damage: dmg, front: map[int]bool{}}
	if meta.Plan.Tune != nil {
		in.tune = *meta.Plan.Tune
	}
	in.objectives = res.Objectives
	if len(in.objectives) == 0 {
		in.objectives = in.tune.Objectives
	}
	for _, n := range res.Front {
		in.front[n] = true
	}
	in.params = tuneParamNames(in.tune.Space, trials)
	return in, nil
}

// tuneParamNames are the space's parameter names in order, then the names of any
// other parameter a trial holds, sorted.
func tuneParamNames(space []plan.TuneParam, trials []rundir.Trial) []string {
	var out []string
	for _, sp := range space {
		out = append(out, sp.Name)
	}
	var extra []string
	for _, t := range trials {
		for k := range t.Params {
			if !slices.Contains(out, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// trial is trial number n (nil when trials.jsonl has none such).
func (in *tuneInput) trial(n int) *rundir.Trial {
	for i := range in.trials {
		if in.trials[i].Trial == n {
			return &in.trials[i]
		}
	}
	return nil
}

// mainMetric is the main objective's metric (Objectives[0]; the ladder's capacity
// metric when the plan names none).
func (in *tuneInput) mainMetric() string {
	if len(in.objectives) > 0 {
		return in.objectives[0].Metric
	}
	return in.meta.Plan.Ladder.CapacityMetric()
}

// capacityMetric is what a trial's Capacity counts: users or concurrency.
func (in *tuneInput) capacityMetric() string { return in.meta.Plan.Ladder.CapacityMetric() }
