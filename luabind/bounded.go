package luabind

import (
	"fmt"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"

	"github.com/flowlua/flowlua/luabind/luamem"
)

// The builtins of a sandbox that build a string in one Go call, which no
// deadline interrupts, check the size of what they would build before
// building it: string.rep, string.format, string.gsub, table.concat. A
// result larger than the state's memory limit (that of the call's
// luamem.Guard, else the limit the sandbox was opened with) fails with
// the limit's error, and the call's guard records it, so that the caller
// treats it as any other overrun of the budget. string.gsub and
// string.gmatch also find their matches one at a time (gopher-lua's find
// them all first, and gsub copies the whole string once per match), and
// gsub honours the call's deadline between matches; the matcher itself
// gives up within a few thousand steps once the call's context is done,
// as string.find and string.match do (third_party/gopher-lua/FLOWLUA.md).
// load compiles at most maxSourceSize bytes.

// bounds are the limits a sandbox was opened with.
type bounds struct{ limit int64 }

// limitOf returns the memory limit of the call L runs.
func (b *bounds) limitOf(L *lua.LState) int64 {
	if g := luamem.FromState(L); g != nil && g.Limit() > 0 {
		return g.Limit()
	}
	return b.limit
}

// check fails the call when what builds n bytes does not fit the limit.
func (b *bounds) check(L *lua.LState, what string, n int64) {
	limit := b.limitOf(L)
	if n <= limit {
		return
	}
	err := &luamem.LimitError{Limit: limit, Size: n, What: fmt.Sprintf("%s would build %s", what, formatBytes(n))}
	if g := luamem.FromState(L); g != nil {
		g.Fail(err)
	}
	L.RaiseError("%s", err.Error())
}

// formatBytes writes n bytes in MiB when large, else in bytes.
func formatBytes(n int64) string {
	if n >= 10<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (b *bounds) rep(orig lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		s := L.CheckString(1)
		n := float64(L.CheckNumber(2))
		if size := n * float64(len(s)); size > 0 {
			b.check(L, "string.rep", int64(min(size, 1<<62)))
		}
		return orig(L)
	}
}

func (b *bounds) format(orig lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		f := L.CheckString(1)
		if !formatWidthsOK(f) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		// Each directive writes at most its argument, padded to 99.
		size := int64(len(f))
		for i := 2; i <= L.GetTop(); i++ {
			size += 100
			if s, ok := L.Get(i).(lua.LString); ok {
				size += int64(len(s))
			}
		}
		b.check(L, "string.format", size)
		return orig(L)
	}
}

func (b *bounds) concat(L *lua.LState) int {
	tbl := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := tbl.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	i = max(min(i, n), 1)
	j = min(j, n)
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	parts := make([]string, 0, j-i+1)
	size := int64(len(sep)) * int64(j-i)
	for k := i; k <= j; k++ {
		v := tbl.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		s := lua.LVAsString(v)
		size += int64(len(s))
		parts = append(parts, s)
	}
	b.check(L, "table.concat", size)
	L.Push(lua.LString(strings.Join(parts, sep)))
	return 1
}

// readOnlyBytes views s as bytes without copying it; pm only reads.
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// findFrom returns the first match of pat in src at or after offset. The
// matcher gives up once the call's context is done: a backtracking
// pattern can run for minutes in this one Go call.
func findFrom(L *lua.LState, pat string, src []byte, offset int) *pm.MatchData {
	var stop func() error
	if L.Context() != nil {
		stop = L.ContextErr
	}
	mds, err := pm.FindStop(pat, src, offset, 1, stop)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	if len(mds) == 0 {
		return nil
	}
	return mds[0]
}

// captured returns capture idx (an index into the match's positions) of
// m as a string, as gopher-lua's gsub does.
func captured(L *lua.LState, m *pm.MatchData, s string, idx int) string {
	if idx > 2 && idx >= m.CaptureLength() {
		L.RaiseError("invalid capture index")
	}
	if idx >= m.CaptureLength() && idx == 2 {
		idx = 0
	}
	if m.IsPosCapture(idx) {
		return fmt.Sprint(m.Capture(idx))
	}
	return s[m.Capture(idx):m.Capture(idx+1)]
}

// gsub is string.gsub with the semantics of gopher-lua's, built in one
// pass and bounded.
func (b *bounds) gsub(L *lua.LState) int {
	s := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl := L.CheckAny(3)
	maxN := L.OptInt(4, -1)
	limit := b.limitOf(L)
	src := readOnlyBytes(s)
	var out strings.Builder
	n, last := 0, 0
	for off := 0; off <= len(s) && (maxN < 0 || n < maxN); {
		m := findFrom(L, pat, src, off)
		if m == nil {
			break
		}
		start, end := m.Capture(0), m.Capture(1)
		piece, ok := b.replacement(L, m, s, repl)
		if !ok {
			piece = s[start:end]
		}
		if size := int64(out.Len()) + int64(start-last) + int64(len(piece)) + int64(len(s)-end); size > limit {
			b.check(L, "string.gsub", size)
		}
		out.WriteString(s[last:start])
		out.WriteString(piece)
		last = end
		n++
		off = max(start+1, end)
		if strings.HasPrefix(pat, "^") {
			break
		}
		if n&255 == 0 {
			if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
				L.RaiseError("%s", ctx.Err().Error())
			}
		}
	}
	if n == 0 {
		L.Push(lua.LString(s))
	} else {
		out.WriteString(s[last:])
		L.Push(lua.LString(out.String()))
	}
	L.Push(lua.LNumber(n))
	return 2
}

// replacement returns what replaces match m; false keeps the match.
func (b *bounds) replacement(L *lua.LState, m *pm.MatchData, s string, repl lua.LValue) (string, bool) {
	switch r := repl.(type) {
	case lua.LString:
		return expandRepl(L, m, s, string(r)), true
	case *lua.LTable:
		idx := 0
		if m.CaptureLength() > 2 {
			idx = 2
		}
		var v lua.LValue
		if m.IsPosCapture(idx) {
			v = L.GetTable(r, lua.LNumber(m.Capture(idx)))
		} else {
			v = L.GetField(r, s[m.Capture(idx):m.Capture(idx+1)])
		}
		if lua.LVIsFalse(v) {
			return "", false
		}
		return lua.LVAsString(v), true
	case *lua.LFunction:
		L.Push(r)
		nargs := 0
		if m.CaptureLength() > 2 {
			for i := 2; i < m.CaptureLength(); i += 2 {
				if m.IsPosCapture(i) {
					L.Push(lua.LNumber(m.Capture(i)))
				} else {
					L.Push(lua.LString(captured(L, m, s, i)))
				}
				nargs++
			}
		} else {
			L.Push(lua.LString(captured(L, m, s, 0)))
			nargs++
		}
		L.Call(nargs, 1)
		v := L.Get(-1)
		L.Pop(1)
		if lua.LVIsFalse(v) {
			return "", false
		}
		return lua.LVAsString(v), true
	}
	return "", false
}

// expandRepl expands a replacement string: %0-%9 are captures, %% is %,
// and any other % is kept with the character after it.
func expandRepl(L *lua.LState, m *pm.MatchData, s, repl string) string {
	if strings.IndexByte(repl, '%') < 0 {
		return repl
	}
	var out strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c != '%':
			out.WriteByte(c)
		case i+1 < len(repl) && repl[i+1] == '%':
			out.WriteByte('%')
			i++
		case i == len(repl)-1:
			out.WriteByte('%')
		default:
			i++
			if d := repl[i]; d >= '0' && d <= '9' {
				out.WriteString(captured(L, m, s, 2*int(d-'0')))
			} else {
				out.WriteByte('%')
				out.WriteByte(d)
			}
		}
	}
	return out.String()
}

// gmatchState is where a gmatch iteration is.
type gmatchState struct {
	s, pat string
	off    int
	done   bool
}

// gmatch is string.gmatch, finding one match per step.
func gmatch(L *lua.LState) int {
	st := &gmatchState{s: L.CheckString(1), pat: L.CheckString(2)}
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if st.done || st.off > len(st.s) {
			return 0
		}
		m := findFrom(L, st.pat, readOnlyBytes(st.s), st.off)
		if m == nil {
			st.done = true
			return 0
		}
		st.off = max(m.Capture(0)+1, m.Capture(1))
		if strings.HasPrefix(st.pat, "^") {
			st.done = true
		}
		if m.CaptureLength() == 2 {
			L.Push(lua.LString(st.s[m.Capture(0):m.Capture(1)]))
			return 1
		}
		for i := 2; i < m.CaptureLength(); i += 2 {
			if m.IsPosCapture(i) {
				L.Push(lua.LNumber(m.Capture(i)))
			} else {
				L.Push(lua.LString(st.s[m.Capture(i):m.Capture(i+1)]))
			}
		}
		return m.CaptureLength()/2 - 1
	}))
	return 1
}
