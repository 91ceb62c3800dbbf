package convert

import (
	"strconv"
	"strings"
)

// The label rule. A collector id is `type` or `type/name`; the flowlua
// component gets a label from the name:
//
//  1. No name: "default" (`otlp` → otelcol.receiver.otlp "default").
//  2. Each character that is not a letter, a digit or `_` becomes `_`,
//     and a name starting with a digit gets a leading `_`
//     (`otlp/2` → "_2", `otlp/eu-west.1` → "eu_west_1").
//  3. A processor listed in several pipelines is one instance per
//     pipeline in the collector, so one component per pipeline here: its
//     label is the pipeline's label (`batch` in `traces/2` → "traces_2"),
//     after the processor's own label when it has a name (`batch/fast` in
//     `traces` → "fast_traces").
//  4. Labels that would collide within one component name (`otlp` and
//     `otlp/default`, `a-b` and `a_b`, `otlp` and its alias `otlp_grpc`)
//     get `_2`, `_3`, ... in the order the config declares them.

// labelOf turns the name part of a collector id into a label (rules 1-2).
func labelOf(name string) string {
	if name == "" {
		return "default"
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	if luaKeywords[s] {
		s += "_"
	}
	return s
}

// cloneLabel is the label of a processor's instance in one pipeline (rule 3).
func cloneLabel(name, pipeline string) string {
	if name == "" {
		return labelOf(pipeline)
	}
	return labelOf(name) + "_" + labelOf(pipeline)
}

// Labels hands out labels unique within each component name (rule 4); the
// converters of other formats (promconfig, alloyconfig) take theirs here.
type Labels map[string]map[string]bool

// Take returns want, or want_2, want_3, ... when want is taken for name.
func (l Labels) Take(name, want string) string {
	used := l[name]
	if used == nil {
		used = map[string]bool{}
		l[name] = used
	}
	got := want
	for n := 2; used[got]; n++ {
		got = want + "_" + strconv.Itoa(n)
	}
	used[got] = true
	return got
}
