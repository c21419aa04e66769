package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmcap/llmcap/sweep"
)

// TestSweepErrorLabel: a failed sweep's error is labelled "sweep" by its type: a
// preflight failure (which names only the target) gets the label even when its message
// happens to start with "sweep"; sweep.Run's other errors are returned as they are,
// whatever their wording.
func TestSweepErrorLabel(t *testing.T) {
	pe := &sweep.PreflightError{URL: "http://x/v1", Msg: "sweeping failure: cannot reach target http://x/v1"}
	for _, c := range []struct {
		err  error
		want string
	}{
		{pe, "sweep: sweeping failure: cannot reach target http://x/v1"},
		{fmt.Errorf("probe: %w", pe), "sweep: probe: sweeping failure: cannot reach target http://x/v1"},
		{errors.New("sweep step 3: write records.jsonl: disk full"), "sweep step 3: write records.jsonl: disk full"},
		{errors.New("resume: decode run.json: EOF"), "resume: decode run.json: EOF"},
	} {
		got := sweepError(c.err, t.TempDir()) // the directory is still there
		if got.Error() != c.want || !errors.Is(got, c.err) {
			t.Errorf("sweepError(%q) = %q, want %q wrapping it", c.err, got, c.want)
		}
	}
	gone := t.TempDir() + "/runs/x"
	if got := sweepError(pe, gone).Error(); got != "sweep: sweeping failure: cannot reach target http://x/v1 ("+gone+" removed: the preflight failed)" {
		t.Errorf("preflight failure, directory removed: %q", got)
	}
}
