package engine

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// Lookup returns the current value of a reference.
type Lookup func(ref *script.Ref) (any, error)

var (
	stringType = reflect.TypeFor[string]()
	numberType = reflect.TypeFor[float64]()
)

// Secret is what a Lookup returns for the export of a component whose
// value must stay hidden (component.SecretComponent: file.read with
// is_secret = true). Evaluate uses Value as the export's value and hands
// Keep every string of it and every string derived from it: the result of
// a concatenation, an arithmetic expression or a compute call with a
// secret operand, so that whoever keeps them can redact them from
// messages.
type Secret struct {
	Value any
	Keep  func(s string)
}

// Evaluate returns v with every reference and expression replaced by its
// value. Maps and lists are copied, never changed in place. A
// *script.Placeholder that reaches an expression makes the expression's
// result a placeholder of the expression's type, which is how a script is
// type-checked before anything runs. A Secret from lookup is unwrapped
// (see Secret).
func Evaluate(v any, lookup Lookup) (any, error) {
	out, _, err := evaluate(v, lookup)
	return out, err
}

// evaluate is Evaluate that also returns how to keep the strings derived
// from a secret, nil when v holds none.
func evaluate(v any, lookup Lookup) (any, func(string), error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		var keep func(string)
		for k, e := range v {
			ev, kept, err := evaluate(e, lookup)
			if err != nil {
				return nil, nil, err
			}
			out[k] = ev
			keep = firstKeep(keep, kept)
		}
		return out, keep, nil
	case []any:
		out := make([]any, len(v))
		var keep func(string)
		for i, e := range v {
			ev, kept, err := evaluate(e, lookup)
			if err != nil {
				return nil, nil, err
			}
			out[i] = ev
			keep = firstKeep(keep, kept)
		}
		return out, keep, nil
	case *script.Ref:
		out, err := lookup(v)
		if err != nil {
			return nil, nil, err
		}
		if s, ok := out.(Secret); ok {
			keepStrings(s.Value, s.Keep)
			return s.Value, s.Keep, nil
		}
		return out, nil, nil
	case *script.Expr:
		return evalExpr(v, lookup)
	default:
		return v, nil, nil
	}
}

// firstKeep returns the first non-nil keep function.
func firstKeep(a, b func(string)) func(string) {
	if a != nil {
		return a
	}
	return b
}

// keepStrings hands keep every string v holds: itself, the items of a
// list or table, a number as .. would write it.
func keepStrings(v any, keep func(string)) {
	if keep == nil {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			keepStrings(e, keep)
		}
	case []any:
		for _, e := range v {
			keepStrings(e, keep)
		}
	case float64:
		s, _ := concatString(v)
		keep(s)
		if t := strconv.FormatFloat(v, 'g', -1, 64); t != s {
			keep(t)
		}
	default:
		if s, ok := concatString(v); ok {
			keep(s)
		}
	}
}

// ExprError is an error evaluating an expression at a script position.
type ExprError struct {
	Pos script.Pos
	Err error
}

func (e *ExprError) Error() string { return e.Pos.String() + ": " + e.Err.Error() }
func (e *ExprError) Unwrap() error { return e.Err }

// evalExpr evaluates an expression. A result derived from a secret
// operand is a secret too: its strings are kept, and the keep function is
// returned for the expressions it is an operand of.
func evalExpr(x *script.Expr, lookup Lookup) (any, func(string), error) {
	if x.Op == "shard" {
		v, err := evalShard(x, lookup) // placement.go
		return v, nil, err
	}
	args := make([]any, len(x.Args))
	placeholder := false
	var keep func(string)
	for i, a := range x.Args {
		v, kept, err := evaluate(a, lookup)
		if err != nil {
			return nil, nil, err
		}
		keep = firstKeep(keep, kept)
		if _, ok := v.(*script.Placeholder); ok {
			placeholder = true
		}
		args[i] = v
	}
	v, err := applyOp(x, args, placeholder)
	if err != nil {
		return nil, nil, err
	}
	keepStrings(v, keep)
	return v, keep, nil
}

// applyOp applies an expression's operator to its evaluated operands.
func applyOp(x *script.Expr, args []any, placeholder bool) (any, error) {
	fail := func(format string, a ...any) (any, error) {
		return nil, &ExprError{Pos: x.Pos, Err: fmt.Errorf(format, a...)}
	}
	switch x.Op {
	case "compute":
		if placeholder {
			return &script.Placeholder{From: "compute(...)"}, nil
		}
		if x.Func == nil {
			return fail("compute without a function")
		}
		out, err := x.Func.Call(args)
		if err != nil {
			return fail("compute: %w", err)
		}
		return out, nil
	case "..":
		if placeholder {
			for _, a := range args {
				if err := checkPlaceholder(a, "concatenate", stringType, numberType); err != nil {
					return fail("%w", err)
				}
			}
			return &script.Placeholder{Type: stringType, From: "an expression with .."}, nil
		}
		var s string
		for _, a := range args {
			part, ok := concatString(a)
			if !ok {
				return fail("attempt to concatenate a %s value", typeName(a))
			}
			s += part
		}
		return s, nil
	}
	if placeholder {
		for _, a := range args {
			if err := checkPlaceholder(a, "perform arithmetic on", numberType, stringType); err != nil {
				return fail("%w", err)
			}
		}
		return &script.Placeholder{Type: numberType, From: "an arithmetic expression"}, nil
	}
	nums := make([]float64, len(args))
	for i, a := range args {
		n, ok := toNumber(a)
		if !ok {
			return fail("attempt to perform arithmetic on a %s value", typeName(a))
		}
		nums[i] = n
	}
	switch {
	case x.Op == "neg" && len(nums) == 1:
		return -nums[0], nil
	case len(nums) != 2:
		return fail("operator %s takes two operands, got %d", x.Op, len(nums))
	}
	a, b := nums[0], nums[1]
	switch x.Op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		return a / b, nil
	case "%":
		return a - math.Floor(a/b)*b, nil // Lua's modulo
	case "^":
		return math.Pow(a, b), nil
	}
	return fail("unknown operator %q", x.Op)
}

// checkPlaceholder reports a placeholder (or literal) operand whose type
// cannot take part in an operation.
func checkPlaceholder(v any, op string, allowed ...reflect.Type) error {
	p, ok := v.(*script.Placeholder)
	if !ok {
		if _, isStr := concatString(v); isStr {
			return nil
		}
		return fmt.Errorf("attempt to %s a %s value", op, typeName(v))
	}
	if p.Type == nil {
		return nil
	}
	for _, t := range allowed {
		if p.Type.ConvertibleTo(t) {
			return nil
		}
	}
	return fmt.Errorf("attempt to %s a %s value (from %s)", op, p.Type, p.From)
}

// concatString formats strings and numbers the way Lua's .. does.
func concatString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatInt(int64(v), 10), true
		}
		return strconv.FormatFloat(v, 'g', 14, 64), true
	default:
		rv := reflect.ValueOf(v)
		if rv.IsValid() && rv.Kind() == reflect.String {
			return rv.String(), true
		}
		return "", false
	}
}

func toNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case string:
		n, err := strconv.ParseFloat(v, 64)
		return n, err == nil
	default:
		return 0, false
	}
}

// typeName names a value's type in script terms: Lua calls lists tables.
func typeName(v any) string {
	if _, ok := v.([]any); ok {
		return "table"
	}
	return decode.ValueTypeName(v)
}
