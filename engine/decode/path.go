package decode

import (
	"cmp"
	"strconv"
	"strings"
)

// segment is one step of a field path: a field name or map key, or a
// list index.
type segment struct {
	key   string // a field name or map key
	index int    // a 1-based list index, or 0 for a key
}

// formatPath formats a path as JoinPath does: "tls.insecure",
// "traces[2]".
func formatPath(segs []segment) string {
	if len(segs) == 0 {
		return ""
	}
	b := make([]byte, 0, 64)
	for _, s := range segs {
		if s.index > 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, s.key...)
	}
	return string(b)
}

// joinPaths prefixes sub, a path relative to prefix, with prefix.
func joinPaths(prefix, sub string) string {
	switch {
	case prefix == "":
		return sub
	case sub == "":
		return prefix
	case sub[0] == '[':
		return prefix + sub
	default:
		return prefix + "." + sub
	}
}

// comparePaths orders paths byte by byte, except that list indices
// compare as numbers: "a[2]" comes before "a[10]".
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		if a[0] == '[' && b[0] == '[' {
			na, ra, okA := leadingIndex(a)
			nb, rb, okB := leadingIndex(b)
			if okA && okB {
				if na != nb {
					return cmp.Compare(na, nb)
				}
				a, b = ra, rb
				continue
			}
		}
		if a[0] != b[0] {
			return cmp.Compare(int(a[0]), int(b[0]))
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// leadingIndex parses a leading "[n]" of s.
func leadingIndex(s string) (n int, rest string, ok bool) {
	end := strings.IndexByte(s, ']')
	if end < 2 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[1:end])
	if err != nil {
		return 0, s, false
	}
	return n, s[end+1:], true
}
