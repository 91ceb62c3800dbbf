package native

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
)

// lifecycleSink takes go-plugin's own log (JSON lines): it logs what goes
// wrong and notices when the process exits, with its status.
type lifecycleSink struct {
	proc *process
	log  *slog.Logger
}

func (s *lifecycleSink) Write(b []byte) (int, error) {
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		var e map[string]any
		if len(line) == 0 || json.Unmarshal(line, &e) != nil {
			continue
		}
		if e["@module"] != "plugin" {
			continue // a line of the plugin's stderr, which stderrSink logs
		}
		msg, _ := e["@message"].(string)
		if msg == "plugin process exited" {
			reason, _ := e["error"].(string)
			s.proc.markExited(reason)
			continue
		}
		if lvl, _ := e["@level"].(string); lvl == "error" || lvl == "warn" {
			s.log.Warn("go-plugin: "+msg, "err", e["error"])
		}
	}
	return len(b), nil
}

// stderrSink logs the plugin's stderr line by line into flowlua's log:
// a JSON line (the SDK's zap logger) at its level with its fields, any
// other line as it is; and it keeps the last lines for health messages.
type stderrSink struct {
	proc *process
	log  *slog.Logger

	mu  sync.Mutex
	buf []byte
}

func (s *stderrSink) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, b...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		s.line(string(bytes.TrimRight(s.buf[:i], "\r")))
		s.buf = s.buf[i+1:]
	}
	if len(s.buf) > 64<<10 {
		s.line(string(s.buf))
		s.buf = s.buf[:0]
	}
	return len(b), nil
}

func (s *stderrSink) line(line string) {
	if line == "" {
		return
	}
	var e map[string]any
	if line[0] != '{' || json.Unmarshal([]byte(line), &e) != nil {
		s.proc.tail.add(line)
		s.log.Info(line, "stream", "stderr")
		return
	}
	if l := e["@level"]; l != "debug" && l != "trace" {
		s.proc.tail.add(line) // not go-plugin's handshake chatter
	}
	msg, _ := e["msg"].(string)
	lvl := e["level"]
	if m, ok := e["@message"].(string); ok { // go-plugin's own (hclog)
		msg, lvl = m, e["@level"]
	}
	level := slog.LevelInfo
	switch lvl {
	case "trace":
		level = slog.LevelDebug - 4
	case "debug":
		level = slog.LevelDebug
	case "warn":
		level = slog.LevelWarn
	case "error", "dpanic", "panic", "fatal":
		level = slog.LevelError
	}
	attrs := make([]any, 0, 2*len(e))
	for k, v := range e {
		switch k {
		case "msg", "level", "ts", "caller", "stacktrace", "@message", "@level", "@timestamp", "@module":
			continue
		case "component_id":
			if id, ok := v.(string); ok {
				v, _, _ = strings.Cut(id, "#") // the instance's wire id
			}
		}
		attrs = append(attrs, k, v)
	}
	s.log.Log(context.Background(), level, msg, attrs...)
}
