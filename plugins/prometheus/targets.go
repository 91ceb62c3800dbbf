package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"github.com/prometheus/prometheus/discovery"
	"github.com/prometheus/prometheus/discovery/targetgroup"
	"go.opentelemetry.io/collector/component"
)

// targetsRefresh is how often the Prometheus receiver's file
// discovery rereads the target files besides when fsnotify reports a
// change (the rename that replaces one): a fallback for a missed watch.
const targetsRefresh = "30s"

// inotifyWorks reports whether this process can watch files: the
// Prometheus file discovery gives up on its files (and scrapes nothing)
// when it cannot create a watcher, so targets are fed through files only
// when it can.
var inotifyWorks = sync.OnceValue(func() bool {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return false
	}
	_ = w.Close()
	return true
})

// feedTargets is the Prometheus receiver's pluginsdk.TargetFeed: each
// scrape config of `config.scrape_configs` with static_configs gets, in
// their stead, a file_sd_configs entry reading <dir>/<job>-<hash>.json,
// which holds the static configs' target groups (targets and labels) as
// file discovery reads them. The scrape config is otherwise as written,
// so that a change of its static targets alone changes the file, not the
// receiver's config. Target groups read from a file carry the label
// __meta_filepath (dropped after relabelling, like every __meta_ label).
func feedTargets(values map[string]any, cfg component.Config, dir string) (map[string]any, map[string][]byte, bool, error) {
	pc, ok := cfg.(*prometheusreceiver.Config)
	if !ok || pc.PrometheusConfig == nil || strings.Contains(dir, "*") || !inotifyWorks() {
		return nil, nil, false, nil
	}
	conf, ok := values["config"].(map[string]any)
	if !ok {
		return nil, nil, false, nil
	}
	scs, ok := conf["scrape_configs"].([]any)
	if !ok {
		return nil, nil, false, nil
	}
	groups := map[string][]fileTargetGroup{} // by job name, from the decoded config
	for _, sc := range pc.PrometheusConfig.ScrapeConfigs {
		if sc == nil {
			continue
		}
		for _, sd := range sc.ServiceDiscoveryConfigs {
			static, ok := sd.(discovery.StaticConfig)
			if !ok {
				continue
			}
			for _, g := range static {
				if g == nil {
					continue
				}
				groups[sc.JobName] = append(groups[sc.JobName], newFileTargetGroup(g))
			}
		}
	}

	files := map[string][]byte{}
	fedScs := make([]any, len(scs))
	for i, v := range scs {
		fedScs[i] = v
		sc, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if _, has := sc["static_configs"]; !has {
			continue
		}
		job, ok := sc["job_name"].(string)
		if !ok || job == "" {
			return nil, nil, false, fmt.Errorf("config.scrape_configs[%d]: static_configs without a job_name", i+1)
		}
		path := filepath.Join(dir, targetFileName(job))
		if _, dup := files[path]; dup {
			return nil, nil, false, fmt.Errorf("config.scrape_configs[%d]: job_name %q is used twice", i+1, job)
		}
		content, err := json.Marshal(append([]fileTargetGroup{}, groups[job]...))
		if err != nil {
			return nil, nil, false, fmt.Errorf("config.scrape_configs[%d]: %w", i+1, err)
		}
		files[path] = append(content, '\n')

		fed := maps.Clone(sc)
		delete(fed, "static_configs")
		var sds []any
		if old, ok := sc["file_sd_configs"].([]any); ok {
			sds = append(sds, old...)
		}
		fed["file_sd_configs"] = append(sds, map[string]any{
			"files":            []any{path},
			"refresh_interval": targetsRefresh,
		})
		fedScs[i] = fed
	}
	if len(files) == 0 {
		return nil, nil, false, nil
	}
	fedConf := maps.Clone(conf)
	fedConf["scrape_configs"] = fedScs
	fedValues := maps.Clone(values)
	fedValues["config"] = fedConf
	return fedValues, files, true, nil
}

// fileTargetGroup is a target group as Prometheus's file discovery reads
// it from JSON.
type fileTargetGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// newFileTargetGroup converts a static config's target group: each
// target is its address label set.
func newFileTargetGroup(tg *targetgroup.Group) fileTargetGroup {
	g := fileTargetGroup{Targets: make([]string, 0, len(tg.Targets))}
	for _, t := range tg.Targets {
		g.Targets = append(g.Targets, string(t["__address__"]))
	}
	if len(tg.Labels) > 0 {
		g.Labels = make(map[string]string, len(tg.Labels))
		for k, v := range tg.Labels {
			g.Labels[string(k)] = string(v)
		}
	}
	return g
}

// targetFileName is the file a job's targets are kept in: its name with
// the characters a file name should not have replaced, and a hash of the
// name, which tells apart names that differ only in those.
func targetFileName(job string) string {
	safe := []rune{}
	for _, r := range job {
		if len(safe) == 64 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			safe = append(safe, r)
		} else {
			safe = append(safe, '_')
		}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(job))
	return fmt.Sprintf("%s-%08x.json", string(safe), h.Sum32())
}
