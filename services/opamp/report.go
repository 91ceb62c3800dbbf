package opamp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/flowlua/flowlua/engine/component"
)

// agentDescription describes this agent: flowlua, its version, the host
// and its OS and architecture, with the collector's attribute names.
func agentDescription(version string) *protobufs.AgentDescription {
	host, _ := os.Hostname()
	str := func(k, v string) *protobufs.KeyValue {
		return &protobufs.KeyValue{Key: k, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_StringValue{StringValue: v}}}
	}
	return &protobufs.AgentDescription{
		IdentifyingAttributes: []*protobufs.KeyValue{
			str("service.name", "flowlua"),
			str("service.version", version),
		},
		NonIdentifyingAttributes: []*protobufs.KeyValue{
			str("host.name", host),
			str("os.type", runtime.GOOS),
			str("host.arch", runtime.GOARCH),
		},
	}
}

// healthKey is what makes two health reports differ: each component's
// state and message, not the times.
func healthKey(infos []component.Info) string {
	var b strings.Builder
	for _, info := range infos {
		fmt.Fprintf(&b, "%s\x00%d\x00%s\x00", info.ID, info.Health.Health, info.Health.Message)
	}
	return b.String()
}

// componentHealth is the agent's health: healthy while no component is
// unhealthy or exited (a component whose health is unknown has said
// nothing wrong, as for /-/healthy), with one entry per component.
func componentHealth(infos []component.Info, start time.Time) *protobufs.ComponentHealth {
	now := uint64(time.Now().UnixNano())
	h := &protobufs.ComponentHealth{
		Healthy:            true,
		Status:             "healthy",
		StartTimeUnixNano:  uint64(start.UnixNano()),
		StatusTimeUnixNano: now,
		ComponentHealthMap: make(map[string]*protobufs.ComponentHealth, len(infos)),
	}
	var bad []string
	for _, info := range infos {
		ok := info.Health.Health != component.HealthUnhealthy && info.Health.Health != component.HealthExited
		c := &protobufs.ComponentHealth{
			Healthy: ok,
			Status:  info.Health.Health.String(),
		}
		if !info.Health.UpdateTime.IsZero() {
			c.StatusTimeUnixNano = uint64(info.Health.UpdateTime.UnixNano())
		}
		if ok {
			c.StartTimeUnixNano = uint64(start.UnixNano())
		} else {
			c.LastError = info.Health.Message
			bad = append(bad, fmt.Sprintf("%s: %s: %s", info.ID, info.Health.Health, info.Health.Message))
		}
		h.ComponentHealthMap[info.ID] = c
	}
	if len(bad) > 0 {
		h.Healthy = false
		h.Status = "unhealthy"
		h.LastError = strings.Join(bad, "\n")
	}
	return h
}

// maxEffectiveFile bounds a file reported in the effective config.
const maxEffectiveFile = 1 << 20

// effectiveConfig reads the files of the running pipeline: the main file
// and the modules and Lua plugins it loaded, named relative to the main
// file's directory (the names a remote config gives them). Files that are
// not scripts or configs (native plugins' executables) are left out.
func effectiveConfig(main string, files []string) *protobufs.EffectiveConfig {
	cm := map[string]*protobufs.AgentConfigFile{}
	base := filepath.Dir(main)
	for _, f := range files {
		typ := contentType(f)
		if typ == "" {
			continue
		}
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() || st.Size() > maxEffectiveFile {
			continue
		}
		body, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		name := f
		if rel, err := filepath.Rel(base, f); err == nil && filepath.IsLocal(rel) {
			name = filepath.ToSlash(rel)
		}
		cm[name] = &protobufs.AgentConfigFile{Body: body, ContentType: typ}
	}
	return &protobufs.EffectiveConfig{ConfigMap: &protobufs.AgentConfigMap{ConfigMap: cm}}
}

// contentType is the content type of a pipeline's file by its extension,
// "" for files that are neither scripts nor configs.
func contentType(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".lua":
		return "text/x-lua"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".json":
		return "application/json"
	}
	return ""
}
