package main

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/rundir"
)

// version is set at build time: go build -ldflags "-X main.version=v0.1.0".
var version = "dev"

// buildInfo is what this llmcap binary knows of its own build: the version and the VCS
// commit written to run.json and printed by llmcap version / --version.
type buildInfo struct {
	// Version is the -X main.version value, else the main module's version: the
	// module version of a go install …@version, or the one go build (Go ≥ 1.24)
	// derives in a git clone from its tag or commit
	// ("v0.0.0-20261201193735-67b5c33e2ddb", "+dirty" when modified); else "dev".
	Version string
	// Commit is the VCS commit (zero: unknown).
	Commit rundir.ToolCommit
	// Go is the toolchain that built the binary, e.g. go1.26.0.
	Go string
}

// currentBuild is this binary's buildInfo (runtime/debug.ReadBuildInfo).
func currentBuild() buildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return buildInfo{Version: version, Go: runtime.Version()}
	}
	return buildInfoOf(version, info)
}

// buildInfoOf is the buildInfo of a binary whose -X main.version is ldVersion and
// whose build info is info: the commit from the vcs.revision, vcs.time and
// vcs.modified settings, which go build stamps inside a git clone; else, for a
// go install …@version of a commit without a tag, from the pseudo-version
// (v0.0.0-20261201193735-67b5c33e2ddb).
func buildInfoOf(ldVersion string, info *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: ldVersion, Go: info.GoVersion}
	mv := info.Main.Version
	if b.Version == "dev" && mv != "" && mv != "(devel)" {
		b.Version = mv
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit.Revision = s.Value
		case "vcs.time":
			b.Commit.Time, _ = time.Parse(time.RFC3339, s.Value) // zero when malformed
		case "vcs.modified":
			b.Commit.Modified = s.Value == "true"
		}
	}
	if !b.Commit.Known() {
		b.Commit = pseudoVersionCommit(mv)
	}
	return b
}

// pseudoVersion matches the tail of a Go module pseudo-version: the commit's UTC time
// (yyyymmddhhmmss) and its first 12 hex digits, e.g. "-20261201193735-67b5c33e2ddb"
// (also ".0.20261201193735-…" after a tag, and "+dirty" when go build stamped it
// from a modified clone).
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(\+incompatible)?(\+dirty)?$`)

// pseudoVersionCommit is the commit a pseudo-version names (zero: v is not one).
func pseudoVersionCommit(v string) rundir.ToolCommit {
	m := pseudoVersion.FindStringSubmatch(v)
	if m == nil {
		return rundir.ToolCommit{}
	}
	t, err := time.Parse("20060102150405", m[1])
	if err != nil {
		return rundir.ToolCommit{}
	}
	return rundir.ToolCommit{Revision: m[2], Time: t, Modified: m[4] != ""}
}

// text is what llmcap version and llmcap --version print, without the final newline:
//
//	llmcap dev
//	commit 67b5c33e2ddbbaadf38ebe93607a18bf8360ee3d-dirty (2026-12-01T19:37:35Z)
//	go1.26.0 linux/amd64
func (b buildInfo) text() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "llmcap %s\n", b.Version)
	if c := b.Commit; c.Known() {
		sb.WriteString("commit " + c.Revision)
		if c.Modified {
			sb.WriteString("-dirty")
		}
		if !c.Time.IsZero() {
			sb.WriteString(" (" + c.Time.UTC().Format(time.RFC3339) + ")")
		}
		sb.WriteString("\n")
	} else {
		sb.WriteString("commit unknown (the build recorded none: go run, -buildvcs=false, or a build outside a git clone)\n")
	}
	fmt.Fprintf(&sb, "%s %s/%s", b.Go, runtime.GOOS, runtime.GOARCH)
	return sb.String()
}

// setVersion gives root a --version flag that prints what llmcap version prints.
func setVersion(root *cobra.Command) {
	root.Version = currentBuild().text()
	root.SetVersionTemplate("{{.Version}}\n")
	// Cobra adds its own --version when none exists; this one says what it prints.
	root.Flags().BoolP("version", "v", false, "print the version, the commit llmcap was built from and its Go toolchain")
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print llmcap's version, the commit it was built from and its Go toolchain",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), currentBuild().text())
			return err
		},
	}
}
