package profiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Timeouts of nsys sub-commands. Importing and summarising a large CUDA trace takes
// minutes, so stop and stats get generous bounds; start/shutdown are quick.
const (
	nsysQuickTimeout  = 60 * time.Second
	nsysStopTimeout   = 5 * time.Minute
	outputTailBytes   = 800
	defaultCaptureRep = "capture"
)

// nsysSearchPaths are where Nsight Systems installs its CLI besides $PATH: Debian's
// package, NVIDIA's .run/.deb installs and the CUDA toolkit.
var nsysSearchPaths = []string{
	"/usr/lib/nsight-systems/bin/nsys",
	"/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys",
	"/opt/nvidia/nsight-systems/*/bin/nsys",
	"/opt/nvidia/nsight-systems/*/target-linux-x64/nsys",
	"/usr/local/cuda/bin/nsys",
	"/usr/local/cuda/nsight-systems-*/bin/nsys",
}

// ErrNsysNotFound is returned (wrapped) when no nsys binary can be found.
var ErrNsysNotFound = errors.New("nsys not found")

// FindNsys returns the nsys binary: configured (capture.nsys_path) when set, else the
// first of $PATH and the usual install locations. Its error names capture.nsys_path.
func FindNsys(configured string) (string, error) {
	if configured != "" {
		st, err := os.Stat(configured)
		if err != nil {
			return "", fmt.Errorf("capture.nsys_path %q: %w: %w", configured, ErrNsysNotFound, err)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("capture.nsys_path %q: %w: not an executable file", configured, ErrNsysNotFound)
		}
		return configured, nil
	}
	if p, err := exec.LookPath("nsys"); err == nil {
		return p, nil
	}
	for _, pat := range nsysSearchPaths {
		matches, _ := filepath.Glob(pat)
		for i := len(matches) - 1; i >= 0; i-- { // newest version last in lexical order
			if st, err := os.Stat(matches[i]); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return matches[i], nil
			}
		}
	}
	return "", fmt.Errorf("%w on $PATH or in /usr/lib/nsight-systems, /opt/nvidia/nsight-systems, /usr/local/cuda: "+
		"install Nsight Systems (scripts/install-nsys.sh on Debian) or set capture.nsys_path", ErrNsysNotFound)
}

// Nsys runs one nsys binary. The zero value is not usable; use NewNsys.
type Nsys struct {
	// Path is the nsys binary.
	Path string
	// StopTimeout bounds `nsys stop` (writing and importing the report) and `nsys stats`
	// (default 5 minutes: a large CUDA trace takes minutes).
	StopTimeout time.Duration
	// StallTimeout is how long `nsys stop` may make no progress (no new output, no
	// growth of its .qdstrm) before Stop declares it hung (default 60 s).
	StallTimeout time.Duration

	mu      sync.Mutex
	names   *ReportNames
	version string
}

// NewNsys returns an Nsys for path (see FindNsys).
func NewNsys(path string) *Nsys { return &Nsys{Path: path, StopTimeout: nsysStopTimeout} }

// run runs nsys with args under timeout and returns its combined output; a failure
// wraps the exit error with the command and the tail of the output. The output goes to
// a temporary file, not a pipe: nsys 2022.4's `nsys stop` hangs when its stdout is a pipe.
func (n *Nsys) run(ctx context.Context, timeout time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f, err := os.CreateTemp("", "llmcap-nsys-*.out")
	if err != nil {
		return nil, fmt.Errorf("nsys output file: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd := exec.CommandContext(ctx, n.Path, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	out, _ := os.ReadFile(f.Name())
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s: %w", timeout, ctx.Err())
	}
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", filepath.Base(n.Path), strings.Join(args, " "), err, tail(out))
	}
	return out, nil
}

// tail returns the last outputTailBytes of b, progress bars stripped, for error messages.
func tail(b []byte) string {
	s := string(b)
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if len(s) > outputTailBytes {
		s = "…" + s[len(s)-outputTailBytes:]
	}
	return s
}

// Version returns the first line of `nsys --version` (e.g. "NVIDIA Nsight Systems
// version 2022.4.2.1-df9881f").
func (n *Nsys) Version(ctx context.Context) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.version != "" {
		return n.version, nil
	}
	out, err := n.run(ctx, nsysQuickTimeout, "--version")
	if err != nil {
		return "", err
	}
	n.version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	return n.version, nil
}

// ReportNames are the `nsys stats` report names of one naming generation.
type ReportNames struct {
	// Generation is "new" (2023.x+: cuda_gpu_kern_sum…) or "old" (≤ 2022.x: gpukernsum…).
	Generation string
	Kernels    string // CUDA GPU kernel summary
	CUDAAPI    string // CUDA API summary
	MemTime    string // GPU memory operations by time
	OSRT       string // OS runtime summary
	NVTX       string // NVTX range summary
}

// NewReportNames and OldReportNames are the two generations of report names.
var (
	NewReportNames = ReportNames{Generation: "new", Kernels: "cuda_gpu_kern_sum", CUDAAPI: "cuda_api_sum",
		MemTime: "cuda_gpu_mem_time_sum", OSRT: "osrt_sum", NVTX: "nvtx_sum"}
	OldReportNames = ReportNames{Generation: "old", Kernels: "gpukernsum", CUDAAPI: "cudaapisum",
		MemTime: "gpumemtimesum", OSRT: "osrtsum", NVTX: "nvtxsum"}
)

// All returns the report names in stats order.
func (r ReportNames) All() []string { return []string{r.Kernels, r.CUDAAPI, r.MemTime, r.OSRT, r.NVTX} }

// DetectReportNames picks the generation from `nsys stats --help-reports` output: the
// new names when it lists cuda_gpu_kern_sum, else the old ones.
func DetectReportNames(helpReports string) ReportNames {
	if strings.Contains(helpReports, NewReportNames.Kernels) {
		return NewReportNames
	}
	return OldReportNames
}

// ReportNames asks the installed nsys which generation of report names it has.
func (n *Nsys) ReportNames(ctx context.Context) (ReportNames, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.names != nil {
		return *n.names, nil
	}
	// nsys 2022.4 lists the reports and then exits with status 1: judge by the output.
	out, err := n.run(ctx, nsysQuickTimeout, "stats", "--help-reports")
	if err != nil && !strings.Contains(string(out), "osrt") {
		return ReportNames{}, err
	}
	r := DetectReportNames(string(out))
	n.names = &r
	return r, nil
}

// Stats runs `nsys stats --format csv` for reports on rep (.nsys-rep or .sqlite) and
// returns report name → CSV path (prefix_<report>.csv). A report nsys skipped for lack
// of data is an empty file. For a .nsys-rep it passes --force-export true: without it
// nsys reuses an existing <rep>.sqlite beside the report, e.g. one exported from an
// earlier (interrupted) capture of the same step, and summarises stale data.
func (n *Nsys) Stats(ctx context.Context, rep, prefix string, reports []string) (map[string]string, error) {
	args := []string{"stats", "--format", "csv", "--force-overwrite", "true", "--output", prefix}
	if !strings.HasSuffix(rep, ".sqlite") { // nsys rejects --force-export on a .sqlite input
		args = append(args, "--force-export", "true")
	}
	for _, r := range reports {
		args = append(args, "--report", r)
	}
	if _, err := n.run(ctx, n.StopTimeout, append(args, rep)...); err != nil {
		return nil, err
	}
	paths := make(map[string]string, len(reports))
	for _, r := range reports {
		p := prefix + "_" + r + ".csv"
		if _, err := os.Stat(p); err == nil {
			paths[r] = p
		}
	}
	return paths, nil
}

// ImporterPath returns the QdstrmImporter that belongs to this nsys (host-linux-x64 next
// to the resolved target directory, or a known install location), or "".
func (n *Nsys) ImporterPath() string {
	var cands []string
	if real, err := filepath.EvalSymlinks(n.Path); err == nil {
		d := filepath.Dir(real)
		cands = append(cands, filepath.Join(d, "..", "host-linux-x64", "QdstrmImporter"), filepath.Join(d, "QdstrmImporter"))
	}
	cands = append(cands, "/usr/lib/nsight-systems/host-linux-x64/QdstrmImporter")
	g, _ := filepath.Glob("/opt/nvidia/nsight-systems/*/host-linux-x64/QdstrmImporter")
	cands = append(cands, g...)
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return filepath.Clean(c)
		}
	}
	return ""
}

// importerBesideNsys reports whether nsys itself will find its importer (it looks in
// host-linux-x64 beside its own resolved directory). When it cannot, `nsys profile`
// leaves a .qdstrm and Debian's 2022.4 `nsys stop` hangs.
func (n *Nsys) importerBesideNsys() bool {
	real, err := filepath.EvalSymlinks(n.Path)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(filepath.Dir(real), "..", "host-linux-x64", "QdstrmImporter"))
	return err == nil
}

// EnsureReport returns the .nsys-rep for base (a path without extension or with
// .nsys-rep/.qdstrm): when only base.qdstrm exists it runs QdstrmImporter on it.
func (n *Nsys) EnsureReport(ctx context.Context, base string) (string, error) {
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".nsys-rep"), ".qdstrm")
	rep, qd := base+".nsys-rep", base+".qdstrm"
	if _, err := os.Stat(rep); err == nil {
		return rep, nil
	}
	if _, err := os.Stat(qd); err != nil {
		return "", fmt.Errorf("nsys left neither %s nor %s", rep, qd)
	}
	imp := n.ImporterPath()
	if imp == "" {
		return "", fmt.Errorf("%s is not imported and no QdstrmImporter was found near %s", qd, n.Path)
	}
	ctx, cancel := context.WithTimeout(ctx, n.StopTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, imp, "-i", qd).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("QdstrmImporter -i %s: %w: %s", qd, err, tail(out))
	}
	if _, err := os.Stat(rep); err != nil {
		return "", fmt.Errorf("QdstrmImporter -i %s wrote no %s: %s", qd, rep, tail(out))
	}
	return rep, nil
}
