package profiles

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"
)

// Sample types of the profiles written here: calls/count and <time>/nanoseconds, the
// time type the default (gpu_time for kernels, os_time for the OS runtime).
const (
	SampleCalls   = "calls"
	SampleGPUTime = "gpu_time"
	SampleOSTime  = "os_time"
)

// Frame is one sample of a summary profile: a stack (leaf first), its call or instance
// count and its total time in nanoseconds.
type Frame struct {
	Stack   []string
	Calls   int64
	TotalNs int64
}

// BuildProfile returns a pprof profile with sample types {calls, count} and
// {timeType, nanoseconds} (the default), one function and location per distinct frame
// name and Mapping{ID: 1, File: mappingFile, HasFunctions: true}. durationNs is the
// captured wall time (0 if unknown). The profile is checked with CheckValid.
func BuildProfile(frames []Frame, timeType, mappingFile string, durationNs int64) (*profile.Profile, error) {
	m := &profile.Mapping{ID: 1, File: mappingFile, HasFunctions: true}
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: SampleCalls, Unit: "count"}, {Type: timeType, Unit: "nanoseconds"}},
		DefaultSampleType: timeType,
		PeriodType:        &profile.ValueType{Type: timeType, Unit: "nanoseconds"},
		Period:            1,
		DurationNanos:     durationNs,
		Mapping:           []*profile.Mapping{m},
	}
	locs := map[string]*profile.Location{}
	shown := map[string]bool{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		id := uint64(len(locs) + 1)
		fn := &profile.Function{ID: id, Name: displayName(name, shown)}
		if fn.Name != name {
			fn.SystemName = name
		}
		l := &profile.Location{ID: id, Mapping: m, Line: []profile.Line{{Function: fn}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, l)
		locs[name] = l
		return l
	}
	for _, f := range frames {
		if len(f.Stack) == 0 {
			continue
		}
		s := &profile.Sample{Value: []int64{f.Calls, f.TotalNs}}
		for _, name := range f.Stack {
			s.Location = append(s.Location, loc(name))
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof profile: %w", err)
	}
	return p, nil
}

// maxFrameRunes bounds a frame's displayed name; longer names (C++ kernel templates run
// to thousands of characters) are clipped, the full name kept as the SystemName.
const maxFrameRunes = 120

// displayName is the name pprof shows for frame name: name itself, clipped to
// maxFrameRunes with "…", made unique among shown with " [2]", " [3]"…. pprof's own
// C++ simplification (dropping template and call arguments) would merge distinct kernel
// instantiations into one node; it does not touch a function whose Name differs from
// its SystemName, or whose SystemName is empty, which BuildProfile ensures.
func displayName(name string, shown map[string]bool) string {
	d := name
	if r := []rune(name); len(r) > maxFrameRunes {
		d = string(r[:maxFrameRunes-1]) + "…"
	}
	base := d
	for i := 2; shown[d]; i++ {
		d = fmt.Sprintf("%s [%d]", base, i)
	}
	shown[d] = true
	return d
}

// KernelProfile builds the GPU-kernel profile: one sample per kernel with stack
// kernel → class → phase (leaf first), values {instances, total GPU ns}.
func KernelProfile(rows []KernelRow, phase string, durationNs int64) (*profile.Profile, error) {
	frames := make([]Frame, 0, len(rows))
	for _, r := range rows {
		frames = append(frames, Frame{Stack: []string{r.Name, "class:" + r.Class, phase}, Calls: r.Instances, TotalNs: r.TotalTimeNs})
	}
	return BuildProfile(frames, SampleGPUTime, "gpu-kernels", durationNs)
}

// StatsProfile builds a profile of an API or OS runtime table: one sample per row with
// stack function → group → phase, values {calls, total ns} of type timeType.
func StatsProfile(rows []StatRow, group, timeType, mappingFile, phase string, durationNs int64) (*profile.Profile, error) {
	frames := make([]Frame, 0, len(rows))
	for _, r := range MergeByName(rows) {
		frames = append(frames, Frame{Stack: []string{r.Name, group, phase}, Calls: r.Count, TotalNs: r.TotalNs})
	}
	return BuildProfile(frames, timeType, mappingFile, durationNs)
}

// WriteProfile writes p gzipped to path (its directory is created).
func WriteProfile(p *profile.Profile, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = p.Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
