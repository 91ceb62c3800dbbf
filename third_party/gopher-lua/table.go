package lua

const defaultArrayCap = 32
const defaultHashCap = 32

type lValueArraySorter struct {
	L      *LState
	Fn     *LFunction
	Values []LValue
}

func (lv lValueArraySorter) Len() int {
	return len(lv.Values)
}

func (lv lValueArraySorter) Swap(i, j int) {
	lv.Values[i], lv.Values[j] = lv.Values[j], lv.Values[i]
}

func (lv lValueArraySorter) Less(i, j int) bool {
	if lv.Fn != nil {
		lv.L.Push(lv.Fn)
		lv.L.Push(lv.Values[i])
		lv.L.Push(lv.Values[j])
		lv.L.Call(2, 1)
		return LVAsBool(lv.L.reg.Pop())
	}
	return lessThan(lv.L, lv.Values[i], lv.Values[j])
}

func newLTable(acap int, hcap int) *LTable {
	if acap < 0 {
		acap = 0
	}
	if hcap < 0 {
		hcap = 0
	}
	tb := &LTable{}
	tb.Metatable = LNil
	if acap != 0 {
		tb.array = make([]LValue, 0, acap)
	}
	if hcap != 0 {
		tb.strdict = make(map[string]LValue, hcap)
	}
	return tb
}

// Len returns length of this LTable without using __len.
func (tb *LTable) Len() int {
	if tb.array == nil {
		return 0
	}
	var prev LValue = LNil
	for i := len(tb.array) - 1; i >= 0; i-- {
		v := tb.array[i]
		if prev == LNil && v != LNil {
			return i + 1
		}
		prev = v
	}
	return 0
}

// Append appends a given LValue to this LTable.
func (tb *LTable) Append(value LValue) {
	if value == LNil {
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if len(tb.array) == 0 || tb.array[len(tb.array)-1] != LNil {
		tb.array = append(tb.array, value)
		tb.pullHashInts()
	} else {
		i := len(tb.array) - 2
		for ; i >= 0; i-- {
			if tb.array[i] != LNil {
				break
			}
		}
		tb.array[i+1] = value
	}
}

// Insert inserts a given LValue at position `i` in this table.
func (tb *LTable) Insert(i int, value LValue) {
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if i > len(tb.array) {
		tb.RawSetInt(i, value)
		return
	}
	if i <= 0 {
		tb.RawSet(LNumber(i), value)
		return
	}
	i -= 1
	tb.array = append(tb.array, LNil)
	copy(tb.array[i+1:], tb.array[i:])
	tb.array[i] = value
	tb.pullHashInts()
}

// MaxN returns a maximum number key that nil value does not exist before it.
func (tb *LTable) MaxN() int {
	if tb.array == nil {
		return 0
	}
	for i := len(tb.array) - 1; i >= 0; i-- {
		if tb.array[i] != LNil {
			return i + 1
		}
	}
	return 0
}

// Remove removes from this table the element at a given position.
func (tb *LTable) Remove(pos int) LValue {
	if tb.array == nil {
		return LNil
	}
	larray := len(tb.array)
	if larray == 0 {
		return LNil
	}
	i := pos - 1
	oldval := LNil
	switch {
	case i >= larray:
		// nothing to do
	case i == larray-1 || i < 0:
		oldval = tb.array[larray-1]
		tb.array = tb.array[:larray-1]
	default:
		oldval = tb.array[i]
		copy(tb.array[i:], tb.array[i+1:])
		tb.array[larray-1] = nil
		tb.array = tb.array[:larray-1]
	}
	return oldval
}

// RawSet sets a given LValue to a given index without the __newindex metamethod.
// It is recommended to use `RawSetString` or `RawSetInt` for performance
// if you already know the given LValue is a string or number.
func (tb *LTable) RawSet(key LValue, value LValue) {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			tb.setInt(int(v), value)
			return
		}
	case LString:
		tb.RawSetString(string(v), value)
		return
	}

	tb.RawSetH(key, value)
}

// RawSetInt sets a given LValue at a position `key` without the __newindex metamethod.
func (tb *LTable) RawSetInt(key int, value LValue) {
	if key < 1 || key >= MaxArrayIndex {
		tb.RawSetH(LNumber(key), value)
		return
	}
	tb.setInt(key, value)
}

// arrayGap is how far past the end of an array part of n slots an
// integer key may be and still go into the array (the slots between
// filled with nil); a key further out goes into the hash part. The array
// part is so kept more than half full past its first slots, as PUC Lua's
// rehash keeps it.
//
// flowlua: upstream filled any gap with nils up to MaxArrayIndex, so that
// one assignment, t[67108863] = 1, allocated a gigabyte in one Go call,
// which no memory budget polled between instructions can stop.
func arrayGap(n int) int { return n + defaultArrayCap }

// setInt sets the integer key (1 <= key < MaxArrayIndex). Keys up to the
// array part's length are in the array part; keys further out are in the
// hash part (dict) until the array part grows to them.
func (tb *LTable) setInt(key int, value LValue) {
	index := key - 1
	alen := len(tb.array)
	switch {
	case index < alen:
		tb.array[index] = value
		return
	case index > alen+arrayGap(alen):
		tb.RawSetH(LNumber(key), value)
		return
	}
	if tb.dict != nil {
		if _, ok := tb.dict[LNumber(key)]; ok {
			tb.RawSetH(LNumber(key), value)
			return
		}
	}
	if value == LNil {
		return // past the end: nothing to store
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	for len(tb.array) < index {
		tb.array = append(tb.array, tb.takeHashInt(len(tb.array)+1))
	}
	tb.array = append(tb.array, value)
	tb.pullHashInts()
}

// takeHashInt removes the integer key from the hash part and returns its
// value (nil when it is not there), for the array part to take it.
func (tb *LTable) takeHashInt(key int) LValue {
	if tb.dict == nil {
		return LNil
	}
	v, ok := tb.dict[LNumber(key)]
	if !ok {
		return LNil
	}
	delete(tb.dict, LNumber(key))
	return v
}

// pullHashInts moves into the array part the keys of the hash part that
// follow its end, after the array part grew.
func (tb *LTable) pullHashInts() {
	for tb.dict != nil && len(tb.dict) > 0 {
		v := tb.takeHashInt(len(tb.array) + 1)
		if v == LNil {
			return
		}
		tb.array = append(tb.array, v)
	}
}

// RawSetString sets a given LValue to a given string index without the __newindex metamethod.
//
// flowlua: the hash part a table's first string key makes has no
// capacity hint (upstream's 32 made a map of about 2.5 KiB for a table of
// one field); Go's maps grow as keys come.
func (tb *LTable) RawSetString(key string, value LValue) {
	if tb.strdict == nil {
		tb.strdict = make(map[string]LValue)
	}
	if tb.keys == nil {
		tb.keys = []LValue{}
		tb.k2i = map[LValue]int{}
	}

	if value == LNil {
		// TODO tb.keys and tb.k2i should also be removed
		delete(tb.strdict, key)
	} else {
		lkey := LString(key)
		if _, ok := tb.k2i[lkey]; !ok {
			tb.addKey(lkey)
		}
		tb.strdict[key] = value
	}
}

// RawSetH sets a given LValue to a given index without the __newindex metamethod.
func (tb *LTable) RawSetH(key LValue, value LValue) {
	if s, ok := key.(LString); ok {
		tb.RawSetString(string(s), value)
		return
	}
	if tb.dict == nil {
		tb.dict = make(map[LValue]LValue, len(tb.strdict))
	}
	if tb.keys == nil {
		tb.keys = []LValue{}
		tb.k2i = map[LValue]int{}
	}

	if value == LNil {
		// TODO tb.keys and tb.k2i should also be removed
		delete(tb.dict, key)
	} else {
		if _, ok := tb.k2i[key]; !ok {
			tb.addKey(key)
		}
		tb.dict[key] = value
	}
}

// addKey records a new key of the hash part in keys, which Next walks.
// Keys set to nil stay there (a traversal may clear the fields it
// visits); once they are half of keys, the new key's insertion (which
// ends any traversal: Lua leaves next undefined after it) drops them and
// rebuilds the maps, which Go never shrinks.
//
// flowlua: upstream never dropped them, so that a table used as a cache
// (keys set, later cleared) grew without bound.
func (tb *LTable) addKey(key LValue) {
	if n := len(tb.keys); n >= 64 && n >= 2*(len(tb.strdict)+len(tb.dict)) {
		tb.compactKeys()
	}
	tb.k2i[key] = len(tb.keys)
	tb.keys = append(tb.keys, key)
}

// compactKeys drops from keys the keys whose value is nil (or which moved
// to the array part) and rebuilds the hash part's maps to their size.
func (tb *LTable) compactKeys() {
	live := make([]LValue, 0, len(tb.strdict)+len(tb.dict)+1)
	for _, k := range tb.keys {
		if tb.RawGetH(k) != LNil {
			live = append(live, k)
		}
	}
	tb.keys = live
	tb.k2i = make(map[LValue]int, len(live))
	for i, k := range live {
		tb.k2i[k] = i
	}
	if tb.strdict != nil {
		m := make(map[string]LValue, len(tb.strdict))
		for k, v := range tb.strdict {
			m[k] = v
		}
		tb.strdict = m
	}
	if tb.dict != nil {
		m := make(map[LValue]LValue, len(tb.dict))
		for k, v := range tb.dict {
			m[k] = v
		}
		tb.dict = m
	}
}

// Mark reports whether the table was marked with epoch (not 0) before,
// and marks it: a walk of the values a state can reach (luabind/luamem)
// takes a new epoch and so sees each table once without a set of the
// tables it saw. Only the goroutine that runs the table's state may call
// it.
//
// flowlua: not in upstream.
func (tb *LTable) Mark(epoch uint32) bool {
	if tb.mark == epoch {
		return true
	}
	tb.mark = epoch
	return false
}

// Sizes for Footprint, in bytes, on 64-bit machines.
const (
	tableStructBytes = 96 // an LTable, rounded up to its size class
	valueBytes       = 16 // an LValue: an array slot, an entry of keys
	emptyMapBytes    = 48
)

// mapBytes estimates the bytes of a Go map that held up to n entries of
// slot bytes each: Go's maps (swiss tables) keep a control byte a slot,
// slots a power of two at most 7/8 full, and never shrink; the factor
// 5/4 is the tables' and directories' overhead, measured.
func mapBytes(n, slot int) int64 {
	if n == 0 {
		return emptyMapBytes
	}
	slots := 8
	for slots*7/8 < n {
		slots *= 2
	}
	return emptyMapBytes + int64(slots)*int64(slot+1)*5/4
}

// Footprint estimates the bytes this table's own structure holds on the
// Go heap: the table, its array part's capacity, and its hash part (the
// maps, and the list of keys Next walks) as large as it has been. The
// values and keys it refers to (strings, boxed numbers, other tables) are
// not included: whoever walks the table counts them once each.
//
// flowlua: not in upstream (luabind/luamem's memory budget).
func (tb *LTable) Footprint() int64 {
	n := int64(tableStructBytes) + int64(cap(tb.array))*valueBytes
	if tb.keys != nil {
		dead := max(len(tb.keys)-len(tb.strdict)-len(tb.dict), 0)
		if tb.strdict != nil {
			n += mapBytes(len(tb.strdict)+dead, 16+valueBytes)
			dead = 0
		}
		if tb.dict != nil {
			n += mapBytes(len(tb.dict)+dead, 2*valueBytes)
		}
		n += int64(cap(tb.keys))*valueBytes + mapBytes(len(tb.keys), valueBytes+8)
	} else if tb.strdict != nil {
		n += mapBytes(len(tb.strdict), 16+valueBytes)
	}
	return n
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGet(key LValue) LValue {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if index := int(v) - 1; index < len(tb.array) {
				return tb.array[index]
			}
			if tb.dict == nil {
				return LNil
			}
			if v, ok := tb.dict[key]; ok {
				return v
			}
			return LNil
		}
	case LString:
		if tb.strdict == nil {
			return LNil
		}
		if ret, ok := tb.strdict[string(v)]; ok {
			return ret
		}
		return LNil
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetInt returns an LValue at position `key` without __index metamethod.
func (tb *LTable) RawGetInt(key int) LValue {
	if index := key - 1; index >= 0 && index < len(tb.array) {
		return tb.array[index]
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[LNumber(key)]; ok {
		return v
	}
	return LNil
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetH(key LValue) LValue {
	if s, sok := key.(LString); sok {
		if tb.strdict == nil {
			return LNil
		}
		if v, vok := tb.strdict[string(s)]; vok {
			return v
		}
		return LNil
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetString returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetString(key string) LValue {
	if tb.strdict == nil {
		return LNil
	}
	if v, vok := tb.strdict[string(key)]; vok {
		return v
	}
	return LNil
}

// ForEach iterates over this table of elements, yielding each in turn to a given function.
func (tb *LTable) ForEach(cb func(LValue, LValue)) {
	if tb.array != nil {
		for i, v := range tb.array {
			if v != LNil {
				cb(LNumber(i+1), v)
			}
		}
	}
	if tb.strdict != nil {
		for k, v := range tb.strdict {
			if v != LNil {
				cb(LString(k), v)
			}
		}
	}
	if tb.dict != nil {
		for k, v := range tb.dict {
			if v != LNil {
				cb(k, v)
			}
		}
	}
}

// This function is equivalent to lua_next ( http://www.lua.org/manual/5.1/manual.html#lua_next ).
func (tb *LTable) Next(key LValue) (LValue, LValue) {
	init := false
	if key == LNil {
		key = LNumber(0)
		init = true
	}

	if init || key != LNumber(0) {
		// flowlua: an integer key past the array part is the hash part's
		// (setInt), and its successor is found there.
		if kv, ok := key.(LNumber); ok && isInteger(kv) && int(kv) >= 0 && int(kv) <= len(tb.array) {
			index := int(kv)
			if tb.array != nil {
				for ; index < len(tb.array); index++ {
					if v := tb.array[index]; v != LNil {
						return LNumber(index + 1), v
					}
				}
			}
			if tb.array == nil || index == len(tb.array) {
				if (tb.dict == nil || len(tb.dict) == 0) && (tb.strdict == nil || len(tb.strdict) == 0) {
					return LNil, LNil
				}
				key = tb.keys[0]
				if v := tb.RawGetH(key); v != LNil {
					return key, v
				}
			}
		}
	}

	for i := tb.k2i[key] + 1; i < len(tb.keys); i++ {
		key := tb.keys[i]
		if v := tb.RawGetH(key); v != LNil {
			return key, v
		}
	}
	return LNil, LNil
}
