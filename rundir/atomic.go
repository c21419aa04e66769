package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// tempInfix is in the name of every temporary file WriteAtomic makes: NAME.tmp-RANDOM,
// next to NAME in the same directory (so the rename stays on one file system).
const tempInfix = ".tmp-"

// WriteAtomic writes the file at path with write, so that a reader (or a crash, a full
// disk, a killed process) sees the previous file or the complete new one, never a
// truncated one: write fills a temporary file in path's directory, which is fsynced,
// closed and renamed over path (mode 0644). On any error (from write, the file system or
// the rename) the temporary file is removed, path is left as it was and the error names
// path; a full disk says so ("the disk is full") and wraps syscall.ENOSPC.
func WriteAtomic(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, base+tempInfix+"*")
	if err != nil {
		return atomicError(path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = atomicError(path, err)
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// atomicError wraps err with path, saying so plainly when the disk is full.
func atomicError(path string, err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("write %s: the disk is full: %w", path, err)
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// writeBytes is a WriteAtomic writer of data.
func writeBytes(data []byte) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// TempGlob is the filepath.Glob pattern of the temporary files WriteAtomic leaves
// next to path while it writes (and only then: a finished or failed write removes or
// renames its own; a killed process may leave one, which the next write ignores).
func TempGlob(path string) string {
	return path + tempInfix + "*"
}

// RemoveTemps removes the temporary files a killed WriteAtomic of path left behind —
// the files matching TempGlob(path) whose name ends in the random digits WriteAtomic
// gives them (NAME.tmp-123456789), so a file the user named alike is kept — and returns
// what it removed. path may hold a filepath.Glob pattern in its base name (e.g.
// "charts/*" for every chart). A stage calls it for the files it is about to write,
// before writing them; the caller must be the only writer of those files (two
// `llmcap report` runs into one directory at once would remove each other's).
// Errors: a malformed pattern, or a removal that failed (the others are still tried).
func RemoveTemps(path string) ([]string, error) {
	matches, err := filepath.Glob(TempGlob(path))
	if err != nil {
		return nil, fmt.Errorf("remove stale temporary files of %s: %w", path, err)
	}
	var removed []string
	var errs []error
	for _, m := range matches {
		if !isTempName(filepath.Base(m)) {
			continue
		}
		if st, err := os.Lstat(m); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove stale temporary file: %w", err))
			continue
		}
		removed = append(removed, m)
	}
	return removed, errors.Join(errs...)
}

// isTempName reports whether name is a WriteAtomic temporary file's: something, then
// tempInfix, then only digits (os.CreateTemp's random part).
func isTempName(name string) bool {
	i := strings.LastIndex(name, tempInfix)
	if i <= 0 || i+len(tempInfix) == len(name) {
		return false
	}
	for _, c := range name[i+len(tempInfix):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
