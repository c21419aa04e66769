package sweep

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal of cols columns and returns its terminal side.
func openPty(t *testing.T, cols int) *os.File {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	fd := int(ptm.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	return pts
}

// TestWrapWidthFollowsTheTerminal: text for a terminal wraps at its width (at least
// MinWrapWidth, at most ConsoleWidth); anything else at ConsoleWidth.
func TestWrapWidthFollowsTheTerminal(t *testing.T) {
	for cols, want := range map[int]int{80: 80, 40: MinWrapWidth, 200: ConsoleWidth, 120: 120} {
		if got := WrapWidth(openPty(t, cols)); got != want {
			t.Errorf("terminal of %d columns: wrap at %d, want %d", cols, got, want)
		}
	}
	if got := WrapWidth(&bytes.Buffer{}); got != ConsoleWidth {
		t.Errorf("a buffer: wrap at %d, want %d", got, ConsoleWidth)
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := WrapWidth(f); got != ConsoleWidth {
		t.Errorf("a file: wrap at %d, want %d", got, ConsoleWidth)
	}
}
