package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/analysis"
)

// envEnable turns the end-to-end tests on; envURL overrides the Ollama base URL.
const (
	envEnable     = "LLMCAP_E2E_OLLAMA"
	envURL        = "LLMCAP_OLLAMA_URL"
	defaultOllama = "http://127.0.0.1:11434"
)

// repoRoot is the repository root (the parent of this package's directory).
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the e2e package directory")
	}
	return filepath.Dir(filepath.Dir(file))
}

// ollamaURL returns the Ollama server's base URL (no /v1), skipping the test when the
// end-to-end tests are not enabled and failing when the server does not answer.
func ollamaURL(t *testing.T) string {
	t.Helper()
	if os.Getenv(envEnable) == "" {
		t.Skipf("%s is unset: the end-to-end tests need a running Ollama "+
			"(run scripts/ci-e2e.sh, or scripts/ollama.sh install && scripts/ollama.sh start "+
			"and set %s=1)", envEnable, envEnable)
	}
	base := strings.TrimSuffix(os.Getenv(envURL), "/")
	if base == "" {
		base = defaultOllama
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		t.Fatalf("bad %s %q: %v", envURL, base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s is set but Ollama does not answer at %s: %v (start it with scripts/ollama.sh start)",
			envEnable, base, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/v1/models: HTTP %d", base, resp.StatusCode)
	}
	return base
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// llmcapBin builds cmd/llmcap once per test process and returns the binary's path.
func llmcapBin(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "llmcap-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "llmcap")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/llmcap")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/llmcap: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// runLLMCap runs the llmcap binary with args from the repository root, with the plan's
// target.url pointed at base+"/v1" (LLMCAP_TARGET_URL), logs its output and fails the
// test when it exits non-zero.
func runLLMCap(t *testing.T, base string, timeout time.Duration, args ...string) {
	t.Helper()
	bin := llmcapBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "LLMCAP_TARGET_URL="+base+"/v1")
	out, err := cmd.CombinedOutput()
	t.Logf("llmcap %s (%d bytes of output):\n%s", strings.Join(args, " "), len(out), tail(string(out), 4000))
	if err != nil {
		t.Fatalf("llmcap %s: %v", strings.Join(args, " "), err)
	}
}

// tail returns at most the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
}

// readJSONL decodes every line of the JSONL file at path as a T.
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s line %d: %v", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

// runDir is a finished run directory's parsed contents.
type runDir struct {
	Dir      string
	Meta     rundir.RunMeta
	Steps    []rundir.StepSummary
	Records  []rundir.Record
	Analysis *analysis.Analysis
}

// loadRunDir reads run.json, steps.jsonl, records.jsonl and (when present) analysis.json.
func loadRunDir(t *testing.T, dir string) *runDir {
	t.Helper()
	rd := &runDir{Dir: dir}
	readJSON(t, filepath.Join(dir, rundir.FileRun), &rd.Meta)
	rd.Steps = readJSONL[rundir.StepSummary](t, filepath.Join(dir, rundir.FileSteps))
	rd.Records = readJSONL[rundir.Record](t, filepath.Join(dir, rundir.FileRecords))
	if _, err := os.Stat(filepath.Join(dir, analysis.FileAnalysis)); err == nil {
		rd.Analysis = &analysis.Analysis{}
		readJSON(t, filepath.Join(dir, analysis.FileAnalysis), rd.Analysis)
	}
	return rd
}

// findFiles returns the files under dir whose names end in ext (e.g. ".pdf").
func findFiles(t *testing.T, dir, ext string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ext) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return out
}
