package main

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// consoleHandler is the text log format for people (--log-format text): one compact
// line per record, "15:04:05 message key=value …", the level named only when it is not
// info ("15:04:05 warning: …", "error: …", "debug: …"); values holding spaces, quotes
// or "=" are quoted as Go strings. Each record is one Write, so sweep.Console can print
// it above the progress bar, or wrap it at word boundaries outside a terminal.
type consoleHandler struct {
	mu     *sync.Mutex
	w      io.Writer
	opts   slog.HandlerOptions
	attrs  string // preformatted " key=value" of WithAttrs
	prefix string // the open groups, "g1.g2."
}

func newConsoleHandler(w io.Writer, opts *slog.HandlerOptions) *consoleHandler {
	h := &consoleHandler{mu: &sync.Mutex{}, w: w}
	if opts != nil {
		h.opts = *opts
	}
	return h
}

// Enabled reports whether records at l are printed (HandlerOptions.Level, default info).
func (h *consoleHandler) Enabled(_ context.Context, l slog.Level) bool {
	min := slog.LevelInfo
	if h.opts.Level != nil {
		min = h.opts.Level.Level()
	}
	return l >= min
}

// Handle writes rec as one line.
func (h *consoleHandler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	if !rec.Time.IsZero() {
		b.WriteString(rec.Time.Format(time.TimeOnly) + " ")
	}
	b.WriteString(levelWord(rec.Level))
	b.WriteString(rec.Message)
	b.WriteString(h.attrs)
	rec.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, h.prefix, a)
		return true
	})
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// WithAttrs is h with attrs printed on every record.
func (h *consoleHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	for _, a := range attrs {
		writeAttr(&b, h.prefix, a)
	}
	c := *h
	c.attrs += b.String()
	return &c
}

// WithGroup is h with the later attributes' keys prefixed "name.".
func (h *consoleHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix += name + "."
	return &c
}

// levelWord is how a record's level starts its line: nothing for info.
func levelWord(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error: "
	case l >= slog.LevelWarn:
		return "warning: "
	case l < slog.LevelInfo:
		return "debug: "
	}
	return ""
}

// writeAttr writes " key=value" (groups flattened as "group.key"); empty attributes
// are skipped, as slog's handlers do.
func writeAttr(b *strings.Builder, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			writeAttr(b, p, g)
		}
		return
	}
	b.WriteString(" " + prefix + a.Key + "=" + quoteValue(a.Value.String()))
}

// quoteValue quotes s when it is empty or holds a space, a quote, "=" or a control
// character.
func quoteValue(s string) string {
	if s == "" || strings.ContainsAny(s, " \"=\t\n\r") {
		return strconv.Quote(s)
	}
	return s
}
