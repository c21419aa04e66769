//go:build linux

package tune

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/llmcap/llmcap/launch"
)

// TestProcessGroupMemoryAndLife: the RSS of a launched process group is its members'
// (a shell and its child), its start time is known, and once stopped no member is left.
func TestProcessGroupMemoryAndLife(t *testing.T) {
	p, err := launch.StartProcess([]string{"/bin/sh", "-c", "sleep 30 & wait"}, nil, filepath.Join(t.TempDir(), "log"), nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	rss, pids := groupRSSBytes(p.Pid())
	if len(pids) != 2 || rss < 100<<10 {
		t.Errorf("group %d: pids %v, RSS %d B: want the shell and sleep, each resident", p.Pid(), pids, rss)
	}
	if _, ok := startTicks(p.Pid()); !ok {
		t.Error("no start time for a live process")
	}
	if err := p.Stop(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if groupAlive(p.Pid()) {
		t.Error("a member of the group survived Stop")
	}
}
