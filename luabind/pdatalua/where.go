package pdatalua

import (
	"regexp"
	"strconv"

	"github.com/flowlua/flowlua/engine/component/dataplane"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// A where clause selects the items (spans, data points, log records) a bulk
// helper applies to. It is a predicate table, or a list of them; all must
// hold. It is evaluated in Go; patterns are Go regular expressions (RE2
// syntax, linear time), compiled once per state.

type target uint8

const (
	tAttr         target = iota + 1 // the item's attribute
	tResourceAttr                   // the resource's attribute
	tScopeAttr                      // the scope's attribute
	tName                           // span or metric name
	tScopeName                      // scope name
	tKind                           // span kind
	tSeverity                       // log severity number, at least
	tBody                           // log body, matches
)

type op uint8

const (
	opExists op = iota + 1
	opAbsent
	opEquals
	opMatches
	opAtLeast
)

// cond is one test of a where clause.
type cond struct {
	target target
	op     op
	key    string
	// the value of equals, of type eq
	eq   lua.LValueType
	str  string
	num  float64
	bval bool
	re   *regexp.Regexp
	kind ptrace.SpanKind
}

// where is a parsed where clause, its conditions sorted by the level at which
// they are evaluated. A nil *where selects everything.
type where struct {
	res, scope, metric, item []cond
	// keyRe is key_pattern: the attribute keys del_attr, hash_attr and
	// mask_attr apply to, when they are given no key.
	keyRe   *regexp.Regexp
	keyMemo map[string]bool
}

var predicateKeys = []string{
	"attr", "resource_attr", "scope_attr", "equals", "matches", "exists",
	"name", "name_matches", "scope", "kind", "severity_at_least", "body_matches", "key_pattern",
}

// parseWhere parses argument n, nil or a where clause, for a batch of sig.
func parseWhere(L *lua.LState, n int, b *Batch) *where {
	switch v := L.Get(n).(type) {
	case *lua.LNilType:
		return nil
	case *lua.LTable:
		w := &where{}
		p := wp{L: L, n: n, b: b, w: w}
		p.predicate(v, "where", 0)
		return w
	default:
		L.ArgError(n, "where: table expected, got "+v.Type().String())
		return nil
	}
}

// wp parses one where clause.
type wp struct {
	L *lua.LState
	n int
	b *Batch
	w *where
}

func (p *wp) fail(path, msg string) {
	p.L.ArgError(p.n, path+": "+msg)
}

func (p *wp) str(path string, v lua.LValue) string {
	s, ok := v.(lua.LString)
	if !ok {
		p.fail(path, "string expected, got "+v.Type().String())
	}
	return string(s)
}

func (p *wp) regexp(path string, v lua.LValue) *regexp.Regexp {
	s := p.str(path, v)
	if len(s) > maxPatternLen {
		p.fail(path, "pattern too long (limit "+strconv.Itoa(maxPatternLen)+" bytes)")
	}
	cache := p.b.bd.regexps
	if re, ok := cache[s]; ok {
		return re
	}
	re, err := regexp.Compile(s)
	if err != nil {
		p.fail(path, "invalid regular expression (Go RE2 syntax): "+err.Error())
	}
	if len(cache) >= maxRegexps {
		clear(cache)
	}
	cache[s] = re
	return re
}

// maxWhereDepth bounds the nesting of predicate lists (a table can hold
// itself).
const maxWhereDepth = 8

// predicate parses one predicate table; its array part holds more.
func (p *wp) predicate(t *lua.LTable, path string, depth int) {
	if depth > maxWhereDepth {
		p.fail(path, "predicates nested too deep")
	}
	fields := map[string]lua.LValue{}
	t.ForEach(func(k, v lua.LValue) {
		switch k := k.(type) {
		case lua.LNumber:
			sub, ok := v.(*lua.LTable)
			if !ok {
				p.fail(path+"["+k.String()+"]", "predicate table expected, got "+v.Type().String())
			}
			p.predicate(sub, path+"["+k.String()+"]", depth+1)
		case lua.LString:
			if !isPredicateKey(string(k)) {
				p.fail(path, "unknown key "+strconv.Quote(string(k))+" (known: attr, resource_attr, scope_attr with equals, matches or exists; name, name_matches, scope, kind, severity_at_least, body_matches, key_pattern)")
			}
			fields[string(k)] = v
		default:
			p.fail(path, "unexpected key of type "+k.Type().String())
		}
	})
	sig := p.b.sig

	// attribute conditions
	var attrTarget target
	var attrKey, attrField string
	for _, f := range []struct {
		name string
		t    target
	}{{"attr", tAttr}, {"resource_attr", tResourceAttr}, {"scope_attr", tScopeAttr}} {
		if v, ok := fields[f.name]; ok {
			if attrTarget != 0 {
				p.fail(path, attrField+" and "+f.name+" in one predicate: use a list of predicates, e.g. { {"+attrField+" = ...}, {"+f.name+" = ...} }")
			}
			attrTarget, attrField, attrKey = f.t, f.name, p.str(path+"."+f.name, v)
		}
	}
	var tests int
	c := cond{target: attrTarget, key: attrKey, op: opExists}
	if v, ok := fields["equals"]; ok {
		tests++
		c.op, c.eq = opEquals, v.Type()
		switch v := v.(type) {
		case lua.LString:
			c.str = string(v)
		case lua.LNumber:
			c.num = float64(v)
		case lua.LBool:
			c.bval = bool(v)
		default:
			p.fail(path+".equals", "string, number or boolean expected, got "+v.Type().String())
		}
	}
	if v, ok := fields["matches"]; ok {
		tests++
		c.op, c.re = opMatches, p.regexp(path+".matches", v)
	}
	if v, ok := fields["exists"]; ok {
		tests++
		e, isBool := v.(lua.LBool)
		if !isBool {
			p.fail(path+".exists", "boolean expected, got "+v.Type().String())
		}
		if !e {
			c.op = opAbsent
		}
	}
	if tests > 1 {
		p.fail(path, "give one of equals, matches, exists")
	}
	if tests > 0 && attrTarget == 0 {
		p.fail(path, "equals, matches and exists test an attribute: add attr, resource_attr or scope_attr")
	}
	if attrTarget != 0 {
		p.add(c)
	}

	if v, ok := fields["name"]; ok {
		p.needSig(path+".name", sig != dataplane.Logs, "log records have no name")
		p.add(cond{target: tName, op: opEquals, eq: lua.LTString, str: p.str(path+".name", v)})
	}
	if v, ok := fields["name_matches"]; ok {
		p.needSig(path+".name_matches", sig != dataplane.Logs, "log records have no name")
		p.add(cond{target: tName, op: opMatches, re: p.regexp(path+".name_matches", v)})
	}
	if v, ok := fields["scope"]; ok {
		p.add(cond{target: tScopeName, op: opEquals, eq: lua.LTString, str: p.str(path+".scope", v)})
	}
	if v, ok := fields["kind"]; ok {
		p.needSig(path+".kind", sig == dataplane.Traces, "only spans have a kind")
		s := p.str(path+".kind", v)
		k, ok := parseSpanKind(s)
		if !ok {
			p.fail(path+".kind", "span kind expected (unspecified, internal, server, client, producer, consumer), got "+strconv.Quote(s))
		}
		p.add(cond{target: tKind, kind: k})
	}
	if v, ok := fields["severity_at_least"]; ok {
		p.needSig(path+".severity_at_least", sig == dataplane.Logs, "only log records have a severity")
		num, isNum := v.(lua.LNumber)
		if !isNum {
			p.fail(path+".severity_at_least", "number expected, got "+v.Type().String())
		}
		p.add(cond{target: tSeverity, op: opAtLeast, num: float64(num)})
	}
	if v, ok := fields["body_matches"]; ok {
		p.needSig(path+".body_matches", sig == dataplane.Logs, "only log records have a body")
		p.add(cond{target: tBody, op: opMatches, re: p.regexp(path+".body_matches", v)})
	}
	if v, ok := fields["key_pattern"]; ok {
		if p.w.keyRe != nil {
			p.fail(path+".key_pattern", "one key_pattern per where clause")
		}
		p.w.keyRe = p.regexp(path+".key_pattern", v)
		p.w.keyMemo = make(map[string]bool)
	}
}

func (p *wp) needSig(path string, ok bool, msg string) {
	if !ok {
		p.fail(path, msg)
	}
}

// add files c under the level it is evaluated at.
func (p *wp) add(c cond) {
	w := p.w
	switch c.target {
	case tResourceAttr:
		w.res = append(w.res, c)
	case tScopeAttr, tScopeName:
		w.scope = append(w.scope, c)
	case tName:
		if p.b.sig == dataplane.Metrics {
			w.metric = append(w.metric, c)
		} else {
			w.item = append(w.item, c)
		}
	default:
		w.item = append(w.item, c)
	}
}

func isPredicateKey(k string) bool {
	for _, known := range predicateKeys {
		if k == known {
			return true
		}
	}
	return false
}

// testValue tests an attribute value; ok is whether the attribute exists.
// equals with a string compares the string form of strings, numbers and
// booleans; with a number, ints and doubles numerically; with a boolean,
// booleans. matches tests the string form.
func (c *cond) testValue(v pcommon.Value, ok bool) bool {
	switch c.op {
	case opExists:
		return ok
	case opAbsent:
		return !ok
	}
	if !ok {
		return false
	}
	t := v.Type()
	switch c.op {
	case opEquals:
		switch c.eq {
		case lua.LTString:
			switch t {
			case pcommon.ValueTypeStr:
				return v.Str() == c.str
			case pcommon.ValueTypeInt, pcommon.ValueTypeDouble, pcommon.ValueTypeBool:
				return v.AsString() == c.str
			}
		case lua.LTNumber:
			switch t {
			case pcommon.ValueTypeInt:
				return float64(v.Int()) == c.num
			case pcommon.ValueTypeDouble:
				return v.Double() == c.num
			}
		case lua.LTBool:
			return t == pcommon.ValueTypeBool && v.Bool() == c.bval
		}
		return false
	case opMatches:
		if t == pcommon.ValueTypeStr {
			return c.re.MatchString(v.Str())
		}
		return c.re.MatchString(v.AsString())
	}
	return false
}

func (c *cond) testString(s string) bool {
	if c.op == opMatches {
		return c.re.MatchString(s)
	}
	return s == c.str
}

func (c *cond) testAttrs(m pcommon.Map) bool {
	v, ok := m.Get(c.key)
	return c.testValue(v, ok)
}

func (w *where) matchResource(r pcommon.Resource) bool {
	if w == nil {
		return true
	}
	for i := range w.res {
		if !w.res[i].testAttrs(r.Attributes()) {
			return false
		}
	}
	return true
}

func (w *where) matchScope(s pcommon.InstrumentationScope) bool {
	if w == nil {
		return true
	}
	for i := range w.scope {
		c := &w.scope[i]
		if c.target == tScopeName {
			if !c.testString(s.Name()) {
				return false
			}
		} else if !c.testAttrs(s.Attributes()) {
			return false
		}
	}
	return true
}

func (w *where) matchMetric(m pmetric.Metric) bool {
	if w == nil {
		return true
	}
	for i := range w.metric {
		if !w.metric[i].testString(m.Name()) {
			return false
		}
	}
	return true
}

// byPattern reports whether the clause selects attribute keys by pattern.
func (w *where) byPattern() bool { return w != nil && w.keyRe != nil }

func (w *where) hasItem() bool { return w != nil && len(w.item) > 0 }

func (w *where) matchSpan(s ptrace.Span) bool {
	for i := range w.item {
		c := &w.item[i]
		switch c.target {
		case tName:
			if !c.testString(s.Name()) {
				return false
			}
		case tKind:
			if s.Kind() != c.kind {
				return false
			}
		default:
			if !c.testAttrs(s.Attributes()) {
				return false
			}
		}
	}
	return true
}

func (w *where) matchRecord(r plog.LogRecord) bool {
	for i := range w.item {
		c := &w.item[i]
		switch c.target {
		case tSeverity:
			if float64(r.SeverityNumber()) < c.num {
				return false
			}
		case tBody:
			if !c.testValue(r.Body(), true) {
				return false
			}
		default:
			if !c.testAttrs(r.Attributes()) {
				return false
			}
		}
	}
	return true
}

// matchAttrs tests the item conditions of a data point, all on attributes.
func (w *where) matchAttrs(m pcommon.Map) bool {
	for i := range w.item {
		if !w.item[i].testAttrs(m) {
			return false
		}
	}
	return true
}

// keyMatch reports whether key_pattern matches k; keys repeat from item to
// item, so results are remembered for the clause.
func (w *where) keyMatch(k string) bool {
	if ok, seen := w.keyMemo[k]; seen {
		return ok
	}
	ok := w.keyRe.MatchString(k)
	if len(w.keyMemo) < 4096 {
		w.keyMemo[k] = ok
	}
	return ok
}
