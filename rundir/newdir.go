package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// CheckNewDir checks that dir can take a run written from scratch (an import): it does
// not exist (absent true: the writer will create it) or is an empty directory. Errors:
// dir is empty, exists and is not a directory, is not empty (a run is never written
// into another), or cannot be read.
func CheckNewDir(dir string) (absent bool, err error) {
	if dir == "" {
		return false, errors.New("no run directory to write (-o DIR)")
	}
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("check run directory: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.IsDir() {
		return false, fmt.Errorf("%s exists and is not a directory: name a new run directory with -o", dir)
	}
	if _, err := f.Readdirnames(1); !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("%s exists and is not empty: a new run directory is written, never into another; name a new or empty one with -o", dir)
	}
	return false, nil
}

// RemoveNew removes dir, a run directory that CheckNewDir found absent and whose
// writing failed, so that no half-written run is left behind.
func RemoveNew(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the unfinished run directory: %w", err)
	}
	return nil
}
