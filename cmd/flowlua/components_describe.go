package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// scriptComponents loads the script at path as flowlua check does,
// starting nothing, and returns what it may declare: the built-in
// components, its plugins' (the script's plugins/, --plugins.path and the
// native plugins beside the executable) and its modules, flowlua's and
// the project's own (what it requires). A module without a doc field is
// documented by the comment lines right above its definition.
func (c *componentsCmd) scriptComponents(e *env) (*component.Registry, []*script.ModuleDef, error) {
	s, reg, _, err := loadScript(e, c.Script, c.pluginFlags)
	if err != nil || s == nil || reg == nil {
		if err == nil {
			err = fmt.Errorf("%s: the script defined nothing", c.Script)
		}
		return nil, nil, configError(err)
	}
	for _, m := range s.Modules {
		if m.Doc == "" {
			m.Doc = commentAbove(m.Pos)
		}
	}
	return reg, s.Modules, nil
}

// describeModule writes a module: where it is defined, how a script loads
// it, its doc, its placement, arguments and exports.
func (c *componentsCmd) describeModule(e *env, m *script.ModuleDef) {
	fmt.Fprintf(e.stdout, "%s (module, %s)\n", m.Name, m.Pos)
	if m.Doc != "" {
		fmt.Fprintf(e.stdout, "\n%s\n", m.Doc)
	}
	fmt.Fprintln(e.stdout)
	if m.Pos.File != "" {
		fmt.Fprintf(e.stdout, "File: %s\n", m.Pos.File)
		if req := c.requireName(m.Pos.File); req != "" {
			fmt.Fprintf(e.stdout, "Load: require %q\n", req)
		}
	}
	placement := m.Placement
	if placement == "" {
		placement = "all_nodes"
	}
	fmt.Fprintf(e.stdout, "Placement: %s (an instance's placement argument overrides it)\n", placement)
	if d, ok := m.Schema.(interface {
		Describe() (args, exports []decode.Field)
	}); ok {
		args, exports := d.Describe()
		fmt.Fprintln(e.stdout, "\nArguments:")
		writeFields(e, args, true)
		fmt.Fprintln(e.stdout, "\nExports:")
		writeFields(e, exports, false)
	}
}

// requireName is the name a script requires the module file by
// ("lib.gateway" for lib/gateway.lua beside the script), or "" for a file
// outside the script's directory or flowlua's own.
func (c *componentsCmd) requireName(file string) string {
	if c.Script == "" || !strings.HasSuffix(file, ".lua") {
		return ""
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return ""
	}
	dir, err := filepath.Abs(filepath.Dir(c.Script))
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	if script, err := filepath.Abs(c.Script); err != nil || script == abs {
		return ""
	}
	return strings.ReplaceAll(strings.TrimSuffix(rel, ".lua"), string(filepath.Separator), ".")
}

// commentAbove returns the `--` comment lines right above line pos.Line
// of pos.File, without the dashes: a module's doc comment.
func commentAbove(pos script.Pos) string {
	f, err := os.Open(pos.File)
	if err != nil {
		return ""
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan() && n < pos.Line; n++ {
		lines = append(lines, sc.Text())
	}
	var doc []string
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "--") || strings.HasPrefix(t, "--[[") {
			break
		}
		doc = append([]string{strings.TrimSpace(strings.TrimLeft(t, "-"))}, doc...)
	}
	return strings.TrimSpace(strings.Join(doc, "\n"))
}

// describeComponent writes a component: its source (for a plugin's, the
// plugin, its version and path), class, signals, stability, services,
// arguments and exports.
func describeComponent(e *env, r component.Registration) {
	d := docOf(r)
	fmt.Fprintf(e.stdout, "%s (%s)\n", r.Name, r.Source)
	if r.Doc != "" {
		fmt.Fprintf(e.stdout, "\n%s\n", r.Doc)
	}
	fmt.Fprintln(e.stdout)
	fmt.Fprintf(e.stdout, "Source: %s\n", r.Source)
	if class := classOf(r); class != "" {
		fmt.Fprintf(e.stdout, "Class: %s\n", class)
	}
	if len(d.Signals) > 0 {
		fmt.Fprintf(e.stdout, "Signals: %s\n", strings.Join(d.Signals, ", "))
	}
	if len(d.Stability) > 0 {
		var parts []string
		for sig, level := range d.Stability {
			parts = append(parts, sig+" "+level)
		}
		sort.Strings(parts)
		fmt.Fprintf(e.stdout, "Stability: %s\n", strings.Join(parts, ", "))
	}
	if len(r.NeedsServices) > 0 {
		fmt.Fprintf(e.stdout, "Services: %s\n", strings.Join(r.NeedsServices, ", "))
	}
	args, exports := r.Describe()
	fmt.Fprintln(e.stdout, "\nArguments:")
	writeFields(e, args, true)
	fmt.Fprintln(e.stdout, "\nExports:")
	writeFields(e, exports, false)
}

// classOf is a component's collector class (receiver, processor,
// exporter, connector, extension), or "" for one that is no collector
// component.
func classOf(r component.Registration) string {
	if c, ok := r.Schema.(interface{ Class() string }); ok {
		return c.Class()
	}
	if c, ok := r.Schema.(interface {
		CollectorTypes() (string, []string)
	}); ok {
		class, _ := c.CollectorTypes()
		return class
	}
	if rest, ok := strings.CutPrefix(r.Name, "otelcol."); ok {
		class, _, _ := strings.Cut(rest, ".")
		return class
	}
	return ""
}

// scriptHint is said of an unknown name when no script was given: a
// project's modules are known from its script.
func (c *componentsCmd) scriptHint() string {
	if c.Script != "" {
		return ""
	}
	return "; a module of your project: give its pipeline, flowlua components --script PATH " + c.Name
}
