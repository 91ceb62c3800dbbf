package otelcol

import (
	"context"
	"log/slog"
	"sort"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newZapLogger returns a zap logger, as the collector's components take,
// writing to the component's slog logger (which carries component_id).
func newZapLogger(l *slog.Logger) *zap.Logger {
	if l == nil {
		return zap.NewNop()
	}
	return zap.New(&slogCore{logger: l})
}

// slogCore is a zapcore.Core forwarding entries to a slog.Logger.
type slogCore struct {
	logger *slog.Logger
}

var _ zapcore.Core = (*slogCore)(nil)

// Enabled asks the slog handler.
func (c *slogCore) Enabled(l zapcore.Level) bool {
	return c.logger.Enabled(context.Background(), slogLevel(l))
}

// With returns a core whose entries carry fields.
func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	return &slogCore{logger: c.logger.With(attrsOf(fields)...)}
}

// Check adds the core to ce when the entry's level is enabled.
func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

// Write logs the entry with its time, message and fields.
func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	r := slog.NewRecord(e.Time, slogLevel(e.Level), e.Message, 0)
	for _, a := range attrsOf(fields) {
		r.AddAttrs(a.(slog.Attr))
	}
	if e.LoggerName != "" {
		r.AddAttrs(slog.String("logger", e.LoggerName))
	}
	if e.Stack != "" {
		r.AddAttrs(slog.String("stacktrace", e.Stack))
	}
	return c.logger.Handler().Handle(context.Background(), r)
}

// Sync does nothing: slog handlers do not buffer.
func (c *slogCore) Sync() error { return nil }

// slogLevel maps zap levels to slog's; DPanic, Panic and Fatal are errors
// (zap itself panics or exits after writing).
func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	default:
		return slog.LevelError
	}
}

// attrsOf encodes zap fields as slog attributes (as []any of slog.Attr,
// which Logger.With takes), in field order.
func attrsOf(fields []zapcore.Field) []any {
	attrs := make([]any, 0, len(fields))
	for _, f := range fields {
		enc := zapcore.NewMapObjectEncoder()
		f.AddTo(enc)
		keys := make([]string, 0, len(enc.Fields))
		for k := range enc.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			attrs = append(attrs, slog.Any(k, enc.Fields[k]))
		}
	}
	return attrs
}
