package luacomponent

import (
	"errors"
	"reflect"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/luabind/schema"
)

// A Lua component's exports are a value of the struct type its schema
// builds (with lua tags), published as Go components publish theirs, so
// that the engine and the API read them alike.

// initialExports are the exports before the component sets any: their
// defaults, else zero values, in a value of the exports struct.
func (k *Kind) initialExports() reflect.Value {
	target := reflect.New(k.schema.exports.GoType())
	_ = decode.Decode(schema.WithDefaults(map[string]any{}, k.schema.exports.Fields), target.Interface())
	return target.Elem()
}

// setExports changes some exports and publishes them all. The exports
// are published as a value of the exports struct, as Go components do.
func (inst *instance) setExports(m map[string]any) error {
	if _, ok := m["input"]; ok && inst.input != nil {
		return errors.New(`"input" is the component's own: it cannot be set`)
	}
	target := reflect.New(inst.k.schema.exports.GoType()).Elem()
	if err := decode.Decode(m, target.Addr().Interface()); err != nil {
		return err
	}
	inst.expMu.Lock()
	for name := range m {
		i := inst.k.schema.exportIndex[name]
		inst.exports.Field(i).Set(target.Field(i))
	}
	inst.expMu.Unlock()
	inst.publish()
	return nil
}

// publish hands a copy of the exports to the engine.
func (inst *instance) publish() {
	if inst.opts.OnStateChange == nil {
		return
	}
	inst.expMu.Lock()
	e := inst.exports.Interface() // a copy
	inst.expMu.Unlock()
	inst.opts.OnStateChange(e)
}
