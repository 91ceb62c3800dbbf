package otelcol

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	flowcomp "github.com/flowlua/flowlua/engine/component"
)

// TestStrictKeysAcceptUpstreamConfigs runs flowlua's extra unknown-key
// check over the configs in each upstream component's own testdata (from
// the module cache): every config the collector accepts must pass it too.
func TestStrictKeysAcceptUpstreamConfigs(t *testing.T) {
	for _, name := range flowcomp.DefaultRegistry.Names() {
		if !strings.HasPrefix(name, "otelcol.") {
			continue
		}
		reg, _ := flowcomp.DefaultRegistry.Get(name)
		k, ok := reg.Schema.(*kind)
		if !ok {
			continue // not in this build (absent.go)
		}
		out, err := exec.Command("go", "list", "-f", "{{.Dir}}", k.configType.Elem().PkgPath()).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		files, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "testdata", "*.yaml"))
		checked := 0
		for _, f := range files {
			base := filepath.Base(f)
			if strings.Contains(base, "bad") || strings.Contains(base, "invalid") || strings.Contains(base, "typo") {
				continue
			}
			conf, err := confmaptest.LoadConf(f)
			if err != nil {
				continue
			}
			for label, values := range candidates(k, conf.ToStringMap()) {
				cfg := k.factory.CreateDefaultConfig()
				if confmap.NewFromStringMap(values).Unmarshal(cfg) != nil {
					continue // the collector refuses it too
				}
				checked++
				if errs := unknownKeys(values, k.configType); len(errs) > 0 {
					t.Errorf("%s: %s %s: %v", name, base, label, errs)
				}
			}
		}
		t.Logf("%s: %d upstream configs checked", name, checked)
	}
}

// candidates splits a testdata file into configs: either the file is one
// config, or its top-level keys are component ids ("attributes/insert",
// also under a deprecated type name),
// or it is a whole collector config whose section of the class
// ("connectors") holds them.
func candidates(k *kind, m map[string]any) map[string]map[string]any {
	if section, ok := m[k.class.String()+"s"].(map[string]any); ok {
		m = section
	}
	typ := k.factory.Type().String()
	alias := "-"
	if a, ok := k.factory.(deprecatedAlias); ok && a.DeprecatedAlias().String() != "" {
		alias = a.DeprecatedAlias().String()
	}
	byID := map[string]map[string]any{}
	for key, v := range m {
		if key != typ && !strings.HasPrefix(key, typ+"/") && key != alias && !strings.HasPrefix(key, alias+"/") {
			return map[string]map[string]any{"(file)": m}
		}
		c, _ := v.(map[string]any)
		if c == nil {
			c = map[string]any{}
		}
		byID[key] = c
	}
	return byID
}

func TestStrictKeysCatchSquashedTypos(t *testing.T) {
	got := decodeErrors(t, "otelcol.receiver.otlp", map[string]any{
		"protocols": map[string]any{"http": map[string]any{"endpont": "127.0.0.1:4318"}},
	})
	want := `protocols.http: unknown field "endpont" (did you mean "endpoint"?)`
	if len(got) != 1 || got[0] != want {
		t.Errorf("errors %q, want %q", got, want)
	}
	// `enabled` belongs to the optional section, not to its fields.
	if errs := decodeErrors(t, "otelcol.exporter.otlp", map[string]any{
		"endpoint": "a:1", "sending_queue": map[string]any{"enabled": false},
	}); errs != nil {
		t.Errorf("sending_queue.enabled refused: %q", errs)
	}
}

// A config whose own Unmarshal reads some keys (host_metrics' scrapers)
// still has its other keys checked.
func TestStrictKeysBesideOwnKeys(t *testing.T) {
	got := decodeErrors(t, "otelcol.receiver.host_metrics", map[string]any{
		"colection_interval": "1s",
		"scrapers":           map[string]any{"cpu": map[string]any{}},
	})
	want := `unknown field "colection_interval" (did you mean "collection_interval"?)`
	if len(got) != 1 || got[0] != want {
		t.Errorf("errors %q, want %q", got, want)
	}
}
