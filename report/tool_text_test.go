package report

import (
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// TestToolText: the footer's llmcap names its version and, once, its commit.
func TestToolText(t *testing.T) {
	const rev = "67b5c33e2ddbbaadf38ebe93607a18bf8360ee3d"
	for _, c := range []struct {
		version string
		commit  rundir.ToolCommit
		want    string
	}{
		{"dev", rundir.ToolCommit{}, "llmcap dev"},
		{"dev", rundir.ToolCommit{Revision: rev}, "llmcap dev (67b5c33e2ddb)"},
		{"v0.2.0", rundir.ToolCommit{Revision: rev, Modified: true}, "llmcap v0.2.0 (67b5c33e2ddb-dirty)"},
		{"v0.0.0-20261201193735-67b5c33e2ddb", rundir.ToolCommit{Revision: rev}, "llmcap v0.0.0-20261201193735-67b5c33e2ddb"},
		{"v0.0.0-20261201193735-67b5c33e2ddb+dirty", rundir.ToolCommit{Revision: rev, Modified: true},
			"llmcap v0.0.0-20261201193735-67b5c33e2ddb+dirty"},
	} {
		if got := toolText(&analysis.Analysis{ToolVersion: c.version, ToolCommit: c.commit}); got != c.want {
			t.Errorf("%s %+v: %q, want %q", c.version, c.commit, got, c.want)
		}
	}
}
