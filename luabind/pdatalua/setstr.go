package pdatalua

import (
	"reflect"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Setting a string attribute that already holds a string is the edit a
// redaction makes on every item. pdata's Value.SetStr puts a new box
// (AnyValue_StringValue, the oneof's one-field struct) in the value for
// every call: an allocation, and the garbage it leaves. setStr writes the
// new string into the box the value already has instead. This is sound
// because a box has one owner: pdata never shares one between two
// values (copies and its decoder make new boxes, flowlua's decoder one
// per value), so nothing else sees the write but through this value.
//
// It relies on the layout of pdata's internal types, which is checked
// once against the pinned pdata (checkInPlaceLayout): a pcommon.Value is
// {orig *AnyValue, state *State}, an AnyValue's first field is the oneof
// (an interface, `any` in pdata 1.64), and a string's box is a struct
// whose only field is the string. When the check fails, setStr is pdata's
// SetStr.

// stringBox is the type word of the oneof interface when it holds a
// string's box, as the check found it; nil (the check failed) turns the
// writes in place off.
var stringBox = checkInPlaceLayout()

// valueWords is pcommon.Value's layout: its orig pointer first.
type valueWords struct {
	orig  *ifaceWords
	state unsafe.Pointer
}

// ifaceWords is an interface's two words: its type (or, for an interface
// with methods, its itab: either way one word per concrete type) and its
// data.
type ifaceWords struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// setStr sets v to the string s: in place when v holds a string (see
// above), else as pdata's SetStr does. The caller has checked that the
// batch is writable (pdata's read-only state is the batch's).
func setStr(v pcommon.Value, s string) {
	if stringBox != nil {
		box := (*valueWords)(unsafe.Pointer(&v)).orig
		if box.typ == stringBox && box.data != nil {
			*(*string)(box.data) = s
			return
		}
	}
	v.SetStr(s)
}

// putStr is m.PutStr(k, s) with setStr's write in place when k holds a
// string. A key not there is looked up twice (here and by PutStr): pdata
// has no append without a lookup.
func putStr(m pcommon.Map, k, s string) {
	if stringBox == nil {
		m.PutStr(k, s)
		return
	}
	if v, ok := m.Get(k); ok {
		setStr(v, s)
		return
	}
	m.PutStr(k, s)
}

// checkInPlaceLayout checks pdata's layout by reflection and by a write:
// the fields setStr relies on must be where it reads them, and a string
// written in place must be what pdata then reads.
func checkInPlaceLayout() unsafe.Pointer {
	vt := reflect.TypeFor[pcommon.Value]()
	if vt.Kind() != reflect.Struct || vt.Size() != unsafe.Sizeof(valueWords{}) || vt.NumField() != 2 {
		return nil
	}
	orig := vt.Field(0)
	if orig.Offset != 0 || orig.Type.Kind() != reflect.Pointer {
		return nil
	}
	av := orig.Type.Elem()
	if av.Kind() != reflect.Struct || av.NumField() < 1 {
		return nil
	}
	oneof := av.Field(0)
	if oneof.Offset != 0 || oneof.Type.Kind() != reflect.Interface {
		return nil
	}
	probe := pcommon.NewValueStr("before")
	box := (*valueWords)(unsafe.Pointer(&probe)).orig
	if box == nil || box.data == nil {
		return nil
	}
	// The box's concrete type: a pointer to a struct of one string field.
	boxType := reflect.NewAt(oneof.Type, unsafe.Pointer(box)).Elem().Elem().Type()
	if boxType.Kind() != reflect.Pointer || boxType.Elem().Kind() != reflect.Struct ||
		boxType.Elem().NumField() != 1 || boxType.Elem().Field(0).Type.Kind() != reflect.String {
		return nil
	}
	// A box of another type must not pass for a string's.
	other := pcommon.NewValueInt(1)
	if (*valueWords)(unsafe.Pointer(&other)).orig.typ == box.typ {
		return nil
	}
	*(*string)(box.data) = "after"
	if probe.Str() != "after" || probe.Type() != pcommon.ValueTypeStr {
		return nil
	}
	return box.typ
}
