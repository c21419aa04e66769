package plan

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTuneObjectivesDefaultDirections: an objective without a direction gets its
// metric's default: users and concurrency maximised, the others minimised.
func TestTuneObjectivesDefaultDirections(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "tune.yaml")
	yaml := `target: {model: llama-3.1-8b}
ladder:
  search: {over: users, start: 8, max: 64}
sla: {ttft_ms: {p95: 500}, think_time: 5s}
tune:
  launch: {command: ["{llmcap}", serve-sim, --addr, "127.0.0.1:{port}", --max-num-seqs, "{max_num_seqs}"]}
  space: [{name: max_num_seqs, type: int, min: 8, max: 64}]
  objectives: [{metric: users}, {metric: peak_rss_mib}, {metric: ttft_p95_at_target_ms}]
  target_load: 16
`
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{TuneMaximize, TuneMinimize, TuneMinimize}
	for i, o := range p.Tune.Objectives {
		if o.Direction != want[i] {
			t.Errorf("objective %s: direction %q, want %q", o.Metric, o.Direction, want[i])
		}
	}
}
