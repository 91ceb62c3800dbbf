package otelcol

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
)

// Targets fed through files. A receiver whose targets a script computes
// (the Prometheus receiver's static_configs, typically
// cluster.shard(targets), re-evaluated on every membership change) would
// be rebuilt on every change of them, and a rebuilt Prometheus receiver
// scrapes nothing until its scrape manager's first reload, about 5 s
// later, not even the targets that did not change. Instead, flowlua
// creates the upstream receiver with the targets read from files it
// writes under the component's data path (Prometheus's file_sd_configs,
// which watches them with fsnotify), and when only the targets change it
// rewrites the files (write and rename) and keeps the receiver: its
// scrape manager keeps the loops of the targets that stay and starts
// those that are new on its next reload.

// targetFeed splits the values of a receiver's config (decoded into cfg)
// into the values the upstream receiver is created from, with its
// targets read from files in dir, and the content of each file, by path.
// fed is false when the config has no targets to feed, or they cannot be
// fed in this process; values are then used as they are.
type targetFeed func(values map[string]any, cfg component.Config, dir string) (upstream map[string]any, files map[string][]byte, fed bool, err error)

// feedsTargets says that the receiver's targets are fed through files
// by feed (see targetFeed).
func feedsTargets(feed targetFeed) Option {
	return func(k *kind) { k.feed = feed }
}

// targetsDir is where a component's target files are kept; "" when the
// component keeps no files (no data path).
func (a *adapter) targetsDir() string {
	if a.k.feed == nil || a.opts.DataPath == "" {
		return ""
	}
	dir, err := filepath.Abs(filepath.Join(a.opts.DataPath, "targets"))
	if err != nil {
		return ""
	}
	return dir
}

// fedValues returns the values the upstream component is created from
// for d, and the target files; fed is false when d's targets are not fed
// through files.
func (a *adapter) fedValues(d decoded) (values map[string]any, files map[string][]byte, fed bool, err error) {
	dir := a.targetsDir()
	if dir == "" || d.partial {
		return d.values, nil, false, nil
	}
	values, files, fed, err = a.k.feed(d.values, d.config, dir)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: feeding its targets through files: %w", a.opts.ID, err)
	}
	if !fed {
		return d.values, nil, false, nil
	}
	return values, files, true, nil
}

// feedTargets returns d as the upstream component is created from it:
// when its targets are fed through files, with the config that reads
// them, after writing them.
func (a *adapter) feedTargets(d decoded) (decoded, error) {
	values, files, fed, err := a.fedValues(d)
	if err != nil || !fed {
		return d, err
	}
	cfg := a.k.factory.CreateDefaultConfig()
	if err := confmap.NewFromStringMap(values).Unmarshal(cfg); err != nil {
		return d, fmt.Errorf("%s: the config that reads its targets from files: %w", a.opts.ID, unmarshalErrors(err, a.k.configType, values))
	}
	if err := confmap.Validate(cfg); err != nil {
		return d, fmt.Errorf("%s: the config that reads its targets from files: %w", a.opts.ID, validateErrors(err, a.k.configType))
	}
	if err := a.writeTargets(files); err != nil {
		return d, err
	}
	d.values, d.config = values, cfg
	return d, nil
}

// sameButTargets reports whether old and d differ at most in targets fed
// through files: the upstream component created for old reads d's
// targets once they are written (retarget).
func (a *adapter) sameButTargets(old, d decoded) bool {
	ov, _, ofed, oerr := a.fedValues(old)
	nv, _, nfed, nerr := a.fedValues(d)
	return ofed && nfed && oerr == nil && nerr == nil && reflect.DeepEqual(ov, nv)
}

// retarget writes d's target files, if its targets are fed through files.
func (a *adapter) retarget(d decoded) error {
	_, files, fed, err := a.fedValues(d)
	if err != nil || !fed {
		return err
	}
	return a.writeTargets(files)
}

// writeTargets writes each file that changed, atomically (a temporary
// file renamed over it: the receiver never reads half a file), and
// removes the other files of the directory, left by targets no longer
// fed.
func (a *adapter) writeTargets(files map[string][]byte) error {
	dir := a.targetsDir()
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("%s: target files: %w", a.opts.ID, err)
	}
	for path, content := range files {
		if filepath.Dir(path) != dir {
			return fmt.Errorf("%s: target file %s is not in %s", a.opts.ID, path, dir)
		}
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
			continue
		}
		tmp, err := os.CreateTemp(dir, ".targets-*.tmp")
		if err != nil {
			return fmt.Errorf("%s: writing target file: %w", a.opts.ID, err)
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
			return fmt.Errorf("%s: writing target file %s: %w", a.opts.ID, path, werr)
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
