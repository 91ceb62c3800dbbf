package pipetest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

// The names of the runner's own components. They are registered only in
// a case's registry, so that no script can declare them.
const (
	feedName    = "flowlua_test.feed"
	captureName = "flowlua_test.capture"
	feedID      = feedName + ".input"
)

// Isolated is a script rewritten for one case (see the package doc).
type Isolated struct {
	Script *script.Script
	// Captures maps the id of each capture in Script to the id of the
	// block it replaces.
	Captures map[string]string
	// Kept lists the ids of the original blocks kept (captured ones
	// included), sorted.
	Kept []string
}

// Isolate rewrites s for a case whose target is target and whose
// expectations name outputs: it keeps the target and what it references,
// transitively, replaces every otelcol.exporter.* block and every block
// outputs names by a capture, drops services and everything else, and
// adds a feeder sending the signals to `<target>.input`. s is not
// modified.
func Isolate(s *script.Script, target string, outputs []string, signals []dataplane.Signal) (*Isolated, error) {
	byID := map[string]*script.Block{}
	var ids []string
	for _, b := range s.Blocks {
		if b.Kind == script.KindService {
			continue
		}
		byID[b.ID()] = b
		ids = append(ids, b.ID())
	}
	tb, ok := byID[target]
	if !ok {
		return nil, fmt.Errorf("target %q is no component or module instance of the pipeline%s", target, script.DidYouMean(target, ids))
	}
	if tb.Kind == script.KindModule {
		if _, ok := tb.Module.Def.Schema.ExportTypes()["input"]; !ok {
			return nil, fmt.Errorf("target %q is a module instance that exports no input", target)
		}
	}
	captured := map[string]bool{}
	for _, id := range outputs {
		b, ok := byID[id]
		switch {
		case !ok:
			return nil, fmt.Errorf("expected output %q is no component of the pipeline%s", id, script.DidYouMean(id, ids))
		case b.Kind != script.KindComponent:
			return nil, fmt.Errorf("expected output %q is a module instance: name one of its components", id)
		case id == target:
			return nil, fmt.Errorf("expected output %q is the target itself", id)
		}
		captured[id] = true
	}
	for id, b := range byID {
		if b.Kind == script.KindComponent && strings.HasPrefix(b.Name, "otelcol.exporter.") && id != target {
			captured[id] = true
		}
	}

	// Keep the target and what it references; a captured block is a leaf.
	kept := map[string]bool{target: true}
	queue := []string{target}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if captured[id] {
			continue
		}
		for _, r := range byID[id].Refs() {
			if _, ok := byID[r.Component]; ok && !kept[r.Component] {
				kept[r.Component] = true
				queue = append(queue, r.Component)
			}
		}
	}
	for _, id := range outputs {
		if !kept[id] {
			return nil, fmt.Errorf("expected output %q is not downstream of the target %q: nothing the target sends can reach it", id, target)
		}
	}

	// Captures take new ids; references to the blocks they replace are
	// rewritten to them.
	out := &Isolated{Captures: map[string]string{}}
	renamed := map[string]string{}
	var capturedIDs []string
	for id := range captured {
		if kept[id] {
			capturedIDs = append(capturedIDs, id)
		}
	}
	slices.Sort(capturedIDs)
	for i, id := range capturedIDs {
		cid := captureName + ".c" + strconv.Itoa(i+1)
		renamed[id] = cid
		out.Captures[cid] = id
	}
	ns := *s
	ns.Blocks = nil
	for _, b := range s.Blocks {
		if b.Kind == script.KindService || !kept[b.ID()] {
			continue
		}
		id := b.ID()
		if cid, ok := renamed[id]; ok {
			ns.Blocks = append(ns.Blocks, &script.Block{
				Kind:  script.KindComponent,
				Name:  captureName,
				Label: strings.TrimPrefix(cid, captureName+"."),
				Pos:   b.Pos,
				Args:  map[string]any{},
			})
			continue
		}
		nb := *b
		nb.Args, _ = rewriteRefs(b.Args, renamed).(map[string]any)
		if b.Module != nil {
			m := *b.Module
			m.Exports, _ = rewriteRefs(b.Module.Exports, renamed).(map[string]any)
			nb.Module = &m
		}
		ns.Blocks = append(ns.Blocks, &nb)
	}
	pos := script.Pos{File: s.Path}
	output := map[string]any{}
	for _, sig := range signals {
		output[sig.String()] = []any{&script.Ref{Component: target, Export: "input", Pos: pos}}
	}
	ns.Blocks = append(ns.Blocks, &script.Block{
		Kind:  script.KindComponent,
		Name:  feedName,
		Label: "input",
		Pos:   pos,
		Args:  map[string]any{"to": output},
	})
	ns.Warnings = nil
	out.Script = &ns
	for id := range kept {
		out.Kept = append(out.Kept, id)
	}
	slices.Sort(out.Kept)
	return out, nil
}

// rewriteRefs returns a copy of v in which references to the ids renamed
// holds point to their new ids.
func rewriteRefs(v any, renamed map[string]string) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = rewriteRefs(e, renamed)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = rewriteRefs(e, renamed)
		}
		return l
	case *script.Ref:
		if to, ok := renamed[v.Component]; ok {
			r := *v
			r.Component, r.Scope = to, ""
			return &r
		}
		return v
	case *script.Expr:
		e := *v
		e.Args = make([]any, len(v.Args))
		for i, a := range v.Args {
			e.Args[i] = rewriteRefs(a, renamed)
		}
		return &e
	}
	return v
}
