package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler returns a slog.Handler that writes to h what it is given with
// the message and every attribute value redacted by s (a nil s redacts URL
// userinfo only): strings, errors, and any other value whose printed form
// holds something to redact, which is then written as that redacted text.
// Attributes given to WithAttrs are redacted once, when given. A handler
// that Handler returned for s is returned as it is.
func Handler(h slog.Handler, s *Set) slog.Handler {
	if rh, ok := h.(*handler); ok && rh.set == s {
		return h
	}
	return &handler{next: h, set: s}
}

type handler struct {
	next slog.Handler
	set  *Set
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.set.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a)
	}
	return &handler{next: h.next.WithAttrs(red), set: h.set}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(name), set: h.set}
}

// attr redacts one attribute's value.
func (h *handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s, red := v.String(), h.set.String(v.String()); red != s {
			return slog.String(a.Key, red)
		}
	case slog.KindGroup:
		group := v.Group()
		red := make([]any, len(group))
		for i, g := range group {
			red[i] = h.attr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		var s string
		if err, ok := v.Any().(error); ok {
			s = err.Error()
		} else {
			s = fmt.Sprint(v.Any())
		}
		if red := h.set.String(s); red != s {
			return slog.String(a.Key, red)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
