package sweep

import (
	"bytes"
	"strings"
	"testing"
)

// TestConsoleWrapsTextLinesAtSpaces: outside a terminal a line longer than
// ConsoleWidth is broken at a space, the continuation indented four spaces, and no
// word is split.
func TestConsoleWrapsTextLinesAtSpaces(t *testing.T) {
	var b bytes.Buffer
	c := NewConsole(&b)
	line := strings.Repeat("word ", 50) + "end\n" // 253 columns
	if _, err := c.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || len(lines[0]) > ConsoleWidth || !strings.HasPrefix(lines[1], "    word") ||
		strings.Join(strings.Fields(b.String()), " ") != strings.TrimSpace(line) {
		t.Errorf("wrapped:\n%s", b.String())
	}
}

// TestConsoleVerbatimKeepsLongLinesWhole: after SetVerbatim (JSON log records) a line
// of any length is written unchanged.
func TestConsoleVerbatimKeepsLongLinesWhole(t *testing.T) {
	var b bytes.Buffer
	c := NewConsole(&b)
	c.SetVerbatim()
	line := `{"msg":"plan loaded","plan":"` + strings.Repeat("a b ", 100) + `"}` + "\n"
	if _, err := c.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if b.String() != line {
		t.Errorf("verbatim console changed the line:\n%s", b.String())
	}
}
