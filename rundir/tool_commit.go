package rundir

import "time"

// ToolCommit is the VCS commit of the llmcap build that wrote a run (run.json's
// tool_commit, copied into analysis.json), so a result can be traced to its code. It
// comes from the binary's build info (runtime/debug.ReadBuildInfo: vcs.revision,
// vcs.time, vcs.modified), which go build stamps when it builds inside a git clone
// with git available, or from a go install …@version pseudo-version. The zero value
// means unknown: a binary from go run or go test, one built with -buildvcs=false, from
// a linked git worktree (go build stamps no VCS there) or from a source tarball; a
// run.json older than the field also reads as unknown.
type ToolCommit struct {
	// Revision is the commit hash in hex: 40 digits from a stamped build, 12 from a
	// pseudo-version.
	Revision string `json:"revision"`
	// Time is the commit's time (UTC); zero when the build did not record it.
	Time time.Time `json:"time,omitzero"`
	// Modified is true when the work tree had uncommitted changes at build time.
	Modified bool `json:"modified,omitempty"`
}

// shortRevision is how many hex digits String shows (as Go's pseudo-versions do).
const shortRevision = 12

// Known reports whether the build recorded a commit.
func (c ToolCommit) Known() bool { return c.Revision != "" }

// String is the revision's first 12 hex digits, with "-dirty" when the work tree was
// modified ("67b5c33e2ddb", "67b5c33e2ddb-dirty"); "" when unknown.
func (c ToolCommit) String() string {
	r := c.Revision
	if len(r) > shortRevision {
		r = r[:shortRevision]
	}
	if r != "" && c.Modified {
		r += "-dirty"
	}
	return r
}
