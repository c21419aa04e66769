package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// TestBuildInfoOf: the commit comes from the vcs.* settings go build stamps, else from
// a go install …@version pseudo-version; -X main.version wins over the module version.
func TestBuildInfoOf(t *testing.T) {
	const rev = "67b5c33e2ddbbaadf38ebe93607a18bf8360ee3d"
	stamped := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-01T19:37:35Z"}, {Key: "vcs.modified", Value: "true"}}}
	b := buildInfoOf("dev", stamped)
	want := rundir.ToolCommit{Revision: rev, Time: time.Date(2026, 12, 1, 19, 37, 35, 0, time.UTC), Modified: true}
	if b.Version != "dev" || b.Commit != want || b.Go != "go1.26.0" {
		t.Errorf("stamped build: %+v, want version dev, commit %+v", b, want)
	}
	if !strings.Contains(b.text(), "\ncommit "+rev+"-dirty (2026-12-01T19:37:35Z)\n") {
		t.Errorf("text:\n%s", b.text())
	}

	pseudo := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261201193735-67b5c33e2ddb"}}
	b = buildInfoOf("dev", pseudo)
	if b.Version != "v0.0.0-20261201193735-67b5c33e2ddb" || b.Commit.Revision != "67b5c33e2ddb" ||
		!b.Commit.Time.Equal(want.Time) || b.Commit.Modified {
		t.Errorf("go install @commit: %+v", b)
	}
	// A pseudo-version after a tag (v1.2.4-0.…) names its commit too; a release names none.
	if c := buildInfoOf("dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20261201193735-67b5c33e2ddb"}}).Commit; c.Revision != "67b5c33e2ddb" || c.Modified {
		t.Errorf("pseudo-version after a tag: %+v", c)
	}
	if c := buildInfoOf("dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201193735-67b5c33e2ddb+dirty"}}).Commit; c.Revision != "67b5c33e2ddb" || !c.Modified {
		t.Errorf("dirty pseudo-version: %+v", c)
	}
	released := buildInfoOf("v1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}})
	if released.Version != "v1.2.0" || released.Commit.Known() {
		t.Errorf("-X version over a release: %+v", released)
	}
	if txt := released.text(); !strings.HasPrefix(txt, "llmcap v1.2.0\ncommit unknown (") {
		t.Errorf("text of an unknown commit:\n%s", txt)
	}
}

// TestVersionFromGitClone builds llmcap as a user does, with go build in a git clone
// of this repository (VCS stamping needs a clone: a linked worktree and go test
// binaries carry none), and checks that --version, version, run.json, analysis.json
// and the HTML report's footer name the clone's commit, and that a modified work tree
// reads as -dirty.
func TestVersionFromGitClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmcap in a clone")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "llmcap")
	mustRun(t, "", "git", "clone", "-q", strings.TrimSpace(string(root)), clone)
	head := strings.TrimSpace(mustRun(t, clone, "git", "rev-parse", "HEAD"))
	headTime, err := time.Parse(time.RFC3339, strings.TrimSpace(mustRun(t, clone, "git", "log", "-1", "--format=%cI")))
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "llmcap")
	// -buildvcs=true: the default (auto) stamps too, but a GOFLAGS=-buildvcs=false in
	// the environment would silently turn it off.
	mustRun(t, clone, "go", "build", "-buildvcs=true", "-o", exe, "./cmd/llmcap")

	out := mustRun(t, clone, exe, "--version")
	if sub := mustRun(t, clone, exe, "version"); sub != out {
		t.Errorf("llmcap version prints\n%s\nllmcap --version prints\n%s", sub, out)
	}
	// Go ≥ 1.24 derives the main module's version from the clone's tag or commit
	// (v0.0.0-20261201193735-67b5c33e2ddb).
	m := regexp.MustCompile(`^llmcap (v\S+)\ncommit ([0-9a-f]{12,})(-dirty)? \((\S+)\)\ngo\S+ \S+/\S+\n$`).FindStringSubmatch(out)
	if m == nil || m[2] != head || m[3] != "" || m[4] != headTime.UTC().Format(time.RFC3339) {
		t.Fatalf("--version of a clean clone at %s (%v):\n%s", head, headTime, out)
	}
	ver := m[1]

	dir := filepath.Join(t.TempDir(), "run")
	plan := filepath.Join(t.TempDir(), "tiny.yaml")
	tiny, err := os.ReadFile(tinyPlan(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plan, []byte(strings.Replace(string(tiny), "[json, md, csv]", "[json, html]", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, clone, exe, "run", "-c", plan, "-o", dir)
	var meta, analysis struct {
		ToolVersion string            `json:"tool_version"`
		ToolCommit  rundir.ToolCommit `json:"tool_commit"`
	}
	readJSON(t, filepath.Join(dir, rundir.FileRun), &meta)
	readJSON(t, filepath.Join(dir, "analysis.json"), &analysis)
	wantCommit := rundir.ToolCommit{Revision: head, Time: headTime.UTC()}
	if meta.ToolVersion != ver || meta.ToolCommit != wantCommit {
		t.Errorf("run.json: version %q, commit %+v; want %s, %+v", meta.ToolVersion, meta.ToolCommit, ver, wantCommit)
	}
	if analysis != meta {
		t.Errorf("analysis.json %+v, run.json %+v", analysis, meta)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The footer names the commit once: the pseudo-version holds it.
	foot := "llmcap " + ver
	if !strings.Contains(ver, head[:12]) {
		foot += " (" + head[:12] + ")"
	}
	if !strings.Contains(string(html), foot+" · ") {
		t.Errorf("report.html lacks %q", foot)
	}

	// An uncommitted change marks the build dirty.
	f, err := os.OpenFile(filepath.Join(clone, "README.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("\nlocal edit\n")
	if cerr := f.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	mustRun(t, clone, "go", "build", "-buildvcs=true", "-o", exe, "./cmd/llmcap")
	if out := mustRun(t, clone, exe, "--version"); !strings.Contains(out, "\ncommit "+head+"-dirty (") ||
		!strings.HasPrefix(out, "llmcap "+ver+"+dirty\n") && !strings.HasPrefix(out, "llmcap "+ver+"\n") {
		t.Errorf("--version of a modified clone:\n%s", out)
	}
}

// mustRun runs name with args in dir ("" the current one) and returns its stdout; it
// fails the test, with the output, when the command fails.
func mustRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, stderr.String())
	}
	return string(out)
}

// readJSON decodes the JSON file path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
