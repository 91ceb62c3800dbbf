package pdatalua

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/flowlua/flowlua/engine/component/dataplane"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Bulk helpers: one Lua call applies an edit to every span, data point or log
// record a where clause selects, in Go. Each returns the number of items it
// changed (or selected, for count and drop).

// visit is called by a walk with the attributes of an item and the position
// the item's drop mark takes.
type visit func(attrs pcommon.Map, k markKey, i int)

// walk calls fn for every item of the batch that w selects.
func (b *Batch) walk(L *lua.LState, w *where, fn visit) {
	switch b.sig {
	case dataplane.Traces:
		b.walkTraces(L, w, fn)
	case dataplane.Metrics:
		b.walkMetrics(L, w, fn)
	case dataplane.Logs:
		b.walkLogs(L, w, fn)
	}
}

// ticker checks the state's context every 1024 items, so that a bulk helper
// on a huge batch honours the callback's deadline.
type ticker struct{ n int }

func (t *ticker) tick(L *lua.LState) {
	t.n++
	if t.n&1023 == 0 {
		checkContext(L)
	}
}

// checkContext raises the error of the state's context once it is done.
func checkContext(L *lua.LState) {
	if ctx := L.Context(); ctx != nil {
		if err := ctx.Err(); err != nil {
			L.RaiseError("%s", err.Error())
		}
	}
}

// keySel is the key argument of del_attr, hash_attr and mask_attr: a key, or
// nil with a where clause that has a key_pattern.
func keySel(L *lua.LState, n int, w *where) string {
	if L.Get(n) == lua.LNil {
		if !w.byPattern() {
			L.ArgError(n, "attribute key expected (or nil with a where clause that has key_pattern)")
		}
		return ""
	}
	key := L.CheckString(n)
	if w.byPattern() {
		L.ArgError(n, "give a key or a key_pattern, not both")
	}
	return key
}

// editEach applies e to every item w selects and returns how many it
// changed. The single-edit helpers use it; edit_attrs applies a list.
func editEach(L *lua.LState, b *Batch, w *where, e attrEdit) int {
	n := 0
	b.walk(L, w, func(m pcommon.Map, _ markKey, _ int) {
		if e.apply(m) {
			n++
		}
	})
	return n
}

// keyEdit is an edit of the key a helper was given, or, when it was given
// nil, of the keys w's key_pattern matches.
func keyEdit(action editAction, key string, w *where) attrEdit {
	e := attrEdit{action: action, key: key}
	if w.byPattern() {
		e.keys = w
	}
	return e
}

// editValues calls edit on the value of key in m, or on every value whose key
// w's key_pattern matches, and reports whether it edited any.
func editValues(m pcommon.Map, key string, w *where, edit func(pcommon.Value)) bool {
	if !w.byPattern() {
		v, ok := m.Get(key)
		if ok {
			edit(v)
		}
		return ok
	}
	edited := false
	for k, v := range m.All() {
		if w.keyMatch(k) {
			edit(v)
			edited = true
		}
	}
	return edited
}

// hashValue replaces v with the lowercase hex SHA-256 (64 characters) of
// its string form (the raw bytes of strings and byte values).
func hashValue(v pcommon.Value) {
	var sum [sha256.Size]byte
	switch v.Type() {
	case pcommon.ValueTypeStr:
		sum = sha256.Sum256([]byte(v.Str()))
	case pcommon.ValueTypeBytes:
		sum = sha256.Sum256(v.Bytes().AsRaw())
	default:
		sum = sha256.Sum256([]byte(v.AsString()))
	}
	v.SetStr(hex.EncodeToString(sum[:]))
}

var bulkMethods = map[string]lua.LGFunction{
	// set_attr(key, value [, where]) sets the attribute on every item.
	"set_attr": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		b.writable(L)
		key := checkKey(L, 2)
		v := checkScalar(L, 3)
		w := parseWhere(L, 4, b)
		if w != nil && w.keyRe != nil {
			L.ArgError(4, "where: key_pattern selects keys for del_attr, hash_attr and mask_attr; set_attr takes a key")
		}
		L.Push(lua.LNumber(editEach(L, b, w, attrEdit{action: editSet, key: key, value: v})))
		return 1
	},
	// del_attr(key [, where]) removes the attribute from every item;
	// del_attr(nil, {key_pattern = ...}) removes every matching key.
	"del_attr": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		b.writable(L)
		w := parseWhere(L, 3, b)
		key := keySel(L, 2, w)
		L.Push(lua.LNumber(editEach(L, b, w, keyEdit(editDelete, key, w))))
		return 1
	},
	// hash_attr(key [, where]) replaces the value with its hex SHA-256.
	"hash_attr": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		b.writable(L)
		w := parseWhere(L, 3, b)
		key := keySel(L, 2, w)
		L.Push(lua.LNumber(editEach(L, b, w, keyEdit(editHash, key, w))))
		return 1
	},
	// mask_attr(key, mask [, where]) replaces the value, where the attribute
	// exists, with the string mask.
	"mask_attr": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		b.writable(L)
		w := parseWhere(L, 4, b)
		key := keySel(L, 2, w)
		e := keyEdit(editMask, key, w)
		e.value = scalar{typ: pcommon.ValueTypeStr, s: checkStr(L, 3)}
		L.Push(lua.LNumber(editEach(L, b, w, e)))
		return 1
	},
	// edit_attrs(edits [, where]) applies every edit to each item in one
	// walk and returns one count per edit (see edits.go).
	"edit_attrs": editAttrs,
	// drop(where) marks every item where selects for removal.
	"drop": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		b.writable(L)
		L.CheckTable(2)
		w := parseWhere(L, 2, b)
		n := 0
		b.walk(L, w, func(_ pcommon.Map, k markKey, i int) {
			b.drops.mark(k, i)
			n++
		})
		L.Push(lua.LNumber(n))
		return 1
	},
	// count([where]) is the number of items where selects.
	"count": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		w := parseWhere(L, 2, b)
		n := 0
		b.walk(L, w, func(pcommon.Map, markKey, int) { n++ })
		L.Push(lua.LNumber(n))
		return 1
	},
}
