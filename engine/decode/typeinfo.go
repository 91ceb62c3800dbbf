package decode

import (
	"fmt"
	"reflect"
	"sync"
	"time"
)

// kind is how a Go type decodes, decided once per type.
type kind uint8

const (
	kindOther       kind = iota // only Go values assignable to the type
	kindAny                     // an empty interface: the value as is
	kindInterface               // a Go value implementing the interface
	kindUnmarshaler             // the type decodes itself
	kindBool
	kindString
	kindInt
	kindUint
	kindFloat
	kindDuration
	kindSlice
	kindMap // a map with string keys
	kindStruct
	kindPointer
)

// typeInfo is what decoding needs to know about a Go type. It is built
// once per type, cached, and never changed after it is published.
type typeInfo struct {
	t    reflect.Type
	kind kind
	elem *typeInfo // slice, map and pointer element

	// Structs.
	fields []field           // lua-tagged fields in declaration order, squashed ones inlined
	byName map[string]*field // fields by lua name
	names  []string          // lua names, for "did you mean"
	inner  []innerField      // direct fields whose fresh value has defaults

	setDefault  bool // *T has SetToDefault()
	hasDefaults bool // a fresh T gets defaults: setDefault, or from an inner field
	validate    bool // T or *T has Validate() error

	err error // an invalid tag somewhere in the type (a programming error)

	// assignable caches, for an interface, which Go types implement it:
	// reflect checks method sets name by name.
	assignable sync.Map // reflect.Type → bool
}

// accepts reports whether values of Go type t are assignable to ti's type.
func (ti *typeInfo) accepts(t reflect.Type) bool {
	if t == ti.t || ti.kind == kindAny {
		return true
	}
	if ti.kind != kindInterface {
		return t.AssignableTo(ti.t)
	}
	if ok, found := ti.assignable.Load(t); found {
		return ok.(bool)
	}
	ok := t.AssignableTo(ti.t)
	ti.assignable.Store(t, ok)
	return ok
}

// field is a lua-tagged field of a struct.
type field struct {
	name     string
	index    []int // for reflect.Value.FieldByIndex (longer than 1 when squashed)
	info     *typeInfo
	required bool
	enum     []string // allowed strings (for string fields, or lists and maps of them)
	doc      string
}

// innerField is a direct field of a struct whose type has defaults.
type innerField struct {
	index int
	info  *typeInfo
}

// defaulter and validator are the optional hooks of a decoded type.
type (
	defaulter interface{ SetToDefault() }
	validator interface{ Validate() error }
)

var (
	durationType    = reflect.TypeFor[time.Duration]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
	defaulterType   = reflect.TypeFor[defaulter]()
	validatorType   = reflect.TypeFor[validator]()
	describerType   = reflect.TypeFor[Describer]()
)

var (
	infoCache sync.Map   // reflect.Type → *typeInfo
	buildMu   sync.Mutex // serialises building; lookups take no lock
)

// CheckType reports an invalid `lua`, `enum` or squash tag anywhere in t
// (a programming error). Decode, Describe and the export helpers panic
// on such a type; registries can call CheckType to fail earlier.
func CheckType(t reflect.Type) error {
	return infoOf(t).err
}

// mustInfo returns t's typeInfo and panics if t's tags are invalid.
func mustInfo(t reflect.Type) *typeInfo {
	ti := infoOf(t)
	if ti.err != nil {
		panic(ti.err)
	}
	return ti
}

// infoOf returns the cached typeInfo of t, building it on first use.
func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := infoCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if ti, ok := infoCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	b := builder{pending: map[reflect.Type]*typeInfo{}}
	ti := b.build(t)
	if b.err != nil {
		// Types built along the way may be incomplete: publish only the
		// failure of t.
		ti = &typeInfo{t: t, err: b.err}
		infoCache.Store(t, ti)
		return ti
	}
	for pt, pti := range b.pending {
		infoCache.Store(pt, pti)
	}
	return ti
}

// builder builds the typeInfo of a type and of the types it contains.
// Types being built are in pending, so recursive types terminate.
type builder struct {
	pending map[reflect.Type]*typeInfo
	err     error
}

func (b *builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("decode: "+format, args...)
	}
}

func (b *builder) build(t reflect.Type) *typeInfo {
	if ti, ok := b.pending[t]; ok {
		return ti
	}
	if v, ok := infoCache.Load(t); ok {
		ti := v.(*typeInfo)
		if ti.err != nil && b.err == nil {
			b.err = ti.err
		}
		return ti
	}
	ti := &typeInfo{t: t}
	b.pending[t] = ti
	switch {
	case t == durationType:
		ti.kind = kindDuration
	case t.Kind() == reflect.Interface:
		ti.kind = kindInterface
		if t.NumMethod() == 0 {
			ti.kind = kindAny
		}
		return ti
	case t.Kind() == reflect.Pointer:
		ti.kind = kindPointer
		ti.elem = b.build(t.Elem())
		return ti
	case reflect.PointerTo(t).Implements(unmarshalerType):
		ti.kind = kindUnmarshaler
	default:
		switch t.Kind() {
		case reflect.Bool:
			ti.kind = kindBool
		case reflect.String:
			ti.kind = kindString
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			ti.kind = kindInt
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			ti.kind = kindUint
		case reflect.Float32, reflect.Float64:
			ti.kind = kindFloat
		case reflect.Slice:
			ti.kind = kindSlice
			ti.elem = b.build(t.Elem())
		case reflect.Map:
			if t.Key().Kind() == reflect.String {
				ti.kind = kindMap
				ti.elem = b.build(t.Elem())
			}
		case reflect.Struct:
			ti.kind = kindStruct
			b.buildStruct(ti)
		}
	}
	pt := reflect.PointerTo(t)
	ti.setDefault = pt.Implements(defaulterType)
	ti.validate = pt.Implements(validatorType)
	ti.hasDefaults = ti.setDefault || len(ti.inner) > 0
	return ti
}
