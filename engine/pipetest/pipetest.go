// Package pipetest runs pipeline test cases (`flowlua test`): a case feeds
// input batches into one component of a pipeline and checks what reaches
// the pipeline's outputs. It knows nothing of Lua: cases arrive as Case
// values (package luabind/testdsl reads them from *_test.lua files) and the
// pipeline as a loaded script.Script with its registry.
//
// How a case runs (Run):
//
//  1. Isolate: the script is rewritten before the engine sees it
//     (Isolate). Only the target and what it references, transitively,
//     are kept: the components downstream of it (its outputs), and what
//     they need (extensions, file.read, module instances). Whatever sends
//     to the target (receivers, upstream processors) is not kept, so it is
//     never started. Every otelcol.exporter.* block, and every component
//     an expectation names, is replaced by a capture: a component that
//     exports `input` and records what reaches it. No test needs the
//     network. Service blocks are dropped (services run with their
//     defaults, the HTTP service on a free port).
//  2. A feeder component whose output is the target's input (`<target>.input`,
//     which may be a module instance's export) is added, and the
//     rewritten script is applied to a fresh engine.Controller: checked,
//     built and started like any pipeline, Go and Lua components alike.
//  3. Each input batch goes through the feeder, in order, synchronously:
//     an error the target returns is the case's error.
//  4. Health expectations are polled until they hold or a second passes.
//  5. The graph is shut down, in reverse dependency order: the target
//     stops before the captures, so components that batch (batch,
//     tail_sampling, Lua components with timers) flush what they hold on
//     stop. Tests never wait for a batch timeout: time is not frozen, the
//     shutdown is the flush.
//  6. The captures' records are checked against the expectations.
package pipetest

import (
	"regexp"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

// Case is one test case.
type Case struct {
	Name string
	Pos  script.Pos // where the case was declared in its test file
	// Target is the id of the component (or module instance) that gets
	// the input, through its `input` export.
	Target string
	// Input are the batches fed to the target, in order.
	Input []Batch
	// Expect lists what must reach outputs, by the output's component id.
	Expect []Output
	// Error, when set, says that feeding the input must fail with an error
	// matching it; when nil, feeding must succeed.
	Error *Value
	// Health lists the health components must have after the input.
	Health []Health
}

// Batch is one input batch: OTLP JSON of one signal.
type Batch struct {
	Signal dataplane.Signal
	JSON   []byte
	Pos    script.Pos
}

// Output is what must reach one output (a component the case captures).
type Output struct {
	ID  string
	Pos script.Pos
	// Nothing says that no item of any signal may reach it (a drop).
	Nothing bool
	Signals []SignalExpect
}

// SignalExpect is what must reach an output for one signal. Every field
// set is checked; items are spans, log records or metric data points.
type SignalExpect struct {
	Signal dataplane.Signal
	Pos    script.Pos
	// Count, when not negative, is the number of items.
	Count int
	// Equals is OTLP JSON that everything received, batches merged, must
	// equal (attributes compared in any order).
	Equals []byte
	// Contains is OTLP JSON whose every item (with its resource and scope)
	// must be among those received: a subset.
	Contains []byte
	// Attributes must hold for every item received (and at least one must
	// be received); Resource for the resource of every item.
	Attributes map[string]Value
	Resource   map[string]Value
	// Items are matched against the items received, one for one, in order
	// unless AnyOrder.
	Items    []Item
	AnyOrder bool
}

// Item describes one item: its fields (name, body, severity_text, value,
// kind, metric), attributes and resource attributes.
type Item struct {
	Pos        script.Pos
	Fields     map[string]Value
	Attributes map[string]Value
	Resource   map[string]Value
}

// Health is the health a component must have.
type Health struct {
	ID      string
	State   string // "healthy" or "unhealthy"
	Message *Value // nil: any message
	Pos     script.Pos
}

// Value is an expected value: equal to a literal, absent, or matching a
// pattern.
type Value struct {
	Equal   any // string, float64 or bool
	Absent  bool
	Pattern *regexp.Regexp
}

// Result is the outcome of a case.
type Result struct {
	Case     *Case
	Duration time.Duration
	// Failures are what did not hold, each a readable message, possibly
	// several lines (a diff); empty when the case passed.
	Failures []Failure
}

// Failure is one expectation that did not hold.
type Failure struct {
	Pos     script.Pos // the expectation's position, else the case's
	Message string
}

// Passed reports whether the case passed.
func (r Result) Passed() bool { return len(r.Failures) == 0 }
