package report

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTuneHTMLIsSelfContainedAndWhole: tune-report.html holds the answer, the command,
// the gain, the chart as inline SVG with a hover tip on each of the 8 measured trials,
// every trial's row with the failed trials' reasons and log tails whole, and fetches
// nothing (no external script, style, image or font).
func TestTuneHTMLIsSelfContainedAndWhole(t *testing.T) {
	lowDPI(t)
	dir := writeTuneFixture(t)
	if _, err := WriteTune(dir, []string{"html"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileTuneHTML))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	text := html.UnescapeString(page)
	cmd := tuneCommandText(tuneFixtureArgv(128, 8192, 0.9), []string{"VLLM_LOGGING_LEVEL=INFO"})
	for _, want := range []string{tuneFixtureAnswer, cmd, "+38% users over the starting configuration.", tuneFixtureLongReason,
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "<svg class=\"chart\"",
		"trial 4 (generation 1): users within the SLA 138, TTFT p95 at 32 users 260 ms; max_num_seqs 128, max_num_batched_tokens 8192, " +
			"gpu_memory_utilization 0.9; recommended, front"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `class="hit"`); n != 8 {
		t.Errorf("%d hover targets, want one per measured trial (8)", n)
	}
	rows := regexp.MustCompile(`(?s)<section id="trials">.*?</section>`).FindString(page)
	if n := strings.Count(rows, "<tr>"); n != 1+len(tuneFixtureTrials) {
		t.Errorf("the trials table has %d rows, want a header and %d trials", n, len(tuneFixtureTrials))
	}
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//|<link |@import|url\(`).FindString(page); m != "" {
		t.Errorf("the page fetches something: %q", m)
	}
}
