package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// componentDoc is one component or module as `flowlua components --json`
// writes it.
type componentDoc struct {
	Name string `json:"name"`
	// Kind is "component" or "module".
	Kind string `json:"kind"`
	// Source: "native", "plugin <ns> <version>", "module".
	Source string `json:"source"`
	// Upstream is the Go package of an otelcol component.
	Upstream  string            `json:"upstream,omitempty"`
	Doc       string            `json:"doc"`
	Signals   []string          `json:"signals"`
	Stability map[string]string `json:"stability,omitempty"`
	Services  []string          `json:"services,omitempty"`
	Placement string            `json:"placement,omitempty"`
	DefinedAt string            `json:"defined_at,omitempty"`
	Arguments []fieldDoc        `json:"arguments"`
	Exports   []fieldDoc        `json:"exports"`
}

// fieldDoc is one argument or export.
type fieldDoc struct {
	Path     string   `json:"path"`
	Type     string   `json:"type"`
	Required bool     `json:"required"`
	Default  string   `json:"default,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	Doc      string   `json:"doc"`
}

// componentsDoc is the whole listing.
type componentsDoc struct {
	Components []componentDoc `json:"components"`
}

// docOf describes a registration.
func docOf(r component.Registration) componentDoc {
	args, exports := r.Describe()
	d := componentDoc{
		Name:      r.Name,
		Kind:      "component",
		Source:    r.Source,
		Doc:       r.Doc,
		Services:  r.NeedsServices,
		Arguments: fieldDocs(args),
		Exports:   fieldDocs(exports),
	}
	if s, ok := r.Schema.(interface{ Signals() []string }); ok {
		d.Signals = s.Signals()
	} else {
		d.Signals = signalsOf(args, exports)
	}
	if s, ok := r.Schema.(interface{ Stability() map[string]string }); ok {
		d.Stability = s.Stability()
	}
	if s, ok := r.Schema.(interface{ Upstream() string }); ok {
		d.Upstream = s.Upstream()
	}
	if d.Signals == nil {
		d.Signals = []string{}
	}
	return d
}

// signalsOf guesses a component's signals from its output's fields.
func signalsOf(args, exports []decode.Field) []string {
	var out []string
	for _, f := range args {
		if s, ok := strings.CutPrefix(f.Path, "output."); ok && !strings.Contains(s, ".") {
			out = append(out, s)
		}
	}
	return out
}

// moduleDoc describes a module.
func moduleDoc(m *script.ModuleDef) componentDoc {
	d := componentDoc{Name: m.Name, Kind: "module", Source: "module", Doc: m.Doc, Signals: []string{}, Placement: m.Placement, DefinedAt: m.Pos.String(), Arguments: []fieldDoc{}, Exports: []fieldDoc{}}
	if d.Placement == "" {
		d.Placement = "all_nodes"
	}
	if s, ok := m.Schema.(interface {
		Describe() (args, exports []decode.Field)
	}); ok {
		args, exports := s.Describe()
		d.Arguments, d.Exports = fieldDocs(args), fieldDocs(exports)
	}
	return d
}

var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

func fieldDocs(fields []decode.Field) []fieldDoc {
	out := make([]fieldDoc, 0, len(fields))
	for _, f := range fields {
		fd := fieldDoc{Path: f.Path, Type: f.Type, Required: f.Required, Default: f.Default, Doc: f.Doc}
		if strings.Contains(f.Type, "one of ") {
			for _, m := range quoted.FindAllStringSubmatch(f.Type, -1) {
				fd.Enum = append(fd.Enum, m[1])
			}
		}
		out = append(out, fd)
	}
	return out
}

// writeJSON writes every component and module, or the one named.
func writeJSON(w io.Writer, reg *component.Registry, modules []*script.ModuleDef, name string) error {
	var docs []componentDoc
	for _, n := range reg.Names() {
		if name != "" && n != name {
			continue
		}
		r, _ := reg.Get(n)
		docs = append(docs, docOf(r))
	}
	for _, m := range modules {
		if name != "" && m.Name != name {
			continue
		}
		docs = append(docs, moduleDoc(m))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if name != "" {
		return enc.Encode(docs[0])
	}
	if docs == nil {
		docs = []componentDoc{}
	}
	return enc.Encode(componentsDoc{Components: docs})
}

// writeLuaLS writes Lua Language Server annotations for every component
// and module: a class per component's arguments and exports, the
// component itself as a callable class indexed by label, and the global
// namespace tables, so that editors complete names, argument keys and
// exports and flag wrong types. The output is sorted: the same
// components always give the same file.
func writeLuaLS(w io.Writer, reg *component.Registry, modules []*script.ModuleDef) error {
	var b strings.Builder
	b.WriteString("---@meta\n")
	b.WriteString("-- Lua Language Server annotations of flowlua's components, written by\n")
	b.WriteString("-- `flowlua components --luals`. Do not edit: generate it again.\n\n")
	b.WriteString("---A consumer of telemetry: a component's `input` export.\n---@class flowlua.Consumer\n\n")
	b.WriteString("---An otelcol extension: an `otelcol.extension.*` component's `id` export.\n---@class flowlua.Extension\n\n")
	b.WriteString(luaHelpers)

	var docs []componentDoc
	for _, n := range reg.Names() {
		r, _ := reg.Get(n)
		docs = append(docs, docOf(r))
	}
	for _, m := range modules {
		docs = append(docs, moduleDoc(m))
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Name < docs[j].Name })

	// namespaces[prefix] lists the next name parts under a namespace.
	namespaces := map[string][]string{}
	for _, d := range docs {
		parts := strings.Split(d.Name, ".")
		for i := 1; i < len(parts); i++ {
			ns := strings.Join(parts[:i], ".")
			if !slices.Contains(namespaces[ns], parts[i]) {
				namespaces[ns] = append(namespaces[ns], parts[i])
			}
		}
		writeLuaComponent(&b, d)
	}
	nsNames := make([]string, 0, len(namespaces))
	for ns := range namespaces {
		nsNames = append(nsNames, ns)
	}
	sort.Strings(nsNames)
	names := map[string]bool{}
	for _, d := range docs {
		names[d.Name] = true
	}
	for _, ns := range nsNames {
		fmt.Fprintf(&b, "---@class %s\n", nsClass(ns))
		for _, part := range namespaces[ns] {
			full := ns + "." + part
			typ := nsClass(full)
			if names[full] {
				typ = full
			}
			fmt.Fprintf(&b, "---@field %s %s\n", luaFieldName(part), typ)
		}
		b.WriteString("\n")
	}
	for _, ns := range nsNames {
		if !strings.Contains(ns, ".") {
			fmt.Fprintf(&b, "---@type %s\n%s = {}\n\n", nsClass(ns), ns)
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// nsClass names the class of a namespace table: "otelcol.processor" is
// the namespace "ns.otelcol.processor".
func nsClass(ns string) string { return "ns." + ns }

const luaHelpers = `---Reads an environment variable; default when it is unset.
---@param name string
---@param default? string
---@return string
function env(name, default) end

---A value computed from references: fn is called with their values.
---@generic T
---@param fn fun(...): T
---@param ... any the references fn reads
---@return T
function compute(fn, ...) end

---Makes a plugin's components available as <namespace>.<name>.
---@param namespace string
---@return fun(args: { path?: string, version?: string, grants?: string[] })
function plugin(namespace) end

---Defines a module: a reusable group of components.
---@param name string
---@return fun(def: { doc?: string, args?: table, exports?: table, placement?: "all_nodes"|"unique", body: fun(args: table): table? })
function module(name) end

`

// writeLuaComponent writes the classes of one component or module.
func writeLuaComponent(b *strings.Builder, d componentDoc) {
	args := d.Name + ".Args"
	exports := d.Name + ".Exports"
	// Nested tables get classes of their own, named after their path.
	children := map[string][]fieldDoc{"": nil}
	tables := map[string]bool{}
	for _, f := range d.Arguments {
		parent, _ := splitPath(f.Path)
		children[parent] = append(children[parent], f)
		if isTable(f.Type) {
			tables[f.Path] = true
		}
	}
	var parents []string
	for p := range children {
		parents = append(parents, p)
	}
	sort.Strings(parents)
	for _, p := range parents {
		cls := args
		if p != "" {
			cls = args + "." + classPart(p)
		}
		if p == "" {
			fmt.Fprintf(b, "---Arguments of %s.\n", d.Name)
		}
		fmt.Fprintf(b, "---@class %s\n", cls)
		for _, f := range children[p] {
			_, key := splitPath(f.Path)
			typ := luaType(f.Type)
			if tables[f.Path] || hasChildren(children, f.Path) {
				typ = tableType(f, args)
			}
			opt := "?"
			if f.Required {
				opt = ""
			}
			fmt.Fprintf(b, "---@field %s%s %s %s\n", luaFieldName(key), opt, typ, luaDoc(f))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "---Exports of %s.\n---@class %s\n", d.Name, exports)
	for _, f := range d.Exports {
		if strings.ContainsAny(f.Path, ".[") {
			continue
		}
		fmt.Fprintf(b, "---@field %s %s %s\n", luaFieldName(f.Path), luaType(f.Type), oneLine(f.Doc))
	}
	b.WriteString("\n")
	doc := oneLine(d.Doc)
	if doc != "" {
		fmt.Fprintf(b, "---%s\n", doc)
	}
	fmt.Fprintf(b, "---Declare one with `%s \"label\" { ... }`; `%s.<label>` holds its exports.\n", d.Name, d.Name)
	fmt.Fprintf(b, "---@class %s\n", d.Name)
	fmt.Fprintf(b, "---@field [string] %s\n", exports)
	fmt.Fprintf(b, "---@operator call(string): fun(args: %s)\n\n", args)
}

// hasChildren reports whether a field path has fields under it.
func hasChildren(children map[string][]fieldDoc, path string) bool {
	return len(children[path]) > 0
}

// tableType is the type of a table field: its class, a list of its
// elements' class, or a map of its values' class.
func tableType(f fieldDoc, args string) string {
	cls := args + "." + classPart(f.Path)
	switch {
	case strings.HasPrefix(f.Type, "list("):
		return cls + "_item[]"
	case strings.HasPrefix(f.Type, "map("):
		return "table<string, " + cls + "_value>"
	}
	return cls
}

// splitPath returns a field path's parent and last key; "rules[].keys" has
// the parent "rules[]".
func splitPath(p string) (parent, key string) {
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// classPart turns a field path into a part of a class name: "rules[]" is
// "rules_item", "headers.<key>" is "headers_value".
func classPart(p string) string {
	p = strings.ReplaceAll(p, "[]", "_item")
	p = strings.ReplaceAll(p, ".<key>", "_value")
	return p
}

func isTable(t string) bool {
	return t == "table" || t == "list(table)" || t == "map(table)" || t == "object" || t == "list(object)"
}

// luaType turns a decode type name into a LuaLS type.
func luaType(t string) string {
	switch {
	case strings.HasPrefix(t, "one of "):
		var alts []string
		for _, m := range quoted.FindAllStringSubmatch(t, -1) {
			alts = append(alts, `"`+m[1]+`"`)
		}
		return strings.Join(alts, "|")
	case strings.HasPrefix(t, "list(") && strings.HasSuffix(t, ")"):
		inner := luaType(t[len("list(") : len(t)-1])
		if strings.Contains(inner, "|") {
			inner = "(" + inner + ")"
		}
		return inner + "[]"
	case strings.HasPrefix(t, "map(") && strings.HasSuffix(t, ")"):
		return "table<string, " + luaType(t[len("map("):len(t)-1]) + ">"
	}
	switch t {
	case "string", "duration", "bytes":
		return "string"
	case "boolean", "bool":
		return "boolean"
	case "integer", "int":
		return "integer"
	case "number", "float":
		return "number"
	case "dataplane.Consumer", "consumer":
		return "flowlua.Consumer"
	case "extension", "*otelcol.Extension":
		return "flowlua.Extension"
	case "table", "object":
		return "table"
	}
	return "any"
}

func luaDoc(f fieldDoc) string {
	doc := oneLine(f.Doc)
	if f.Type == "duration" {
		doc = strings.TrimSpace(doc + " (a duration: \"200ms\", \"5s\")")
	}
	if f.Default != "" {
		doc = strings.TrimSpace(doc + " (default " + f.Default + ")")
	}
	return doc
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var luaIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// luaFieldName writes a field name as LuaLS reads it: quoted in brackets
// when it is no identifier.
func luaFieldName(k string) string {
	if luaIdent.MatchString(k) {
		return k
	}
	return fmt.Sprintf("[%q]", k)
}
