package script

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Diagnostic is one user-facing problem with a script, at a position.
type Diagnostic struct {
	Pos     Pos
	Message string
}

// Error returns "file:line: message".
func (d Diagnostic) Error() string {
	if d.Pos.File == "" {
		return d.Message
	}
	return d.Pos.String() + ": " + d.Message
}

// Errorf builds a Diagnostic.
func Errorf(pos Pos, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)}
}

// Diagnostics is a list of problems, reported all at once.
type Diagnostics []Diagnostic

// Error joins the diagnostics one per line.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the diagnostics by file, then line, keeping the order of
// diagnostics on one line.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Pos.File != ds[j].Pos.File {
			return ds[i].Pos.File < ds[j].Pos.File
		}
		return ds[i].Pos.Line < ds[j].Pos.Line
	})
}

// Err returns nil for an empty list and the list otherwise.
func (ds Diagnostics) Err() error {
	if len(ds) == 0 {
		return nil
	}
	return ds
}

// AsDiagnostics unwraps err into Diagnostics: a Diagnostics or Diagnostic
// in its chain is returned as is, any other error becomes one Diagnostic
// without a position.
func AsDiagnostics(err error) Diagnostics {
	if err == nil {
		return nil
	}
	var ds Diagnostics
	if errors.As(err, &ds) {
		return ds
	}
	var d Diagnostic
	if errors.As(err, &d) {
		return Diagnostics{d}
	}
	return Diagnostics{{Message: err.Error()}}
}

// Merge joins lists of diagnostics into one, dropping repeats (the same
// text), sorted by position. It modifies none of the lists.
func Merge(lists ...Diagnostics) Diagnostics {
	seen := map[string]bool{}
	var out Diagnostics
	for _, ds := range lists {
		for _, d := range ds {
			if key := d.Error(); !seen[key] {
				seen[key] = true
				out = append(out, d)
			}
		}
	}
	out.Sort()
	return out
}
