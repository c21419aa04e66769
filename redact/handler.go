package redact

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync/atomic"
)

// Handler is a slog.Handler that redacts every record before the handler it wraps sees
// it: the message, every attribute's string value, an error's message, a Stringer's
// text, the items of a []string, groups recursively, and any other value whose printed
// form holds a secret (which is then logged as that redacted text). Handlers derived
// with WithAttrs/WithGroup share the Redactor, so SetRedactor (e.g. once the plan is
// loaded) applies to all of them.
type Handler struct {
	inner slog.Handler
	r     *atomic.Pointer[Redactor]
}

// NewHandler wraps inner; r may be nil (only the generic shapes are masked until
// SetRedactor).
func NewHandler(inner slog.Handler, r *Redactor) *Handler {
	h := &Handler{inner: inner, r: new(atomic.Pointer[Redactor])}
	h.r.Store(r)
	return h
}

// SetRedactor replaces the Redactor of h and of every handler derived from it.
func (h *Handler) SetRedactor(r *Redactor) { h.r.Store(r) }

// Enabled is the wrapped handler's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle redacts rec and passes it on.
func (h *Handler) Handle(ctx context.Context, rec slog.Record) error {
	r := h.r.Load()
	out := slog.NewRecord(rec.Time, rec.Level, r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.Attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

// WithAttrs redacts attrs and passes them on.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	r := h.r.Load()
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = r.Attr(a)
	}
	return &Handler{inner: h.inner.WithAttrs(red), r: h.r}
}

// WithGroup passes the group on.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), r: h.r}
}

// Attr returns a with its value redacted (see Handler).
func (r *Redactor) Attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, x := range g {
			out[i] = r.Attr(x)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, r.String(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, r.String(x.String()))
		case []string:
			return slog.Any(a.Key, r.Strings(x))
		default:
			if s := fmt.Sprintf("%+v", x); r.String(s) != s {
				return slog.String(a.Key, r.String(s))
			}
			if b, err := json.Marshal(x); err == nil { // reaches what pointers hide from %+v
				if s := string(b); r.String(s) != s {
					return slog.String(a.Key, r.String(s))
				}
			}
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
