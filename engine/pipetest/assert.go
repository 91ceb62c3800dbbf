package pipetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// unmarshal decodes OTLP JSON of a signal into its pdata batch.
func unmarshal(s dataplane.Signal, b []byte) (any, error) {
	switch s {
	case dataplane.Traces:
		return (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	case dataplane.Metrics:
		return (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(b)
	case dataplane.Logs:
		return (&plog.JSONUnmarshaler{}).UnmarshalLogs(b)
	}
	return nil, fmt.Errorf("unknown signal %v", s)
}

// received is what a capture recorded of one signal: the batches merged
// into one, and its items.
type received struct {
	json  []byte // OTLP JSON of the merged batches, normalized
	items []item
}

// item is one span, log record or metric data point, flattened.
type item struct {
	fields, attrs, resource map[string]any
}

func (c *capture) received(s dataplane.Signal) received {
	var r received
	if c == nil {
		c = &capture{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var raw []byte
	switch s {
	case dataplane.Traces:
		all := ptrace.NewTraces()
		for _, td := range c.traces {
			td.ResourceSpans().MoveAndAppendTo(all.ResourceSpans())
		}
		c.traces = []ptrace.Traces{all}
		raw, _ = (&ptrace.JSONMarshaler{}).MarshalTraces(all)
		r.items = traceItems(all)
	case dataplane.Metrics:
		all := pmetric.NewMetrics()
		for _, md := range c.metrics {
			md.ResourceMetrics().MoveAndAppendTo(all.ResourceMetrics())
		}
		c.metrics = []pmetric.Metrics{all}
		raw, _ = (&pmetric.JSONMarshaler{}).MarshalMetrics(all)
		r.items = metricItems(all)
	case dataplane.Logs:
		all := plog.NewLogs()
		for _, ld := range c.logs {
			ld.ResourceLogs().MoveAndAppendTo(all.ResourceLogs())
		}
		c.logs = []plog.Logs{all}
		raw, _ = (&plog.JSONMarshaler{}).MarshalLogs(all)
		r.items = logItems(all)
	}
	r.json, _ = normalize(raw)
	return r
}

func traceItems(td ptrace.Traces) []item {
	var out []item
	for _, rs := range td.ResourceSpans().All() {
		res := rs.Resource().Attributes().AsRaw()
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				out = append(out, item{
					fields: map[string]any{
						"name":     sp.Name(),
						"kind":     sp.Kind().String(),
						"status":   sp.Status().Code().String(),
						"trace_id": sp.TraceID().String(),
						"span_id":  sp.SpanID().String(),
						"scope":    ss.Scope().Name(),
					},
					attrs:    sp.Attributes().AsRaw(),
					resource: res,
				})
			}
		}
	}
	return out
}

func logItems(ld plog.Logs) []item {
	var out []item
	for _, rl := range ld.ResourceLogs().All() {
		res := rl.Resource().Attributes().AsRaw()
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				out = append(out, item{
					fields: map[string]any{
						"body":            lr.Body().AsString(),
						"severity_text":   lr.SeverityText(),
						"severity_number": float64(lr.SeverityNumber()),
						"scope":           sl.Scope().Name(),
					},
					attrs:    lr.Attributes().AsRaw(),
					resource: res,
				})
			}
		}
	}
	return out
}

func metricItems(md pmetric.Metrics) []item {
	var out []item
	for _, rm := range md.ResourceMetrics().All() {
		res := rm.Resource().Attributes().AsRaw()
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				add := func(attrs pcommon.Map, value any) {
					out = append(out, item{
						fields: map[string]any{
							"name":  m.Name(),
							"type":  m.Type().String(),
							"value": value,
							"scope": sm.Scope().Name(),
						},
						attrs:    attrs.AsRaw(),
						resource: res,
					})
				}
				number := func(dp pmetric.NumberDataPoint) any {
					if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
						return float64(dp.IntValue())
					}
					return dp.DoubleValue()
				}
				switch m.Type() {
				case pmetric.MetricTypeGauge:
					for _, dp := range m.Gauge().DataPoints().All() {
						add(dp.Attributes(), number(dp))
					}
				case pmetric.MetricTypeSum:
					for _, dp := range m.Sum().DataPoints().All() {
						add(dp.Attributes(), number(dp))
					}
				case pmetric.MetricTypeHistogram:
					for _, dp := range m.Histogram().DataPoints().All() {
						add(dp.Attributes(), dp.Sum())
					}
				case pmetric.MetricTypeExponentialHistogram:
					for _, dp := range m.ExponentialHistogram().DataPoints().All() {
						add(dp.Attributes(), dp.Sum())
					}
				case pmetric.MetricTypeSummary:
					for _, dp := range m.Summary().DataPoints().All() {
						add(dp.Attributes(), dp.Sum())
					}
				}
			}
		}
	}
	return out
}

// checkOutput checks what reached one output.
func checkOutput(o Output, c *capture) []Failure {
	var failures []Failure
	if o.Nothing {
		for _, s := range dataplane.AllSignals {
			if r := c.received(s); len(r.items) > 0 {
				failures = append(failures, fail(o.Pos, "%s: want nothing, got %d %s:\n%s", o.ID, len(r.items), unitOf(s, len(r.items)), excerpt(r.json)))
			}
		}
	}
	for _, se := range o.Signals {
		failures = append(failures, checkSignal(o.ID, se, c.received(se.Signal))...)
	}
	return failures
}

func unitOf(s dataplane.Signal, n int) string {
	unit := map[dataplane.Signal]string{dataplane.Traces: "span", dataplane.Metrics: "data point", dataplane.Logs: "log record"}[s]
	if n != 1 {
		unit += "s"
	}
	return unit
}

func checkSignal(id string, se SignalExpect, r received) []Failure {
	var failures []Failure
	where := id + " " + se.Signal.String()
	f := func(format string, args ...any) {
		failures = append(failures, fail(se.Pos, where+": "+format, args...))
	}
	if se.Count >= 0 && len(r.items) != se.Count {
		f("want %d %s, got %d:\n%s", se.Count, unitOf(se.Signal, se.Count), len(r.items), excerpt(r.json))
	}
	if se.Equals != nil {
		want, err := normalizeAs(se.Signal, se.Equals)
		if err != nil {
			f("equals: %v", err)
		} else if !bytes.Equal(want, r.json) {
			f("what arrived differs from what is expected (- want, + got):\n%s", unified(want, r.json))
		}
	}
	if se.Contains != nil {
		want, err := normalizeAs(se.Signal, se.Contains)
		if err != nil {
			f("contains: %v", err)
		} else if missing := missingItems(se.Signal, want, r.json); missing != "" {
			f("an expected item did not arrive:\n%s\ngot:\n%s", missing, excerpt(r.json))
		}
	}
	if len(se.Attributes) > 0 || len(se.Resource) > 0 {
		if len(r.items) == 0 {
			f("want items with attributes, got none")
		}
		for i, it := range r.items {
			if msg := matchMap("attribute", se.Attributes, it.attrs); msg != "" {
				f("item %d: %s\n%s", i+1, msg, describeItem(it))
				break
			}
			if msg := matchMap("resource attribute", se.Resource, it.resource); msg != "" {
				f("item %d: %s\n%s", i+1, msg, describeItem(it))
				break
			}
		}
	}
	if se.Items != nil {
		failures = append(failures, matchItems(where, se, r.items)...)
	}
	return failures
}

// matchItems matches the expected items one for one with those received.
func matchItems(where string, se SignalExpect, got []item) []Failure {
	var failures []Failure
	if len(got) != len(se.Items) {
		failures = append(failures, fail(se.Pos, "%s: want %d items, got %d", where, len(se.Items), len(got)))
	}
	used := make([]bool, len(got))
	for i, want := range se.Items {
		if se.AnyOrder {
			found := false
			for j, it := range got {
				if !used[j] && matchItem(want, it) == "" {
					used[j], found = true, true
					break
				}
			}
			if !found {
				failures = append(failures, fail(want.Pos, "%s: no item received matches item %d (%s)", where, i+1, describeWant(want)))
			}
			continue
		}
		if i >= len(got) {
			failures = append(failures, fail(want.Pos, "%s: item %d did not arrive (%s)", where, i+1, describeWant(want)))
			continue
		}
		if msg := matchItem(want, got[i]); msg != "" {
			failures = append(failures, fail(want.Pos, "%s: item %d: %s\n%s", where, i+1, msg, describeItem(got[i])))
		}
	}
	return failures
}

func matchItem(want Item, it item) string {
	if msg := matchMap("field", want.Fields, it.fields); msg != "" {
		return msg
	}
	if msg := matchMap("attribute", want.Attributes, it.attrs); msg != "" {
		return msg
	}
	return matchMap("resource attribute", want.Resource, it.resource)
}

// matchMap checks each expected key of want against got, in sorted order.
func matchMap(what string, want map[string]Value, got map[string]any) string {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w := want[k]
		v, ok := got[k]
		switch {
		case w.Absent && ok:
			return fmt.Sprintf("%s %s: want absent, got %s", what, k, show(v))
		case w.Absent:
		case !ok:
			return fmt.Sprintf("%s %s: absent, want one %s", what, k, w.describe())
		case !w.matchesValue(v):
			return fmt.Sprintf("%s %s: got %s, want one %s", what, k, show(v), w.describe())
		}
	}
	return ""
}

func (v *Value) matches(s string) bool { return v.matchesValue(s) }

func (v *Value) matchesValue(got any) bool {
	switch {
	case v.Absent:
		return got == nil
	case v.Pattern != nil:
		return v.Pattern.MatchString(plain(got))
	}
	switch w := v.Equal.(type) {
	case float64:
		switch g := got.(type) {
		case int64:
			return float64(g) == w
		case float64:
			return g == w || math.IsNaN(g) && math.IsNaN(w)
		}
		return false
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case string:
		g, ok := got.(string)
		return ok && g == w
	}
	return false
}

func (v *Value) describe() string {
	switch {
	case v.Absent:
		return "absent"
	case v.Pattern != nil:
		return "matching " + strconv.Quote(v.Pattern.String())
	}
	return "equal to " + show(v.Equal)
}

// plain writes a value for pattern matching: strings as they are.
func plain(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func describeItem(it item) string {
	b, _ := json.MarshalIndent(map[string]any{"fields": it.fields, "attributes": it.attrs, "resource": it.resource}, "  ", "  ")
	return "  got: " + string(b)
}

func describeWant(it Item) string {
	var parts []string
	for _, m := range []struct {
		what string
		vs   map[string]Value
	}{{"", it.Fields}, {"attribute ", it.Attributes}, {"resource ", it.Resource}} {
		keys := make([]string, 0, len(m.vs))
		for k := range m.vs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v := m.vs[k]
			parts = append(parts, m.what+k+" "+v.describe())
		}
	}
	return strings.Join(parts, ", ")
}

// maxExcerpt bounds the lines of JSON a failure shows.
const maxExcerpt = 60

func excerpt(b []byte) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > maxExcerpt {
		n := len(lines) - maxExcerpt
		lines = append(lines[:maxExcerpt], fmt.Sprintf("... (%d more lines)", n))
	}
	return "  " + strings.Join(lines, "\n  ")
}

// normalizeAs decodes OTLP JSON of a signal (checking it) and writes it
// normalized.
func normalizeAs(s dataplane.Signal, b []byte) ([]byte, error) {
	v, err := unmarshal(s, b)
	if err != nil {
		return nil, fmt.Errorf("invalid OTLP JSON: %w", err)
	}
	var raw []byte
	switch v := v.(type) {
	case ptrace.Traces:
		raw, err = (&ptrace.JSONMarshaler{}).MarshalTraces(v)
	case pmetric.Metrics:
		raw, err = (&pmetric.JSONMarshaler{}).MarshalMetrics(v)
	case plog.Logs:
		raw, err = (&plog.JSONMarshaler{}).MarshalLogs(v)
	}
	if err != nil {
		return nil, err
	}
	return normalize(raw)
}

// normalize indents JSON with sorted object keys, and sorts lists of
// attributes ({"key": ..., "value": ...}) by key, so that documents that
// differ only in attribute order compare equal.
func normalize(b []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	sortAttrs(v)
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func sortAttrs(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			sortAttrs(e)
		}
	case []any:
		for _, e := range v {
			sortAttrs(e)
		}
		keyOf := func(e any) (string, bool) {
			m, ok := e.(map[string]any)
			if !ok {
				return "", false
			}
			k, ok := m["key"].(string)
			return k, ok
		}
		for _, e := range v {
			if _, ok := keyOf(e); !ok {
				return
			}
		}
		slices.SortStableFunc(v, func(a, b any) int {
			ka, _ := keyOf(a)
			kb, _ := keyOf(b)
			return strings.Compare(ka, kb)
		})
	}
}

// missingItems returns the first item of want (normalized OTLP JSON) not
// contained in got, as JSON, or "" when every one is. An item is a span,
// log record or metric with its resource and scope; a wanted item is
// contained when each of its fields is in the received one (lists:
// each wanted element contained in a distinct received element).
func missingItems(s dataplane.Signal, want, got []byte) string {
	var w, g any
	_ = json.Unmarshal(want, &w)
	_ = json.Unmarshal(got, &g)
	gotItems := splitItems(s, g)
	for _, wi := range splitItems(s, w) {
		found := false
		for _, gi := range gotItems {
			if subset(wi, gi) {
				found = true
				break
			}
		}
		if !found {
			b, _ := json.MarshalIndent(wi, "  ", "  ")
			return "  " + string(b)
		}
	}
	return ""
}

// itemPath names the nesting of each signal's OTLP JSON.
var itemPath = map[dataplane.Signal][3]string{
	dataplane.Traces:  {"resourceSpans", "scopeSpans", "spans"},
	dataplane.Metrics: {"resourceMetrics", "scopeMetrics", "metrics"},
	dataplane.Logs:    {"resourceLogs", "scopeLogs", "logRecords"},
}

// splitItems returns one document per item, with its resource and scope.
func splitItems(s dataplane.Signal, doc any) []map[string]any {
	p := itemPath[s]
	var out []map[string]any
	top, _ := doc.(map[string]any)
	for _, r := range asList(top[p[0]]) {
		rm, _ := r.(map[string]any)
		for _, sc := range asList(rm[p[1]]) {
			sm, _ := sc.(map[string]any)
			for _, it := range asList(sm[p[2]]) {
				out = append(out, map[string]any{"resource": rm["resource"], "scope": sm["scope"], "item": it})
			}
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// subset reports whether want is contained in got.
func subset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if !subset(wv, g[k]) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return len(w) == 0 && got == nil
		}
		used := make([]bool, len(g))
		for _, we := range w {
			found := false
			for j, ge := range g {
				if !used[j] && subset(we, ge) {
					used[j], found = true, true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case nil:
		return true
	}
	return want == got
}

// unified returns the diff of want and got without its header lines.
func unified(want, got []byte) string {
	d := string(diff.Diff("want", want, "got", got))
	if _, rest, ok := strings.Cut(d, "+++ got\n"); ok {
		d = rest
	}
	return strings.TrimRight(d, "\n")
}
