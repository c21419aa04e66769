package rundir

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestToolCommitJSON: run.json records the commit under tool_commit, apart from
// tool_version; an unknown commit writes nothing; a run.json older than the field reads
// as an unknown commit.
func TestToolCommitJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 19, 37, 35, 0, time.UTC)
	m := RunMeta{RunID: "r1", ToolVersion: "dev", State: StateComplete,
		ToolCommit: ToolCommit{Revision: "67b5c33e2ddbbaadf38ebe93607a18bf8360ee3d", Time: at, Modified: true}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `"tool_version":"dev","tool_commit":{"revision":"67b5c33e2ddbbaadf38ebe93607a18bf8360ee3d","time":"2026-12-01T19:37:35Z","modified":true}`
	if !strings.Contains(string(b), want) {
		t.Errorf("run.json %s\nwant it to hold %s", b, want)
	}
	var back RunMeta
	if err := json.Unmarshal(b, &back); err != nil || back.ToolCommit != m.ToolCommit {
		t.Errorf("read back %+v, %v; want %+v", back.ToolCommit, err, m.ToolCommit)
	}

	if b, _ := json.Marshal(RunMeta{RunID: "r2", ToolVersion: "dev"}); strings.Contains(string(b), "tool_commit") {
		t.Errorf("an unknown commit is written: %s", b)
	}
	var old RunMeta
	if err := json.Unmarshal([]byte(`{"run_id":"r0","tool_version":"dev","state":"complete"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.ToolCommit.Known() || old.ToolCommit.String() != "" || old.ToolVersion != "dev" {
		t.Errorf("an older run.json reads as %q %+v", old.ToolVersion, old.ToolCommit)
	}
}

// TestToolCommitString: 12 hex digits, "-dirty" for a modified work tree, "" unknown.
func TestToolCommitString(t *testing.T) {
	for _, c := range []struct {
		c    ToolCommit
		want string
	}{
		{ToolCommit{Revision: "67b5c33e2ddbbaadf38ebe93607a18bf8360ee3d"}, "67b5c33e2ddb"},
		{ToolCommit{Revision: "67b5c33e2ddbbaadf38ebe93607a18bf8360ee3d", Modified: true}, "67b5c33e2ddb-dirty"},
		{ToolCommit{Revision: "67b5c33e2ddb"}, "67b5c33e2ddb"}, // from a pseudo-version
		{ToolCommit{Modified: true}, ""},
		{ToolCommit{}, ""},
	} {
		if got := c.c.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}
