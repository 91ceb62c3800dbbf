package main

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"go.opentelemetry.io/collector/confmap"
)

// TestFeedTargets: the scrape configs with static_configs read
// them from a file of their own instead, next to any file_sd_configs
// they have; the others are left alone; a config without static targets
// is not fed.
func TestFeedTargets(t *testing.T) {
	dir := t.TempDir()
	values := map[string]any{"config": map[string]any{"scrape_configs": []any{
		map[string]any{"job_name": "a", "static_configs": []any{
			map[string]any{"targets": []any{"h:1", "h:2"}},
			map[string]any{"targets": []any{"h:3"}, "labels": map[string]any{"x": "y"}},
		}},
		map[string]any{"job_name": "b", "file_sd_configs": []any{map[string]any{"files": []any{"/etc/b.json"}}}},
		map[string]any{"job_name": "c c", "static_configs": []any{map[string]any{"targets": []any{}}},
			"file_sd_configs": []any{map[string]any{"files": []any{"/etc/c.json"}}}},
	}}}
	cfg := decodePromConfig(t, values)
	fed, files, ok, err := feedTargets(values, cfg, dir)
	if err != nil || !ok {
		t.Fatalf("fed %v, err %v", ok, err)
	}
	fa, fc := filepath.Join(dir, targetFileName("a")), filepath.Join(dir, targetFileName("c c"))
	wantFiles := map[string][]byte{
		fa: []byte(`[{"targets":["h:1","h:2"]},{"targets":["h:3"],"labels":{"x":"y"}}]` + "\n"),
		fc: []byte(`[{"targets":[]}]` + "\n"),
	}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files %q, want %q", files, wantFiles)
	}
	scs := fed["config"].(map[string]any)["scrape_configs"].([]any)
	wantScs := []any{
		map[string]any{"job_name": "a", "file_sd_configs": []any{map[string]any{"files": []any{fa}, "refresh_interval": targetsRefresh}}},
		values["config"].(map[string]any)["scrape_configs"].([]any)[1],
		map[string]any{"job_name": "c c", "file_sd_configs": []any{
			map[string]any{"files": []any{"/etc/c.json"}},
			map[string]any{"files": []any{fc}, "refresh_interval": targetsRefresh},
		}},
	}
	if !reflect.DeepEqual(scs, wantScs) {
		t.Errorf("scrape configs %v, want %v", scs, wantScs)
	}
	if _, has := values["config"].(map[string]any)["scrape_configs"].([]any)[0].(map[string]any)["static_configs"]; !has {
		t.Error("the values given were changed")
	}

	none := map[string]any{"config": map[string]any{"scrape_configs": []any{values["config"].(map[string]any)["scrape_configs"].([]any)[1]}}}
	if _, _, ok, err := feedTargets(none, decodePromConfig(t, none), dir); ok || err != nil {
		t.Errorf("no static targets: fed %v, err %v", ok, err)
	}
	if a, b := targetFileName("a/b"), targetFileName("a_b"); a == b {
		t.Errorf("job names a/b and a_b share the file %s", a)
	}
}

func decodePromConfig(t *testing.T, values map[string]any) *prometheusreceiver.Config {
	t.Helper()
	cfg := prometheusreceiver.NewFactory().CreateDefaultConfig().(*prometheusreceiver.Config)
	if err := confmap.NewFromStringMap(values).Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}
