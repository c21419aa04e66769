package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// TestTuneJSONRoundTrips: tune-report.json decodes into TuneJSONReport with the result
// and the trials equal to what rundir reads from the directory, page 1's words, and
// the chart files written with it; encoding the decoded report again gives the same
// bytes (stable field names and order).
func TestTuneJSONRoundTrips(t *testing.T) {
	lowDPI(t)
	dir := writeTuneFixture(t)
	if _, err := WriteTune(dir, []string{"json", "charts"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileTuneJSON))
	if err != nil {
		t.Fatal(err)
	}
	var got TuneJSONReport
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	res, err := rundir.ReadTuneResult(dir)
	if err != nil {
		t.Fatal(err)
	}
	trials, _, err := rundir.ReadTrials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Result, *res) {
		t.Errorf("result %+v, want %+v", got.Result, *res)
	}
	if !reflect.DeepEqual(got.Trials, trials) {
		t.Errorf("trials differ from trials.jsonl:\n%+v\n%+v", got.Trials, trials)
	}
	s := got.Summary
	if s.Answer != tuneFixtureAnswer || s.Gain != "+38% users over the starting configuration" || s.Trials != 10 || s.OK != 8 || s.Failed != 2 ||
		s.CommandLine != tuneCommandText(res.Command, res.Env) {
		t.Errorf("summary %+v", s)
	}
	if want := []string{"charts/tune-pareto.svg", "charts/tune-pareto.png"}; !slices.Equal(got.Charts, want) {
		t.Errorf("charts %v, want %v", got.Charts, want)
	}
	if got.Tune == nil || len(got.Tune.Space) != 3 || got.Tune.TargetLoad != 32 || !got.StartedAt.Equal(tuneFixtureStart) {
		t.Errorf("tune section %+v, started %v", got.Tune, got.StartedAt)
	}
	again, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(again, '\n'), b) {
		t.Errorf("re-encoding the decoded report changed it:\n%s\n---\n%s", again, b)
	}
}
