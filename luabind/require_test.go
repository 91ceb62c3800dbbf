package luabind_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

var moduleFiles = map[string]string{
	"main.lua": `local gw = require "lib.gateway"
local again = require "lib.gateway"
assert(gw == again, "require caches modules")
gw.instance("eu")
file.read "main" { filename = file.read.eu_token.content }
local r = require "lib.nothing"
assert(r == true, "a module returning nothing gives true")
`,
	"lib/gateway.lua": `loads = (rawget(_G, "loads") or 0) + 1
assert(loads == 1, "a module runs once")
local util = require "lib.util"
local M = {}
function M.instance(name)
  file.read(name .. "_token") {
    filename = util.path(name),
    owner = file.read.main.content,
  }
end
return M
`,
	"lib/util.lua": `return { path = function(n) return "/etc/" .. n end }
`,
	"lib/nothing.lua": `local x = 1
`,
}

func TestRequire(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), moduleFiles)
	chdir(t, dir)
	s, err := luabind.Load("main.lua", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{"main.lua", "lib/gateway.lua", "lib/util.lua", "lib/nothing.lua"}
	if !reflect.DeepEqual(s.Files, wantFiles) {
		t.Errorf("Files %q, want %q", s.Files, wantFiles)
	}
	eu := block(t, s, "file.read.eu_token")
	if want := (script.Pos{File: "lib/gateway.lua", Line: 6}); eu.Pos != want {
		t.Errorf("module block at %v, want %v", eu.Pos, want)
	}
	if got, want := eu.Args["owner"], (&script.Ref{Component: "file.read.main", Export: "content", Pos: script.Pos{File: "lib/gateway.lua", Line: 8}}); !reflect.DeepEqual(got, want) {
		t.Errorf("owner = %#v", got)
	}
	if got, want := eu.FieldPos["filename"], (script.Pos{File: "lib/gateway.lua", Line: 7}); got != want {
		t.Errorf("FieldPos[filename] = %v, want %v", got, want)
	}
	if got := eu.Args["filename"]; got != "/etc/eu" {
		t.Errorf("filename = %v", got)
	}
	if got := block(t, s, "file.read.main").Args["filename"]; !reflect.DeepEqual(got, ref("file.read.eu_token", "content", 5)) {
		t.Errorf("main filename = %#v", got)
	}
}

func TestRequireAbsolutePath(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), moduleFiles)
	s, err := luabind.Load(filepath.Join(dir, "main.lua"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Files[1], filepath.Join(dir, "lib", "gateway.lua"); got != want {
		t.Errorf("Files[1] = %q, want %q", got, want)
	}
	if got := block(t, s, "file.read.eu_token").Pos.File; got != filepath.Join(dir, "lib", "gateway.lua") {
		t.Errorf("module block file %q", got)
	}
}

func TestRequireErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"missing module", map[string]string{"main.lua": "\nlocal m = require \"lib.nope\"\n"}, []string{
			`main.lua:2: module "lib.nope" not found: no file lib/nope.lua`,
		}},
		{"invalid names", map[string]string{"main.lua": `require "../secret"
require "/etc/passwd"
require "a..b"
require "lib/x"
require ""
require(42)
`}, []string{
			`main.lua:1: invalid module name "../secret": use a dotted name relative to the script's directory, e.g. require "lib.gateway"`,
			`main.lua:2: invalid module name "/etc/passwd": use a dotted name relative to the script's directory, e.g. require "lib.gateway"`,
			`main.lua:3: invalid module name "a..b": use a dotted name relative to the script's directory, e.g. require "lib.gateway"`,
			`main.lua:4: invalid module name "lib/x": use a dotted name relative to the script's directory, e.g. require "lib.gateway"`,
			`main.lua:5: invalid module name "": use a dotted name relative to the script's directory, e.g. require "lib.gateway"`,
			`main.lua:6: require: expected a module name string, got a number value`,
		}},
		{"syntax error in a module", map[string]string{
			"main.lua":    "require \"lib.bad\"\n",
			"lib/bad.lua": "file.read \"a\" {\n  x = = 1,\n}\n",
		}, []string{
			`lib/bad.lua:2: syntax error near '='`,
		}},
		{"runtime error in a module", map[string]string{
			"main.lua":     "local x = 1\nrequire \"lib.boom\"\n",
			"lib/boom.lua": "local x = 1\n\nerror(\"boom\")\n",
		}, []string{
			`lib/boom.lua:3: boom`,
		}},
		{"problems in a module", map[string]string{
			"main.lua":    "file.read \"a\" {}\nrequire \"lib.dup\"\n",
			"lib/dup.lua": "file.read \"a\" {}\notelcol.reciever.otlp \"x\" {}\n",
		}, []string{
			`lib/dup.lua:1: duplicate component "file.read.a": first declared at main.lua:1`,
			`lib/dup.lua:2: unknown component "otelcol.reciever.otlp" (did you mean "otelcol.receiver.otlp"?)`,
		}},
		{"circular require", map[string]string{
			"main.lua": "require \"a\"\n",
			"a.lua":    "require \"b\"\n",
			"b.lua":    "\nrequire \"a\"\n",
		}, []string{
			`b.lua:2: require "a": circular require (the module is still loading)`,
		}},
		{"the main script", map[string]string{"main.lua": "require \"main\"\n"}, []string{
			`main.lua:1: require "main": that is the main script`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chdir(t, writeFiles(t, t.TempDir(), tt.files))
			_, err := luabind.Load("main.lua", testOptions())
			if got := diagLines(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors\n got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

// TestRequireStaysInside refuses a module that is a symbolic link to a
// file outside the script's directory.
func TestRequireStaysInside(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"outside.lua":      "file.read \"stolen\" {}\n",
		"project/main.lua": "require \"lib.evil\"\n",
	})
	if err := os.MkdirAll(filepath.Join(root, "project", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside.lua"), filepath.Join(root, "project", "lib", "evil.lua")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	chdir(t, filepath.Join(root, "project"))
	_, err := luabind.Load("main.lua", testOptions())
	got := diagLines(t, err)
	if len(got) != 1 || !strings.HasPrefix(got[0], `main.lua:1: module "lib.evil": `) || !strings.Contains(got[0], "escapes") {
		t.Errorf("got %q", got)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := luabind.Load(filepath.Join(t.TempDir(), "nope.lua"), testOptions())
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v", err)
	}
}
