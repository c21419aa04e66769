package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ResumeState is what an earlier, unfinished attempt left in a run directory.
type ResumeState struct {
	Meta *RunMeta
	Done map[int]StepSummary // finished steps by index
}

// PrepareResume reads dir's run.json and steps.jsonl and repairs the append-only files so
// the run can continue: a torn last line (no trailing newline: the process died while
// writing it) is dropped, and records and metric samples of steps without a summary in
// steps.jsonl (unfinished steps, which will run again) are removed. Every finished step's
// records are kept exactly once. drift.jsonl keeps its complete probe requests
// (repairDrift), so a finished probe is not sent again.
func PrepareResume(dir string) (*ResumeState, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileRun))
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	st := &ResumeState{Meta: &RunMeta{}, Done: map[int]StepSummary{}}
	if err := json.Unmarshal(b, st.Meta); err != nil {
		return nil, fmt.Errorf("resume: decode %s: %w", FileRun, err)
	}
	err = filterJSONL(filepath.Join(dir, FileSteps), func(line []byte) (bool, error) {
		var s StepSummary
		if err := json.Unmarshal(line, &s); err != nil {
			return false, err
		}
		if _, dup := st.Done[s.Index]; dup {
			return false, nil
		}
		st.Done[s.Index] = s
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	keep := func(line []byte) (bool, error) {
		var v struct {
			Step int `json:"step"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			return false, err
		}
		_, ok := st.Done[v.Step]
		return ok || v.Step < 0, nil
	}
	for _, name := range []string{FileRecords, FileServerMetrics} {
		if err := filterJSONL(filepath.Join(dir, name), keep); err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
	}
	if err := repairDrift(dir); err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	return st, nil
}

// filterJSONL rewrites path (atomically) keeping the complete lines for which keep is
// true; a last line without its newline is torn and dropped. A missing file is empty.
func filterJSONL(path string, keep func(line []byte) (bool, error)) error {
	in, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer in.Close()
	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	defer os.Remove(tmp)
	br := bufio.NewReaderSize(in, 1<<20)
	bw := bufio.NewWriterSize(out, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			break // a partial last line (if any) is torn: dropped
		}
		if err != nil {
			out.Close()
			return fmt.Errorf("read %s: %w", path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ok, kerr := keep(line)
		if kerr != nil {
			out.Close()
			return fmt.Errorf("%s line %d: %w", path, n, kerr)
		}
		if ok {
			bw.Write(line)
		}
	}
	err = bw.Flush()
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	return nil
}
