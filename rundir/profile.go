package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Files of a capture directory (profiles/step-NNN-<segment>-c<N>/), written by the
// profiles stage and read by the analysis and the CLI.
const (
	FileKernelsJSON  = "kernels.json"  // []KernelRow: GPU kernels and memory operations
	FileKernelsPprof = "kernels.pb.gz" // pprof: phase → kernel class → kernel
	FileOSRTPprof    = "osrt.pb.gz"
	FileOSRTJSON     = "osrt.json" // []StatRow: OS runtime calls merged by name, largest first
	FileCUDAAPIPprof = "cuda_api.pb.gz"
	FileCaptureJSON  = "capture.json" // CaptureSummary
	// FileLaunchJSON (in profiles/) records a launched server's cold start and peak RSS.
	FileLaunchJSON = "launch.json"
)

// CaptureSummary is capture.json: what one capture holds. Paths are relative to its directory.
type CaptureSummary struct {
	// Step, Segment, Schedule and Load identify the captured sweep step (Step is -1 for
	// a conversion made by hand).
	Step     int     `json:"step"`
	Segment  string  `json:"segment,omitempty"`
	Schedule string  `json:"schedule,omitempty"`
	Load     float64 `json:"load,omitempty"`
	// Phase is the root frame of the pprof stacks.
	Phase string `json:"phase"`
	// NsysVersion and Generation ("old"/"new" report names) of the tool used.
	NsysVersion string `json:"nsys_version,omitempty"`
	Generation  string `json:"generation,omitempty"`
	// Report is the .nsys-rep file; Tables the CSV tables by kind; Profiles the pprof files.
	Report   string            `json:"report,omitempty"`
	Tables   map[string]string `json:"tables"`
	Profiles []string          `json:"profiles"`
	// GPUTimeNs is the summed kernel (and GPU memory operation) time; OSRTTimeNs the
	// summed OS runtime call time.
	GPUTimeNs  int64 `json:"gpu_time_ns"`
	OSRTTimeNs int64 `json:"osrt_time_ns"`
	// ClassShares are kernel class → fraction of GPU time (empty without GPU data).
	ClassShares map[string]float64 `json:"class_shares,omitempty"`
	// Top are the largest kernels (at most 20).
	Top []KernelRow `json:"top,omitempty"`
	// DurationNs is the capture window's wall time (0 when unknown).
	DurationNs int64 `json:"duration_ns,omitempty"`
	// StopHung says how `nsys stop` hung when the capture was recovered from the
	// .qdstrm it left ("" when the stop finished normally).
	StopHung string `json:"stop_hung,omitempty"`
}

// StatRow is one row of an `nsys stats` summary table (kernels, CUDA API, OS runtime,
// NVTX…): every generation's columns mapped to one shape. Times are nanoseconds.
type StatRow struct {
	// Name is the kernel, API call or OS runtime function.
	Name string `json:"name"`
	// TimePct is "Time (%)": the row's share of the table's total time, 0..100.
	TimePct float64 `json:"time_pct"`
	// TotalNs is "Total Time (ns)".
	TotalNs int64 `json:"total_time_ns"`
	// Count is "Instances" (kernels), "Num Calls" or "Calls" (APIs, OS runtime).
	Count int64 `json:"count"`
	// AvgNs, MedNs, MinNs, MaxNs and StdDevNs are the per-instance statistics (0 when
	// the table has no such column).
	AvgNs    float64 `json:"avg_ns"`
	MedNs    float64 `json:"med_ns"`
	MinNs    float64 `json:"min_ns"`
	MaxNs    float64 `json:"max_ns"`
	StdDevNs float64 `json:"stddev_ns"`
}

// KernelRow is one kernel's total GPU time in a capture: one element of kernels.json
// (the analysis reports the same rows).
type KernelRow struct {
	Name        string  `json:"name"`
	Class       string  `json:"class"`
	TotalTimeNs int64   `json:"total_time_ns"`
	Instances   int64   `json:"instances"`
	Share       float64 `json:"share"` // fraction of the capture's GPU kernel time, 0..1
}

// LaunchInfo is profiles/launch.json: how the server started under nsys and what it used.
type LaunchInfo struct {
	// Command is the full argv run (nsys launch … server argv, or the server argv when
	// nsys is unavailable); Session the nsys session name ("" without nsys).
	Command []string `json:"command"`
	Session string   `json:"session,omitempty"`
	// ColdStartS is the time from process start until GET {target.url}/models answered 200.
	ColdStartS float64 `json:"cold_start_s"`
	// ServerPID is the first process of the server's tree that is not part of nsys.
	ServerPID int `json:"server_pid,omitempty"`
	// PeakRSSBytes is the largest sum of VmHWM (peak resident set) over the server's
	// process tree (nsys's own processes excluded), sampled every 0.5 s until stop.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// NsysError says why the server runs without nsys, if it does.
	NsysError string `json:"nsys_error,omitempty"`
	// ExitError is how the server ended at stop, if not cleanly.
	ExitError string `json:"exit_error,omitempty"`
}

// Capture is what one capture directory holds; a nil field's file is absent or does not
// decode.
type Capture struct {
	Summary *CaptureSummary
	Kernels []KernelRow // nil without GPU data
	OSRT    []StatRow   // nil without an osrt trace
}

// ReadCapture reads the capture directory d (a path); ok is false when it holds none of
// capture.json, kernels.json and osrt.json in a readable form.
func ReadCapture(d string) (c Capture, ok bool) {
	var s CaptureSummary
	if readJSON(filepath.Join(d, FileCaptureJSON), &s) == nil {
		c.Summary = &s
	}
	var k []KernelRow
	if readJSON(filepath.Join(d, FileKernelsJSON), &k) == nil {
		c.Kernels = k
		if c.Kernels == nil {
			c.Kernels = []KernelRow{}
		}
	}
	var o []StatRow
	if readJSON(filepath.Join(d, FileOSRTJSON), &o) == nil {
		c.OSRT = o
	}
	return c, c.Summary != nil || c.Kernels != nil || len(c.OSRT) > 0
}

// ReadKernels reads a kernels.json file. Errors: unreadable, or not a []KernelRow
// (naming the file).
func ReadKernels(path string) ([]KernelRow, error) {
	var k []KernelRow
	if err := readJSON(path, &k); err != nil {
		return nil, err
	}
	return k, nil
}

// CaptureDirs lists the capture directories under dir/profiles (paths), in name order;
// none when profiles/ is absent.
func CaptureDirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(dir, DirProfiles))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", DirProfiles, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, DirProfiles, e.Name()))
		}
	}
	return out, nil
}

// readJSON decodes the file at path into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}
