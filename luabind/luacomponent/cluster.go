package luacomponent

import (
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/service"
)

// clusterService is the service cluster.owns asks.
const clusterService = "cluster"

// openCluster binds `cluster.owns(key)`: whether this node owns key in
// the cluster (always true on a node without clustering). A component
// that calls it declares services = { "cluster" }; ownership moves when
// membership changes, so a component asks again each time it decides
// (per batch, per timer tick), rather than once at start.
func (v *vm) openCluster() {
	t := v.L.NewTable()
	t.RawSetString("owns", v.L.NewFunction(v.clusterOwns))
	v.L.SetGlobal("cluster", t)
}

func (v *vm) clusterOwns(L *lua.LState) int {
	key := L.CheckString(1)
	p, err := v.placement()
	if err != nil {
		L.RaiseError("cluster.owns: %v", err)
		return 0
	}
	L.Push(lua.LBool(p.Owns(key)))
	return 1
}

// placement returns the cluster service the component declared.
func (v *vm) placement() (service.Placement, error) {
	if !slices.Contains(v.k.def.services, clusterService) {
		return nil, fmt.Errorf(`the component must declare the cluster service: add services = { "cluster" }`)
	}
	if v.inst == nil || v.inst.opts.GetServiceData == nil {
		return nil, fmt.Errorf("no cluster service while the component is checked")
	}
	data, err := v.inst.opts.GetServiceData(clusterService)
	if err != nil {
		return nil, err
	}
	p, ok := data.(service.Placement)
	if !ok {
		return nil, fmt.Errorf("the cluster service's data is a %T, not a placement", data)
	}
	return p, nil
}
