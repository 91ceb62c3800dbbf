package pdatalua

import (
	"slices"
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

// edit_attrs applies a list of attribute edits to every item a where clause
// selects, in one walk over the batch: several edits cost one pass, where
// as many calls of set_attr, mask_attr, hash_attr and del_attr cost a pass
// each.

// editAction is what an attribute edit does.
type editAction uint8

const (
	editSet    editAction = iota + 1 // set the attribute, present or not
	editMask                         // replace the value, where present
	editHash                         // replace the value with its hex SHA-256, where present
	editDelete                       // remove the attribute
)

var editActions = map[string]editAction{"set": editSet, "mask": editMask, "hash": editHash, "delete": editDelete}

// attrEdit is one entry of edit_attrs' list.
type attrEdit struct {
	action editAction
	key    string
	// keys holds key_pattern (nil when the edit names a key).
	keys  *where
	value scalar // set and mask
}

// apply makes the edit in m and reports whether it changed anything. The
// edits of a key, the common case, are written out.
func (e *attrEdit) apply(m pcommon.Map) bool {
	if e.keys == nil {
		switch e.action {
		case editSet:
			e.value.put(m, e.key)
			return true
		case editMask:
			v, ok := m.Get(e.key)
			if ok {
				e.value.set(v)
			}
			return ok
		case editDelete:
			return m.Remove(e.key)
		}
	}
	switch e.action {
	case editSet:
		e.value.put(m, e.key)
		return true
	case editMask:
		return editValues(m, e.key, e.keys, e.value.set)
	case editHash:
		return editValues(m, e.key, e.keys, hashValue)
	default: // editDelete
		if e.keys == nil {
			return m.Remove(e.key)
		}
		before := m.Len()
		m.RemoveIf(func(k string, _ pcommon.Value) bool { return e.keys.keyMatch(k) })
		return m.Len() < before
	}
}

var editFields = []string{"action", "key", "key_pattern", "value"}

// parseEdits reads argument n: a non-empty list of edits, each a table
// { action = "set"|"mask"|"hash"|"delete", key = ... or key_pattern = ...,
// value = ... (set, mask) }. A script most often passes the same list to
// every call: the parse of a list is kept, per state, and used again while
// the list and its edits hold the same values (see editsCache).
func parseEdits(L *lua.LState, n int, b *Batch) []attrEdit {
	t := L.CheckTable(n)
	if c := b.bd.edits[t]; c != nil && c.same(t) {
		return c.edits
	}
	count := t.Len()
	if count == 0 {
		L.ArgError(n, "edits: a list of at least one edit expected")
	}
	p := wp{L: L, n: n, b: b}
	edits := make([]attrEdit, count)
	c := &parsedEdits{edits: edits, entries: make([]editEntry, count)}
	for i := range edits {
		path := "edits[" + strconv.Itoa(i+1) + "]"
		et, ok := t.RawGetInt(i + 1).(*lua.LTable)
		if !ok {
			p.fail(path, "table expected, got "+t.RawGetInt(i+1).Type().String())
		}
		edits[i] = p.edit(path, et)
		c.entries[i] = snapshot(et)
	}
	if tableKeys(t) != count {
		p.fail("edits", "a list expected, got a table with keys other than 1.."+strconv.Itoa(count))
	}
	if b.bd.edits == nil || len(b.bd.edits) >= maxEditLists {
		b.bd.edits = make(map[*lua.LTable]*parsedEdits)
	}
	b.bd.edits[t] = c
	return edits
}

// maxEditLists bounds the per-state cache of parsed edit lists.
const maxEditLists = 64

// parsedEdits is the parse of an edit list, with what it was made from:
// the table and values of each of its edits.
type parsedEdits struct {
	edits   []attrEdit
	entries []editEntry
}

// editEntry is an edit table as it was parsed: its fields (nil when
// absent) and its number of keys, so that a key added or removed, or a
// value changed, shows.
type editEntry struct {
	t                         *lua.LTable
	action, key, pattern, val lua.LValue
	keys                      int
}

func snapshot(t *lua.LTable) editEntry {
	return editEntry{t: t, action: t.RawGetString("action"), key: t.RawGetString("key"),
		pattern: t.RawGetString("key_pattern"), val: t.RawGetString("value"), keys: tableKeys(t)}
}

// same reports whether t, the list c was parsed from, still holds the same
// edit tables with the same values. The parse of a list depends only on
// those (the regular expressions are compiled from the same strings).
func (c *parsedEdits) same(t *lua.LTable) bool {
	if t.Len() != len(c.entries) || tableKeys(t) != len(c.entries) {
		return false
	}
	for i := range c.entries {
		e := &c.entries[i]
		if t.RawGetInt(i+1) != e.t || snapshot(e.t) != *e {
			return false
		}
	}
	return true
}

// tableKeys counts the keys of t.
func tableKeys(t *lua.LTable) int {
	n := 0
	t.ForEach(func(lua.LValue, lua.LValue) { n++ })
	return n
}

// edit parses one edit table.
func (p *wp) edit(path string, t *lua.LTable) attrEdit {
	var e attrEdit
	t.ForEach(func(k, _ lua.LValue) {
		if name, ok := k.(lua.LString); !ok || !slices.Contains(editFields, string(name)) {
			p.fail(path, "unknown key "+strconv.Quote(lua.LVAsString(k))+script.DidYouMean(lua.LVAsString(k), editFields)+" (known: action, key, key_pattern, value)")
		}
	})
	action, ok := t.RawGetString("action").(lua.LString)
	if !ok {
		p.fail(path+".action", "one of set, mask, hash, delete expected, got "+t.RawGetString("action").Type().String())
	}
	if e.action = editActions[string(action)]; e.action == 0 {
		p.fail(path+".action", "unknown action "+strconv.Quote(string(action))+script.DidYouMean(string(action), []string{"set", "mask", "hash", "delete"})+" (known: set, mask, hash, delete)")
	}
	key, pattern := t.RawGetString("key"), t.RawGetString("key_pattern")
	switch {
	case key != lua.LNil && pattern != lua.LNil:
		p.fail(path, "give key or key_pattern, not both")
	case key != lua.LNil:
		e.key = p.str(path+".key", key)
		if len(e.key) > MaxKeyLen {
			p.fail(path+".key", "key too long (limit "+strconv.Itoa(MaxKeyLen)+" bytes)")
		}
	case pattern != lua.LNil:
		if e.action == editSet {
			p.fail(path, "set takes a key, not a key_pattern")
		}
		e.keys = &where{keyRe: p.regexp(path+".key_pattern", pattern), keyMemo: map[string]bool{}}
	default:
		p.fail(path, "key or key_pattern expected")
	}
	v := t.RawGetString("value")
	switch e.action {
	case editSet:
		s, msg := scalarOf(v)
		if msg != "" {
			p.fail(path+".value", msg)
		}
		e.value = s
	case editMask:
		s, ok := v.(lua.LString)
		if !ok {
			p.fail(path+".value", "the mask, a string, expected, got "+v.Type().String())
		}
		if len(s) > MaxStringLen {
			p.fail(path+".value", "string too long (limit "+strconv.Itoa(MaxStringLen)+" bytes)")
		}
		e.value = scalar{typ: pcommon.ValueTypeStr, s: string(s)}
	default:
		if v != lua.LNil {
			p.fail(path+".value", string(action)+" takes no value")
		}
	}
	return e
}

// editAttrs is edit_attrs(edits [, where]): it returns, for each edit in
// order, the number of items it changed.
func editAttrs(L *lua.LState) int {
	b := checkBatch(L, anySignal)
	b.writable(L)
	edits := parseEdits(L, 2, b)
	w := parseWhere(L, 3, b)
	if w.byPattern() {
		L.ArgError(3, "where: key_pattern belongs in an edit, not in the where clause of edit_attrs")
	}
	counts := b.bd.counts[:0]
	for range edits {
		counts = append(counts, 0)
	}
	b.bd.counts = counts
	if w == nil && b.sig == dataplane.Traces {
		b.editSpans(L, edits, counts)
	} else {
		b.walk(L, w, func(m pcommon.Map, _ markKey, _ int) {
			for i := range edits {
				if edits[i].apply(m) {
					counts[i]++
				}
			}
		})
	}
	for _, c := range counts {
		L.Push(lua.LNumber(c))
	}
	return len(counts)
}

// editSpans applies edits to every span, counting in counts: the walk of
// editAttrs without a where clause, written out for traces.
func (b *Batch) editSpans(L *lua.LState, edits []attrEdit, counts []int) {
	var t ticker
	rss := b.traces.ResourceSpans()
	for ri := 0; ri < rss.Len(); ri++ {
		sss := rss.At(ri).ScopeSpans()
		for si := 0; si < sss.Len(); si++ {
			spans := sss.At(si).Spans()
			for i, n := 0, spans.Len(); i < n; i++ {
				m := spans.At(i).Attributes()
				for j := range edits {
					e := &edits[j]
					var ok bool
					switch {
					case e.keys != nil:
						ok = e.apply(m)
					case e.action == editMask && e.value.typ == pcommon.ValueTypeStr:
						var v pcommon.Value
						if v, ok = m.Get(e.key); ok {
							v.SetStr(e.value.s)
						}
					case e.action == editDelete:
						ok = m.Remove(e.key)
					default:
						ok = e.apply(m)
					}
					if ok {
						counts[j]++
					}
				}
				t.tick(L)
			}
		}
	}
}
