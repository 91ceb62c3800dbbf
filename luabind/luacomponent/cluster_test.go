package luacomponent

import (
	"context"
	"strings"
	"testing"
)

const clusterPlugin = `
-- p/plugin.lua --
return { name = "p", version = "1.0.0", components = { "owner", "undeclared" } }
-- p/owner.lua --
return {
  services = { "cluster" },
  exports = { mine = "string" },
  start = function(ctx)
    local mine = {}
    for _, k in ipairs({ "a", "b", "c" }) do
      if cluster.owns(k) then mine[#mine + 1] = k end
    end
    set_exports{ mine = table.concat(mine, ",") }
  end,
}
-- p/undeclared.lua --
return {
  exports = { err = "string" },
  start = function(ctx)
    local ok, err = pcall(cluster.owns, "a")
    set_exports{ err = tostring(err) }
  end,
}
`

// ownsOnly is a placement that owns the keys it lists.
type ownsOnly map[string]bool

func (o ownsOnly) Owns(key string) bool     { return o[key] }
func (o ownsOnly) Owner(key string) string  { return "" }
func (o ownsOnly) Changed() <-chan struct{} { return nil }

// cluster.owns asks the cluster service the component declared.
func TestHostClusterOwns(t *testing.T) {
	r := mustLoad(t, clusterPlugin, "p", "owner", map[string]any{})
	e := newEnv("p.owner.a")
	e.opts.GetServiceData = func(name string) (any, error) { return ownsOnly{"a": true, "c": true}, nil }
	c := build(t, r, e, map[string]any{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = c.Run(ctx) }()
	eventually(t, "the owned keys", func() bool { return e.lastExports()["mine"] == "a,c" })

	r = mustLoad(t, clusterPlugin, "p", "undeclared", map[string]any{})
	e = newEnv("p.undeclared.a")
	c = build(t, r, e, map[string]any{})
	go func() { _ = c.Run(ctx) }()
	eventually(t, "the error", func() bool {
		s, _ := e.lastExports()["err"].(string)
		return strings.Contains(s, `add services = { "cluster" }`)
	})
}
