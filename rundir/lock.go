package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// FileLock is the run directory's lock file: an exclusive advisory lock (flock) on it
// is held for a sweep's lifetime, so a second sweep (a --resume of a running run, or
// another run into the same directory) is refused instead of both writing the files.
// It holds the holder's lockInfo as JSON and is removed when the sweep ends (a killed
// sweep leaves it behind, unlocked: harmless). Without flock (Windows) there is no lock.
const FileLock = ".lock"

// errLocked is returned by tryLock when another process holds the lock.
var errLocked = errors.New("locked")

// lockInfo identifies the process holding a run directory's lock.
type lockInfo struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host,omitempty"`
	Started time.Time `json:"started"`
}

// Lock is a held run-directory lock; Release frees it and removes its file.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes dir's exclusive lock, creating dir first when create is set (a
// missing dir without create is left alone: nil lock, nil error). When another process
// holds the lock, the error names that process.
func Acquire(dir string, create bool) (*Lock, error) {
	if !create {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sweep: create run directory: %w", err)
	}
	path := filepath.Join(dir, FileLock)
	var f *os.File
	for attempt := 0; ; attempt++ {
		var err error
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644); err != nil {
			return nil, fmt.Errorf("sweep: lock run directory: %w", err)
		}
		if err := tryLock(f); err != nil {
			f.Close()
			if errors.Is(err, errLocked) {
				return nil, fmt.Errorf("sweep: run directory %s is in use by another sweep (%s); "+
					"wait for it to end or stop it, then resume", dir, holderOf(path))
			}
			return nil, fmt.Errorf("sweep: lock run directory: %w", err)
		}
		// The holder removes the file as it lets go: a lock taken on a file no longer
		// at path is void; take the new one.
		if sameFile(f, path) || attempt == 10 {
			break
		}
		_ = unlock(f)
		f.Close()
	}
	host, _ := os.Hostname()
	b, _ := json.Marshal(lockInfo{PID: os.Getpid(), Host: host, Started: time.Now().UTC()})
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(append(b, '\n'), 0)
	}
	return &Lock{f: f, path: path}, nil
}

// sameFile reports whether the open file f is the file now at path.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// holderOf describes the process named in the lock file at path.
func holderOf(path string) string {
	var li lockInfo
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &li) != nil || li.PID == 0 {
		return "process unknown"
	}
	s := fmt.Sprintf("pid %d", li.PID)
	if li.Host != "" {
		s += " on " + li.Host
	}
	if !li.Started.IsZero() {
		s += ", since " + li.Started.Local().Format("2006-01-02 15:04:05")
	}
	return s
}

// Release frees the lock (nil-safe).
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = os.Remove(l.path)
	_ = unlock(l.f)
	_ = l.f.Close()
	l.f = nil
}

// SweepGone reports whether the sweep that run.json says is running in dir is gone:
// no process holds dir's lock (FileLock), e.g. it was killed with SIGKILL or the
// machine rebooted, so run.json could not record the interruption. It tests the lock
// without waiting (holding it for an instant). It is false where run directories are
// not locked (Windows) and when the lock file cannot be opened for another reason.
func SweepGone(dir string) bool {
	if !locksWork {
		return false
	}
	f, err := os.Open(filepath.Join(dir, FileLock))
	if errors.Is(err, os.ErrNotExist) {
		return true // a live sweep keeps its lock file; a clean exit records its state
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if err := tryLock(f); err != nil {
		return false
	}
	_ = unlock(f)
	return true
}
