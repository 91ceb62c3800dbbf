// Command corpus converts every collector configuration found under the
// directories it is given (upstream repositories' testdata and examples)
// that uses only registered components, checks each converted script as
// `flowlua check` does, and prints the figures and the top reasons of
// failure. It is run by hand (`make convert-corpus DIRS=...`), never by
// `make test`: it reads repositories fetched for it.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/engine"
	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/scriptload"
	"github.com/flowlua/flowlua/stdlib/otelcol"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"

	_ "github.com/flowlua/flowlua/stdlib/all" // the built-in components
)

var sections = map[string]string{
	"receivers": "receiver", "processors": "processor", "exporters": "exporter",
	"connectors": "connector", "extensions": "extension",
}

func main() {
	verbose := len(os.Args) > 1 && os.Args[1] == "-v"
	dirs := os.Args[1:]
	if verbose {
		dirs = dirs[1:]
	}
	if len(dirs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: corpus [-v] DIR...")
		os.Exit(2)
	}
	cat := convert.Registry(flowcomp.DefaultRegistry)
	var found, attempted, converted, checked int
	skipped := map[string]int{}
	convReasons, checkReasons := map[string]int{}, map[string]int{}
	tmp, err := os.MkdirTemp("", "corpus")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			unknown, hasService, ok := survey(src, cat)
			if !ok {
				// A component's own config, as its tests read it: made
				// the body of that component (or a section of it, when
				// its keys are the component's ids).
				if src, ok = wrap(path, src); !ok {
					return nil
				}
				unknown, hasService, _ = survey(src, cat)
			}
			found++
			if len(unknown) > 0 {
				for _, u := range unknown {
					skipped[u]++
				}
				return nil
			}
			attempted++
			rel, _ := filepath.Rel(dir, path)
			res, err := convert.Convert(src, convert.Options{Filename: rel, Catalog: cat, KeepUnused: !hasService})
			if err != nil {
				convReasons[reason(err.Error())]++
				if verbose {
					fmt.Printf("CONVERT %s: %v\n", rel, err)
				}
				return nil
			}
			if len(res.Problems) > 0 {
				for _, p := range res.Problems {
					convReasons[reason(p.Msg)]++
				}
				if verbose {
					fmt.Printf("CONVERT %s:\n%s\n", rel, res.Error())
				}
				return nil
			}
			converted++
			if err := check(filepath.Join(tmp, "main.lua"), res.Script); err != nil {
				for _, l := range strings.Split(err.Error(), "\n") {
					checkReasons[reason(l)]++
				}
				if verbose {
					fmt.Printf("CHECK %s:\n%v\n", rel, err)
				}
				return nil
			}
			checked++
			return nil
		})
	}
	fmt.Printf("collector configs found: %d\n", found)
	fmt.Printf("using only registered components (attempted): %d\n", attempted)
	fmt.Printf("converted without problems: %d / %d\n", converted, attempted)
	fmt.Printf("passing flowlua check: %d / %d\n", checked, converted)
	top("not attempted, for want of", skipped, 15)
	top("conversion problems", convReasons, 15)
	top("check failures", checkReasons, 20)
}

// survey reports whether src is a collector config (a mapping with a
// component section), whether it has a service section, and the
// components it uses that no registration answers to.
func survey(src []byte, cat convert.Catalog) (unknown []string, hasService, ok bool) {
	var doc map[string]any
	if yaml.Unmarshal(src, &doc) != nil || doc == nil {
		return nil, false, false
	}
	// A collector config has only the collector's sections, each a
	// mapping (or empty, or a ${...} reference); not a builder's manifest.
	for k, v := range doc {
		if _, isSection := sections[k]; !isSection && k != "service" {
			return nil, false, false
		}
		switch v.(type) {
		case nil, string, map[string]any:
		default:
			return nil, false, false
		}
	}
	svc, hasService := doc["service"].(map[string]any)
	used := map[string]bool{} // "class type" used by pipelines or service::extensions
	if hasService {
		pipes, _ := svc["pipelines"].(map[string]any)
		for _, p := range pipes {
			pm, _ := p.(map[string]any)
			for key, classes := range map[string][]string{"receivers": {"receiver", "connector"}, "processors": {"processor"}, "exporters": {"exporter", "connector"}} {
				list, _ := pm[key].([]any)
				for _, id := range list {
					s, _ := id.(string)
					typ, _, _ := strings.Cut(s, "/")
					for _, cl := range classes {
						used[cl+" "+typ] = true
					}
				}
			}
		}
		exts, _ := svc["extensions"].([]any)
		for _, id := range exts {
			s, _ := id.(string)
			typ, _, _ := strings.Cut(s, "/")
			used["extension "+typ] = true
		}
	}
	seen := map[string]bool{}
	for sec, class := range sections {
		comps, isMap := doc[sec].(map[string]any)
		if _, present := doc[sec]; present {
			ok = true
		}
		if !isMap {
			continue
		}
		for id := range comps {
			typ, _, _ := strings.Cut(id, "/")
			if hasService && !used[class+" "+typ] {
				continue
			}
			if _, found := cat.Lookup(class, typ); !found && !seen[class+"."+typ] {
				seen[class+"."+typ] = true
				unknown = append(unknown, class+"."+typ)
			}
		}
	}
	return unknown, hasService, ok
}

// components are the registered upstream components: the directory of
// their source under a repository ("receiver/otlpreceiver"), class, type.
var components = func() (out [][3]string) {
	for _, name := range flowcomp.DefaultRegistry.Names() {
		r, _ := flowcomp.DefaultRegistry.Get(name)
		u, ok := otelcol.UpstreamOf(r)
		if !ok {
			continue
		}
		dir := u.Package
		for _, root := range []string{"go.opentelemetry.io/collector/", "github.com/open-telemetry/opentelemetry-collector-contrib/"} {
			dir = strings.TrimPrefix(dir, root)
		}
		dir, _, _ = strings.Cut(dir, "/internal")
		out = append(out, [3]string{dir, u.Class, u.Types[0]})
	}
	return out
}()

// wrap makes a file of a component's testdata a collector config of that
// component.
func wrap(path string, src []byte) ([]byte, bool) {
	var body map[string]any
	if yaml.Unmarshal(src, &body) != nil {
		return nil, false
	}
	slash := filepath.ToSlash(path)
	for _, c := range components {
		if !strings.Contains(slash, "/"+c[0]+"/testdata/") {
			continue
		}
		section := map[string]any{c[2]: body}
		isSection := len(body) > 0
		for k := range body {
			typ, _, _ := strings.Cut(k, "/")
			isSection = isSection && typ == c[2]
		}
		if isSection {
			section = body
		}
		out, err := yaml.Marshal(map[string]any{c[1] + "s": section})
		return out, err == nil
	}
	return nil, false
}

// check loads and checks a script as `flowlua check` does.
func check(path string, src []byte) error {
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return err
	}
	s, reg, err := scriptload.Load(path, scriptload.Options{Registry: flowcomp.DefaultRegistry})
	if s == nil || reg == nil {
		return err
	}
	loaded := script.AsDiagnostics(err)
	_, diags := (&engine.Loader{Registry: reg}).Build(s)
	if all := script.Merge(loaded, diags); len(all) > 0 {
		return all
	}
	return nil
}

var (
	position = regexp.MustCompile(`^[^ ]*:\d+: `)
	quoted   = regexp.MustCompile(`"[^"]*"`)
	ids      = regexp.MustCompile(`(otelcol\.[a-z_]+\.[a-z_0-9]+)\.[A-Za-z_0-9]+`)
)

// reason makes a message a reason shared by configs: no position, no
// quoted values, no labels.
func reason(msg string) string {
	msg = position.ReplaceAllString(msg, "")
	msg = quoted.ReplaceAllString(msg, `"…"`)
	msg = ids.ReplaceAllString(msg, "$1.…")
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	return msg
}

func top(title string, m map[string]int, n int) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Printf("\n%s (top %d of %d):\n", title, min(n, len(keys)), len(keys))
	for _, k := range keys[:min(n, len(keys))] {
		fmt.Printf("  %4d  %s\n", m[k], k)
	}
}
