// Command corpus converts every Alloy configuration (*.alloy) found under
// the directories it is given (a checkout of grafana/alloy: its
// converter's test data, its examples), checks each converted script as
// `flowlua check` does, and prints the figures and the failures grouped
// by reason. It is run by hand (`make convert-alloy-corpus DIRS=...`),
// never by `make test`: it reads a repository fetched for it.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/flowlua/flowlua/engine"
	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/scriptload"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert/alloyconfig"

	_ "github.com/flowlua/flowlua/stdlib/all" // the built-in components
)

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
	cat := withPrometheus{convert.Registry(flowcomp.DefaultRegistry)}
	var found, attempted, converted, checked int
	parseErrs := 0
	convReasons, checkReasons := map[string]int{}, map[string]int{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".alloy") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			found++
			rel, _ := filepath.Rel(dir, path)
			res, err := alloyconfig.Convert(src, convert.Options{Filename: path, Catalog: cat})
			if err != nil {
				// Alloy's own tests hold files that do not parse on purpose.
				parseErrs++
				if verbose {
					fmt.Printf("PARSE %s: %v\n", rel, err)
				}
				return nil
			}
			attempted++
			if len(res.Problems) > 0 {
				seen := map[string]bool{}
				for _, p := range res.Problems {
					r := reason(p.Msg)
					if !seen[r] {
						seen[r] = true
						convReasons[r]++
					}
				}
				if verbose {
					fmt.Printf("CONVERT %s:\n%s\n", rel, res.Error())
				}
				return nil
			}
			converted++
			if err := check(filepath.Dir(path), res.Script); err != nil {
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
	fmt.Printf("Alloy configs found: %d (%d do not parse: Alloy's tests of its parser and diagnostics)\n", found, parseErrs)
	fmt.Printf("converted without problems: %d / %d attempted\n", converted, attempted)
	fmt.Printf("passing flowlua check: %d / %d converted\n", checked, converted)
	top("conversion problems (configs per reason)", convReasons, 40)
	top("check failures", checkReasons, 20)
}

// withPrometheus is the default registry's catalog with the prometheus
// receiver of the native plugin prometheus, as flowlua convert has it
// when the plugin is installed. The check leaves the plugin's absence
// out (pluginOnly).
type withPrometheus struct{ convert.Catalog }

func (c withPrometheus) Lookup(class, typ string) (convert.Component, bool) {
	if class == "receiver" && typ == "prometheus" {
		return convert.Component{Name: "otelcol.receiver.prometheus"}, true
	}
	return c.Catalog.Lookup(class, typ)
}

// pluginOnly matches the check's report of the prometheus receiver not
// in this build: the plugin serves it.
var pluginOnly = regexp.MustCompile(`otelcol\.receiver\.prometheus is not in this build`)

// check loads and checks a script as `flowlua check` does, in a
// temporary directory (requires of modules are not followed).
func check(_ string, src []byte) error {
	tmp, err := os.MkdirTemp("", "alloy-corpus")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "main.lua")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return err
	}
	s, reg, err := scriptload.Load(path, scriptload.Options{Registry: flowcomp.DefaultRegistry})
	if s == nil || reg == nil {
		return err
	}
	loaded := script.AsDiagnostics(err)
	_, diags := (&engine.Loader{Registry: reg}).Build(s)
	var left []string
	for _, l := range strings.Split(script.Merge(loaded, diags).Error(), "\n") {
		if l != "" && !pluginOnly.MatchString(l) && !strings.HasSuffix(l, " errors") && !strings.HasSuffix(l, " error") {
			left = append(left, l)
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("%s", strings.Join(left, "\n"))
	}
	return nil
}

var (
	position = regexp.MustCompile(`^[^ ]*:\d+: `)
	quoted   = regexp.MustCompile(`"[^"]*"`)
	ids      = regexp.MustCompile(`(otelcol\.[a-z_]+\.[a-z_0-9]+)\.[A-Za-z_0-9]+`)
)

// reason makes a message a reason shared by configs: no position, no
// quoted values (labels), no component labels.
func reason(msg string) string {
	msg = position.ReplaceAllString(msg, "")
	msg = quoted.ReplaceAllString(msg, `"…"`)
	msg = ids.ReplaceAllString(msg, "$1.…")
	if len(msg) > 150 {
		msg = msg[:150] + "…"
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
