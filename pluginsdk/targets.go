package pluginsdk

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/component"
)

// TargetFeed feeds a receiver's targets through files, so that a change
// of the targets alone does not rebuild the receiver.
//
// A receiver whose targets a script computes (the Prometheus receiver's
// static_configs, typically cluster.shard(targets), evaluated again on
// every membership change) would be rebuilt on every change of them, and
// a rebuilt Prometheus receiver scrapes nothing until its scrape
// manager's first reload, about 5 s later, not even the targets that did
// not change. With a feed, the receiver is created with its targets read
// from files under the component's data path (Prometheus's
// file_sd_configs, which watches them), and when only the targets change
// the files are rewritten (write and rename) and the receiver is kept.
//
// The feed splits values (decoded into cfg) into the values the receiver
// is created from, reading its targets from files in dir, and the content
// of each file by path. fed is false when the config has no targets to
// feed, or they cannot be fed here; values are then used as they are.
type TargetFeed func(values map[string]any, cfg component.Config, dir string) (upstream map[string]any, files map[string][]byte, fed bool, err error)

// fed is what an instance was created from when its targets are fed
// through files.
type fed struct {
	dir    string
	values map[string]any
}

// feedTargets returns the config an instance of k is created from for
// values (decoded into cfg) with the component's data path dataPath, and
// what it was fed from (nil when its targets are not fed), after writing
// its target files.
func (k *kind) feedTargets(values map[string]any, cfg component.Config, dataPath string) (component.Config, *fed, error) {
	f, files, err := k.fedValues(values, cfg, dataPath)
	if err != nil || f == nil {
		return cfg, nil, err
	}
	fedCfg, errs := k.decode(f.values)
	if len(errs) > 0 {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, strings.TrimSpace(e.Path+" "+e.Message))
		}
		return nil, nil, fmt.Errorf("the config that reads its targets from files: %s", strings.Join(msgs, "; "))
	}
	if err := writeTargets(f.dir, files); err != nil {
		return nil, nil, err
	}
	return fedCfg, f, nil
}

// fedValues runs k's feed, if it has one and the component a data path.
func (k *kind) fedValues(values map[string]any, cfg component.Config, dataPath string) (*fed, map[string][]byte, error) {
	if k.feed == nil || dataPath == "" {
		return nil, nil, nil
	}
	dir, err := filepath.Abs(filepath.Join(dataPath, "targets"))
	if err != nil {
		return nil, nil, nil
	}
	upstream, files, ok, err := k.feed(values, cfg, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("feeding its targets through files: %w", err)
	}
	if !ok {
		return nil, nil, nil
	}
	return &fed{dir: dir, values: upstream}, files, nil
}

// retarget writes the target files of values when the instance inst
// reads its targets from files and values differ from what it was
// created from in those targets alone; it reports whether it did (the
// instance is then kept).
func (k *kind) retarget(inst *instance, values map[string]any, cfg component.Config, outputs []string) (bool, error) {
	if inst.fed == nil || !slices.Equal(inst.outputs, outputs) {
		return false, nil
	}
	f, files, err := k.fedValues(values, cfg, inst.dataPath)
	if err != nil || f == nil || f.dir != inst.fed.dir || !reflect.DeepEqual(f.values, inst.fed.values) {
		return false, nil
	}
	return true, writeTargets(f.dir, files)
}

// writeTargets writes each file that changed, atomically (a temporary
// file renamed over it: the receiver never reads half a file), and
// removes the other files of dir, left by targets no longer fed.
func writeTargets(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("target files: %w", err)
	}
	for path, content := range files {
		if filepath.Dir(path) != dir {
			return fmt.Errorf("target file %s is not in %s", path, dir)
		}
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
			continue
		}
		tmp, err := os.CreateTemp(dir, ".targets-*.tmp")
		if err != nil {
			return fmt.Errorf("writing target file: %w", err)
		}
		_, werr := tmp.Write(content)
		cerr := tmp.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), path)
		}
		if werr != nil {
			_ = os.Remove(tmp.Name())
			return fmt.Errorf("writing target file %s: %w", path, werr)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // the files are written; what is left over is harmless
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if _, keep := files[path]; !keep && strings.HasSuffix(e.Name(), ".json") {
			_ = os.Remove(path)
		}
	}
	return nil
}
