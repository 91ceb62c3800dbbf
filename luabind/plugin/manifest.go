package plugin

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/luacomponent"
	"github.com/flowlua/flowlua/luabind/luamem"
	"github.com/flowlua/flowlua/luabind/schema"
)

// Manifest is what a plugin's plugin.lua returns:
//
//	return {
//	  name = "acme",                       -- lowercase, the default namespace
//	  version = "1.2.0",
//	  description = "ACME's processors",
//	  components = { "redact", "tag" },    -- redact.lua, tag.lua
//	  grants = { "os.time" },              -- what the components need
//	}
//
// The file runs in an empty sandbox: no functions at all, only values.
type Manifest struct {
	Name        string   `lua:"name,required" doc:"the plugin's name (lowercase letters, digits, _)"`
	Version     string   `lua:"version,required" doc:"the plugin's version, matched exactly by a declaration's version"`
	Description string   `lua:"description" doc:"what the plugin provides"`
	Components  []string `lua:"components,required" doc:"the components, each in <name>.lua"`
	Grants      []string `lua:"grants" doc:"the grants the components need (os.time, io.open, ...)"`
}

var (
	nameRE    = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	versionRE = regexp.MustCompile(`^v?[0-9A-Za-z][0-9A-Za-z.+_-]*$`)
)

// manifestTimeout bounds running a manifest.
const manifestTimeout = time.Second

// readManifest runs and checks the manifest of a plugin's files. Its
// mistakes are Diagnostics at their lines of the manifest.
func readManifest(f *files) (*Manifest, error) {
	file := f.display(manifestLua)
	ch, err := luacomponent.Compile(file, f.src[manifestLua])
	if err != nil {
		return nil, err
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: luacomponent.CallStackSize})
	defer L.Close()
	guard := luamem.Start(L, manifestTimeout, luamem.DefaultLimit, false)
	defer guard.Stop()
	L.SetContext(guard)
	L.Push(L.NewFunctionFromProto(ch.Proto()))
	if err := L.PCall(0, 1, nil); err != nil {
		msg := luacomponent.ErrorMessage(err)
		if lerr := guard.LimitErr(); lerr != nil {
			msg = lerr.Error()
		} else if guard.Err() != nil {
			msg = fmt.Sprintf("did not finish within %s", manifestTimeout)
		}
		return nil, script.Diagnostics{ch.At(msg)}
	}
	ret := L.Get(-1)
	if _, ok := ret.(*lua.LTable); !ok {
		return nil, script.Errorf(script.Pos{File: file, Line: 1}, "the manifest must return a table { name = ..., version = ..., components = { ... } }, got %s", ret.Type())
	}
	v, err := schema.FromLua(ret)
	if err != nil {
		return nil, script.Errorf(script.Pos{File: file, Line: 1}, "%v", err)
	}
	// Every mistake is reported: the checks below skip the fields that
	// did not decode.
	var m Manifest
	var ds script.Diagnostics
	failed := map[string]bool{}
	if err := decode.Decode(v, &m); err != nil {
		ds = decodeDiagnostics(ch, "", err)
		if errs, ok := err.(decode.Errors); ok {
			for _, e := range errs {
				top, _, _ := strings.Cut(e.Where(), ".")
				top, _, _ = strings.Cut(top, "[")
				failed[top] = true
			}
		}
	}
	if !failed["name"] && !nameRE.MatchString(m.Name) {
		ds = append(ds, script.Errorf(ch.Pos("name"), "name: invalid plugin name %q: use lowercase letters, digits and _", m.Name))
	}
	if !failed["version"] && !versionRE.MatchString(m.Version) {
		ds = append(ds, script.Errorf(ch.Pos("version"), "version: invalid version %q", m.Version))
	}
	if err := luacomponent.CheckGrants(m.Grants); err != nil {
		ds = append(ds, script.Errorf(ch.Pos("grants"), "grants: %v", err))
	}
	for i, c := range m.Components {
		p := decode.JoinPath("components", i)
		switch {
		case !nameRE.MatchString(c):
			ds = append(ds, script.Errorf(ch.Pos("components"), "%s: invalid component name %q: use lowercase letters, digits and _", p, c))
		case f.src[c+".lua"] == nil:
			f.missing = append(f.missing, c+".lua")
			ds = append(ds, script.Errorf(ch.Pos("components"), "%s: no file %s for component %q", p, f.display(c+".lua"), c))
		}
	}
	if len(m.Components) == 0 && !failed["components"] {
		ds = append(ds, script.Errorf(ch.Pos("components"), "components: a plugin provides at least one component"))
	}
	if len(ds) > 0 {
		return nil, ds
	}
	return &m, nil
}

// decodeDiagnostics places the errors of decoding the table a chunk
// returned (under prefix) at their lines.
func decodeDiagnostics(ch *luacomponent.Chunk, prefix string, err error) script.Diagnostics {
	var ds script.Diagnostics
	errs, ok := err.(decode.Errors)
	if !ok {
		return script.Diagnostics{script.Errorf(script.Pos{File: ch.File(), Line: 1}, "%v", err)}
	}
	for _, e := range errs {
		ds = append(ds, script.Errorf(ch.Pos(joinPrefix(prefix, e.Where())), "%s", e.Error()))
	}
	return ds
}

func joinPrefix(prefix, p string) string {
	switch {
	case prefix == "":
		return p
	case p == "":
		return prefix
	}
	return prefix + "." + p
}
