package luabind_test

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

func loadWithCluster(t *testing.T, src string) (*script.Script, error) {
	t.Helper()
	opts := testOptions()
	opts.Services = []string{"http", "cluster"}
	opts.Print = io.Discard
	return luabind.LoadSource("main.lua", []byte(src), opts)
}

// cluster.shard(list, key_fn) records a lazy "shard" expression over the
// list, placed by the cluster service, with the key function if given.
func TestClusterShard(t *testing.T) {
	s, err := loadWithCluster(t, `
local targets = {}
for i = 1, 3 do targets[i] = { addr = "host-" .. i } end
file.read "a" { filename = cluster.shard({ "x", "y", file.read.b.content }) }
file.read "b" { filename = cluster.shard(targets, function(t) return t.addr end) }
`)
	if err != nil {
		t.Fatal(err)
	}
	x, ok := s.Blocks[0].Args["filename"].(*script.Expr)
	if !ok || x.Op != "shard" || x.Service != "cluster" || x.Func != nil || x.Pos.Line != 4 {
		t.Fatalf("a: %#v", s.Blocks[0].Args["filename"])
	}
	list := x.Args[0].([]any)
	if list[0] != "x" || list[1] != "y" || list[2].(*script.Ref).String() != "file.read.b.content" {
		t.Fatalf("a's list: %#v", list)
	}
	y := s.Blocks[1].Args["filename"].(*script.Expr)
	if y.Func == nil {
		t.Fatal("b: no key function")
	}
	key, err := y.Func.Call([]any{map[string]any{"addr": "host-2"}})
	if err != nil || key != "host-2" {
		t.Fatalf("key function: %v %v", key, err)
	}
	if got := y.Args[0].([]any)[0]; !reflect.DeepEqual(got, map[string]any{"addr": "host-1"}) {
		t.Fatalf("b's first item: %#v", got)
	}

	for src, want := range map[string]string{
		`file.read "a" { filename = cluster.shard({ a = 1 }) }`:  "main.lua:1: cluster.shard: expected a list, got a table with named fields",
		`file.read "a" { filename = cluster.shard({ "a" }, 3) }`: "main.lua:1: cluster.shard: expected a key function as the second argument, got a number value",
		`file.read "a" { filename = cluster:shard({ "a" }) }`:    "main.lua:1: cluster.shard: call it with a dot",
		`file.read "a" { filename = cluster.owns("a") }`:         "main.lua:1: service cluster has no field owns",
	} {
		_, err := loadWithCluster(t, src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", src, err, want)
		}
	}
}
