package profiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// Files written into a capture directory.
const (
	FileKernelsJSON  = rundir.FileKernelsJSON
	FileKernelsPprof = rundir.FileKernelsPprof
	FileOSRTPprof    = rundir.FileOSRTPprof
	FileOSRTJSON     = rundir.FileOSRTJSON
	FileCUDAAPIPprof = rundir.FileCUDAAPIPprof
	FileCaptureJSON  = rundir.FileCaptureJSON
	statsPrefix      = "stats"
)

// Table kinds (the logical report a CSV holds).
const (
	KindKernels = "kernels"
	KindMemTime = "gpu_mem_time"
	KindCUDAAPI = "cuda_api"
	KindOSRT    = "osrt"
	KindNVTX    = "nvtx"
)

// Tables are the CSV tables of one capture, by kind; an empty path means absent.
type Tables map[string]string

// TablesFrom maps the files of Nsys.Stats (report name → path) to kinds.
func TablesFrom(names ReportNames, paths map[string]string) Tables {
	return Tables{KindKernels: paths[names.Kernels], KindMemTime: paths[names.MemTime],
		KindCUDAAPI: paths[names.CUDAAPI], KindOSRT: paths[names.OSRT], KindNVTX: paths[names.NVTX]}
}

// KindOf guesses a stats CSV's kind from its file name (gpukernsum, cuda_gpu_kern_sum →
// kernels; osrt → osrt; api → cuda_api; mem → gpu_mem_time; nvtx → nvtx); "" if unknown.
func KindOf(path string) string {
	b := strings.ToLower(filepath.Base(path))
	switch {
	case strings.Contains(b, "kern"):
		return KindKernels
	case strings.Contains(b, "osrt"):
		return KindOSRT
	case strings.Contains(b, "api"):
		return KindCUDAAPI
	case strings.Contains(b, "mem"):
		return KindMemTime
	case strings.Contains(b, "nvtx"):
		return KindNVTX
	}
	return ""
}

// Summary is capture.json: what one capture holds (rundir owns the file type).
type Summary = rundir.CaptureSummary

const topKernels = 20

// ConvertTables turns the tables of one capture into files in dir: kernels.json and
// kernels.pb.gz from the kernel (plus GPU memory-operation) tables, osrt.pb.gz and
// osrt.json, cuda_api.pb.gz from those tables, and capture.json (s, filled in and returned). It fails
// only when there is neither GPU nor OS runtime data, or on a bad table or write error.
func ConvertTables(dir string, t Tables, s Summary) (*Summary, error) {
	read := func(kind string) ([]StatRow, error) {
		if t[kind] == "" {
			return nil, nil
		}
		return ReadStatsCSV(t[kind])
	}
	s.Tables = map[string]string{}
	for k, p := range t {
		if p != "" {
			s.Tables[k] = relTo(dir, p)
		}
	}
	s.Profiles = nil
	kern, err := read(KindKernels)
	if err != nil {
		return nil, err
	}
	mem, err := read(KindMemTime)
	if err != nil {
		return nil, err
	}
	if rows := KernelRows(append(kern, mem...)); len(rows) > 0 {
		if err := writeKernels(dir, rows, &s); err != nil {
			return nil, err
		}
	}
	for _, st := range []struct{ kind, group, timeType, mapping, file string }{
		{KindOSRT, "os_runtime", SampleOSTime, "os-runtime", FileOSRTPprof},
		{KindCUDAAPI, "cuda_api", "cpu_time", "cuda-api", FileCUDAAPIPprof},
	} {
		rows, err := read(st.kind)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			continue
		}
		p, err := StatsProfile(rows, st.group, st.timeType, st.mapping, s.Phase, s.DurationNs)
		if err != nil {
			return nil, err
		}
		if err := WriteProfile(p, filepath.Join(dir, st.file)); err != nil {
			return nil, err
		}
		s.Profiles = append(s.Profiles, st.file)
		if st.kind == KindOSRT {
			for _, r := range rows {
				s.OSRTTimeNs += r.TotalNs
			}
			if err := writeJSON(filepath.Join(dir, FileOSRTJSON), MergeByName(rows)); err != nil {
				return nil, err
			}
		}
	}
	if len(s.Profiles) == 0 {
		return nil, errors.New("capture has no GPU kernel, CUDA API or OS runtime data " +
			"(osrt sees libc calls only: a Go server built with CGO_ENABLED=0, such as a static llmcap serve-sim, makes raw syscalls)")
	}
	if err := writeJSON(filepath.Join(dir, FileCaptureJSON), s); err != nil {
		return nil, err
	}
	return &s, nil
}

// writeKernels writes kernels.json and kernels.pb.gz and fills s's GPU fields.
func writeKernels(dir string, rows []KernelRow, s *Summary) error {
	if err := writeJSON(filepath.Join(dir, FileKernelsJSON), rows); err != nil {
		return err
	}
	p, err := KernelProfile(rows, s.Phase, s.DurationNs)
	if err != nil {
		return err
	}
	if err := WriteProfile(p, filepath.Join(dir, FileKernelsPprof)); err != nil {
		return err
	}
	s.Profiles = append(s.Profiles, FileKernelsPprof)
	for _, r := range rows {
		s.GPUTimeNs += r.TotalTimeNs
	}
	s.ClassShares = ClassShares(rows)
	s.Top = rows[:min(len(rows), topKernels)]
	return nil
}

// ConvertReport imports rep (a .nsys-rep, or a .qdstrm nsys left unimported), runs
// `nsys stats --format csv` for every summary report of the installed generation into
// dir (stats_<report>.csv) and converts the tables (ConvertTables).
func ConvertReport(ctx context.Context, n *Nsys, rep, dir string, s Summary) (*Summary, error) {
	rep, err := n.EnsureReport(ctx, rep)
	if err != nil {
		return nil, err
	}
	names, err := n.ReportNames(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths, err := n.Stats(ctx, rep, filepath.Join(dir, statsPrefix), names.All())
	if err != nil {
		return nil, err
	}
	s.Report = relTo(dir, rep)
	s.Generation = names.Generation
	if v, err := n.Version(ctx); err == nil {
		s.NsysVersion = v
	}
	return ConvertTables(dir, TablesFrom(names, paths), s)
}

// relTo returns p relative to dir when it lies inside it, else p.
func relTo(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// writeJSON writes v indented to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
