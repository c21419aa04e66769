package sweep

import (
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"
)

// ConsoleWidth is the most columns a console line takes outside a terminal (a pipe, a
// file, CI): longer lines are wrapped at word boundaries (Wrap).
const ConsoleWidth = 160

// MinWrapWidth is the narrowest a terminal's width is taken for wrapping (WrapWidth):
// below it the terminal breaks the lines itself.
const MinWrapWidth = 60

// WrapWidth is the width to wrap text written to w at: a terminal's columns (at least
// MinWrapWidth, at most ConsoleWidth) when w is an *os.File on a terminal whose size is
// known, else ConsoleWidth.
func WrapWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return min(max(cols, MinWrapWidth), ConsoleWidth)
		}
	}
	return ConsoleWidth
}

// consoleIndent starts the continuation lines of a wrapped console line.
const consoleIndent = "    "

// Console is the stream (usually stderr) that the live progress display and the log
// share. In a terminal, every write (a log record) clears the progress bar, prints its
// line and redraws the bar, so the bar stays alone on the last line and no log line
// lands inside it. Outside a terminal there is no bar and every line is wrapped at word
// boundaries to ConsoleWidth columns. Safe for concurrent use; one Write should hold
// whole lines (slog handlers write a record at once).
type Console struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	width int       // the terminal's columns (0 when unknown or not a terminal)
	bar   *progress // the live display drawn on w, nil when none
	// verbatim: lines are written unchanged, never wrapped (SetVerbatim)
	verbatim bool
}

// NewConsole is the console on w; it is a terminal when w is an *os.File on one.
func NewConsole(w io.Writer) *Console {
	c := &Console{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		c.tty = true
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			c.width = cols
		}
	}
	return c
}

// IsTerminal reports whether the console is a terminal (the progress bar is shown).
func (c *Console) IsTerminal() bool { return c.tty }

// SetVerbatim makes Write print lines unchanged, never wrapped: for lines a program
// reads, such as --log-format json records, which a wrap would break.
func (c *Console) SetVerbatim() {
	c.mu.Lock()
	c.verbatim = true
	c.mu.Unlock()
}

// Write prints p: in a terminal above the live bar (cleared first, redrawn after);
// unless verbatim (SetVerbatim), lines are wrapped at ConsoleWidth (in a terminal, at
// its width when narrower). It returns len(p) on success.
func (c *Console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bar != nil {
		c.bar.bar.Clear()
	}
	width := ConsoleWidth
	if c.tty && c.width > 0 {
		width = min(c.width, ConsoleWidth)
	}
	text := string(p)
	if !c.verbatim {
		text = Wrap(text, width)
	}
	_, err := io.WriteString(c.w, text)
	if c.bar != nil {
		c.bar.bar.RenderBlank()
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// draw runs f (a bar operation) under the console's lock, so that no log line is
// written while the bar is drawn.
func (c *Console) draw(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

// attach makes p the live display drawn on the console (nil: none).
func (c *Console) attach(p *progress) {
	c.mu.Lock()
	c.bar = p
	c.mu.Unlock()
}

// Wrap breaks each line of s longer than width columns (runes) at spaces, indenting the
// continuation lines by four spaces; a word longer than a line is left whole. Lines
// that fit are returned unchanged.
func Wrap(s string, width int) string {
	if width <= len(consoleIndent)+1 || !needsWrap(s, width) {
		return s
	}
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	for _, line := range lines {
		body := strings.TrimSuffix(line, "\n")
		wrapLine(&b, body, width)
		if len(body) < len(line) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func needsWrap(s string, width int) bool {
	for _, line := range strings.Split(s, "\n") {
		if utf8.RuneCountInString(line) > width {
			return true
		}
	}
	return false
}

// wrapLine writes one line (no newline) wrapped at width onto b.
func wrapLine(b *strings.Builder, line string, width int) {
	col := 0
	for i, word := range strings.Split(line, " ") {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > width && col > len(consoleIndent):
			b.WriteString("\n" + consoleIndent)
			col = len(consoleIndent)
			if n == 0 {
				continue // a run of spaces at the break
			}
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
}
