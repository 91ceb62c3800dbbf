package pdatalua

import (
	"regexp"
	"strconv"

	"github.com/flowlua/flowlua/engine/component/dataplane"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Limits on what a script may write into a batch. Strings a script passes
// already exist in Lua, so these bound the size of telemetry, not the Lua heap.
const (
	// MaxKeyLen is the longest attribute key a script may write.
	MaxKeyLen = 4 << 10
	// MaxStringLen is the longest string a script may write into a field,
	// an attribute value or a log body.
	MaxStringLen = 1 << 20
	// maxPatternLen is the longest regular expression a where clause takes.
	maxPatternLen = 1 << 10
	// maxRegexps bounds the per-state cache of compiled regular expressions.
	maxRegexps = 256
)

// The messages of the errors a script sees.
const (
	errUsedAfter = "batch used after its callback returned"
	errStale     = "handle used after the batch was restructured (emitted, or its drops applied): iterate again"
	errReadOnly  = "batch is read-only: declare the component as mutating"
)

// registryKey is the key of the per-state bindings in the Lua registry.
const registryKey = "flowlua.pdatalua"

// anySignal stands for a batch of any signal where a check takes one.
const anySignal = dataplane.NumSignals

// bindings is what Open creates once per state: the metatable of every bound
// type, the shared iterator functions and the regexp cache.
type bindings struct {
	tracesBatch, metricsBatch, logsBatch *lua.LTable
	resource                             *lua.LTable
	traceScope, metricScope, logScope    *lua.LTable
	span, metric, point, record          *lua.LTable

	// Iterator functions of generic for loops; their state is the handle.
	resourcesNext, scopesNext, spansNext, recordsNext, metricsNext, pointsNext *lua.LFunction

	regexps map[string]*regexp.Regexp
	// copies of the method tables batch:methods returns
	methodCopies map[string]*lua.LTable
	// edit lists edit_attrs parsed, and its buffer of counts
	edits  map[*lua.LTable]*parsedEdits
	counts []int
}

// Open registers the metatables of every pdata type in L. Call it once per
// state, before the first callback; calling it again is a no-op. NewTraces,
// NewMetrics and NewLogs call it if it was not called.
func Open(L *lua.LState) {
	open(L)
}

func open(L *lua.LState) *bindings {
	if ud, ok := L.G.Registry.RawGetString(registryKey).(*lua.LUserData); ok {
		if bd, ok := ud.Value.(*bindings); ok {
			return bd
		}
	}
	bd := &bindings{regexps: make(map[string]*regexp.Regexp)}
	bd.tracesBatch = newClass(L, "traces", batchMethods, bulkMethods, traceBatchMethods)
	bd.metricsBatch = newClass(L, "metrics", batchMethods, bulkMethods, metricBatchMethods)
	bd.logsBatch = newClass(L, "logs", batchMethods, bulkMethods, logBatchMethods)
	bd.resource = newClass(L, "resource", attrMethods(resourceAttrs), resourceMethods)
	bd.traceScope = newClass(L, "scope", attrMethods(scopeAttrs), scopeMethods, traceScopeMethods)
	bd.metricScope = newClass(L, "scope", attrMethods(scopeAttrs), scopeMethods, metricScopeMethods)
	bd.logScope = newClass(L, "scope", attrMethods(scopeAttrs), scopeMethods, logScopeMethods)
	bd.span = newClass(L, "span", attrMethods(spanAttrs), spanMethods)
	bd.metric = newClass(L, "metric", metricMethods)
	bd.point = newClass(L, "point", attrMethods(pointAttrs), pointMethods)
	bd.record = newClass(L, "record", attrMethods(recordAttrs), recordMethods)
	bd.resourcesNext = L.NewFunction(resourcesNext)
	bd.scopesNext = L.NewFunction(scopesNext)
	bd.spansNext = L.NewFunction(spansNext)
	bd.recordsNext = L.NewFunction(recordsNext)
	bd.metricsNext = L.NewFunction(metricsNext)
	bd.pointsNext = L.NewFunction(pointsNext)
	L.G.Registry.RawSetString(registryKey, &lua.LUserData{Value: bd, Metatable: lua.LNil})
	return bd
}

// methodTable returns a copy of the methods of the bound type name, for a
// batch of sig, or raises an error.
func (bd *bindings) methodTable(L *lua.LState, sig dataplane.Signal, name string) *lua.LTable {
	var mt *lua.LTable
	switch name {
	case "batch":
		mt = [...]*lua.LTable{dataplane.Traces: bd.tracesBatch, dataplane.Metrics: bd.metricsBatch, dataplane.Logs: bd.logsBatch}[sig]
	case "scope":
		mt = [...]*lua.LTable{dataplane.Traces: bd.traceScope, dataplane.Metrics: bd.metricScope, dataplane.Logs: bd.logScope}[sig]
	case "resource":
		mt = bd.resource
	case "span":
		mt = bd.span
	case "metric":
		mt = bd.metric
	case "point":
		mt = bd.point
	case "record":
		mt = bd.record
	default:
		L.ArgError(2, "type name expected (batch, resource, scope, span, metric, point, record), got "+strconv.Quote(name))
	}
	key := name + "/" + strconv.Itoa(int(sig))
	if t, ok := bd.methodCopies[key]; ok {
		return t
	}
	t := L.NewTable()
	mt.RawGetString("__index").(*lua.LTable).ForEach(func(k, v lua.LValue) { t.RawSet(k, v) })
	if bd.methodCopies == nil {
		bd.methodCopies = make(map[string]*lua.LTable)
	}
	bd.methodCopies[key] = t
	return t
}

// newClass builds the metatable of one bound type: methods in __index, a
// fixed __metatable so that scripts cannot reach or change the method table,
// and a __tostring naming the type.
func newClass(L *lua.LState, name string, methods ...map[string]lua.LGFunction) *lua.LTable {
	index := L.NewTable()
	for _, m := range methods {
		for k, fn := range m {
			if index.RawGetString(k) != lua.LNil {
				panic("pdatalua: two methods " + name + "." + k)
			}
			index.RawSetString(k, L.NewFunction(fn))
		}
	}
	mt := L.NewTable()
	mt.RawSetString("__index", index)
	mt.RawSetString("__metatable", lua.LString("pdata."+name))
	label := lua.LString("pdata." + name)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(label)
		return 1
	}))
	return mt
}

// Batch wraps one pdata batch for the callbacks of one Lua state.
//
// Lifecycle:
//  1. NewTraces (NewMetrics, NewLogs) wraps a batch; Value is the userdata to
//     pass to the callback.
//  2. During the callback the script reads and edits the batch in place, by
//     reference. Drops are only marked.
//  3. Invalidate, once the callback returned (normally or with an error),
//     applies the marked drops and makes the userdata and every handle
//     derived from it dead: any later use from Lua raises "batch used after
//     its callback returned".
//  4. ResetTraces (ResetMetrics, ResetLogs) reuses the Batch for the next
//     callback of the same state, keeping its buffers; it invalidates the
//     previous batch first if that was not done. Value then returns a new
//     userdata, so a value a script kept from an earlier callback stays dead.
//
// A Batch belongs to one state and, like the state, is not safe for
// concurrent use.
type Batch struct {
	bd *bindings

	sig     dataplane.Signal
	traces  ptrace.Traces
	metrics pmetric.Metrics
	logs    plog.Logs

	ud       *lua.LUserData // the batch userdata of the current callback
	live     bool
	readOnly bool
	// gen changes whenever every handle must die: at the end of a callback
	// and when drops are applied during one. sess changes per callback only,
	// so that a dead handle can tell which error to raise.
	gen, sess uint32

	drops       drops
	removeEmpty bool

	// Handles returned by index access (batch:resource(i), batch:span(i),
	// ...), created on first use in each generation.
	atResource, atLeaf, atPoint *lua.LUserData
	// atIndex are the handles the functions of by_index move, per kind,
	// created on first use in each generation; byIdx their tables, made
	// once per Batch.
	atIndex [numLeafKinds]*lua.LUserData
	byIdx   [numLeafKinds]*byIndex
}

// NewTraces wraps td for one callback of the state L.
func NewTraces(L *lua.LState, td ptrace.Traces) *Batch {
	b := &Batch{bd: open(L)}
	b.ResetTraces(td)
	return b
}

// NewMetrics wraps md for one callback of the state L.
func NewMetrics(L *lua.LState, md pmetric.Metrics) *Batch {
	b := &Batch{bd: open(L)}
	b.ResetMetrics(md)
	return b
}

// NewLogs wraps ld for one callback of the state L.
func NewLogs(L *lua.LState, ld plog.Logs) *Batch {
	b := &Batch{bd: open(L)}
	b.ResetLogs(ld)
	return b
}

// ResetTraces makes b wrap td for a new callback, reusing b's buffers. It
// invalidates the batch b wrapped before if it is still live.
func (b *Batch) ResetTraces(td ptrace.Traces) {
	b.Invalidate()
	b.sig, b.traces = dataplane.Traces, td
	b.begin(td.IsReadOnly(), b.bd.tracesBatch)
}

// ResetMetrics makes b wrap md for a new callback, reusing b's buffers. It
// invalidates the batch b wrapped before if it is still live.
func (b *Batch) ResetMetrics(md pmetric.Metrics) {
	b.Invalidate()
	b.sig, b.metrics = dataplane.Metrics, md
	b.begin(md.IsReadOnly(), b.bd.metricsBatch)
}

// ResetLogs makes b wrap ld for a new callback, reusing b's buffers. It
// invalidates the batch b wrapped before if it is still live.
func (b *Batch) ResetLogs(ld plog.Logs) {
	b.Invalidate()
	b.sig, b.logs = dataplane.Logs, ld
	b.begin(ld.IsReadOnly(), b.bd.logsBatch)
}

func (b *Batch) begin(readOnly bool, mt *lua.LTable) {
	b.readOnly = readOnly
	b.live = true
	b.sess++
	b.nextGen()
	b.ud = &lua.LUserData{Value: b, Metatable: mt}
}

// Value returns the userdata to pass to the callback.
func (b *Batch) Value() lua.LValue {
	return b.ud
}

// Invalidate ends the callback: it applies the drops the script marked,
// removes the scopes and resources the drops left empty, and kills the batch
// userdata and every handle. It is idempotent.
func (b *Batch) Invalidate() {
	if !b.live {
		return
	}
	b.flush()
	b.live = false
	b.kill()
	b.traces, b.metrics, b.logs = ptrace.Traces{}, pmetric.Metrics{}, plog.Logs{}
}

// kill makes every handle of the current generation dead.
func (b *Batch) kill() {
	b.nextGen()
	b.atResource, b.atLeaf, b.atPoint = nil, nil, nil
	b.atIndex = [numLeafKinds]*lua.LUserData{}
}

// nextGen starts a generation; 0 is never one (it marks an unpositioned
// handle).
func (b *Batch) nextGen() {
	b.gen++
	if b.gen == 0 {
		b.gen = 1
	}
}

// flush applies the marked drops, if any. Positions change, so the handles
// die; the batch userdata stays live.
func (b *Batch) flush() {
	if b.drops.empty() && !b.removeEmpty {
		return
	}
	switch b.sig {
	case dataplane.Traces:
		b.applyTraceDrops()
	case dataplane.Metrics:
		b.applyMetricDrops()
	case dataplane.Logs:
		b.applyLogDrops()
	}
	b.drops.reset()
	b.removeEmpty = false
	b.kill()
}

// UnwrapTraces returns the traces behind a Lua value, e.g. the argument of
// emit(batch) or a batch a callback returned. ok is false if v is not the
// live batch userdata of a traces callback. Drops marked so far are applied
// first, so the caller sees the batch as the script left it; handles the
// script holds die (it must iterate again to use the batch further).
func UnwrapTraces(v lua.LValue) (ptrace.Traces, bool) {
	b, ok := unwrap(v, dataplane.Traces)
	if !ok {
		return ptrace.Traces{}, false
	}
	return b.traces, true
}

// UnwrapMetrics is UnwrapTraces for metrics.
func UnwrapMetrics(v lua.LValue) (pmetric.Metrics, bool) {
	b, ok := unwrap(v, dataplane.Metrics)
	if !ok {
		return pmetric.Metrics{}, false
	}
	return b.metrics, true
}

// UnwrapLogs is UnwrapTraces for logs.
func UnwrapLogs(v lua.LValue) (plog.Logs, bool) {
	b, ok := unwrap(v, dataplane.Logs)
	if !ok {
		return plog.Logs{}, false
	}
	return b.logs, true
}

func unwrap(v lua.LValue, sig dataplane.Signal) (*Batch, bool) {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return nil, false
	}
	b, ok := ud.Value.(*Batch)
	if !ok || ud != b.ud || !b.live || b.sig != sig {
		return nil, false
	}
	b.flush()
	return b, true
}

// writable raises the read-only error if the batch may not be changed.
func (b *Batch) writable(L *lua.LState) {
	if b.readOnly {
		L.RaiseError("%s", errReadOnly)
	}
}
