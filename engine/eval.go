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

// Evaluate returns v with every reference and expression replaced by its
// value. Maps and lists are copied, never changed in place. A
// *script.Placeholder that reaches an expression makes the expression's
// result a placeholder of the expression's type, which is how a script is
// type-checked before anything runs.
func Evaluate(v any, lookup Lookup) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			ev, err := Evaluate(e, lookup)
			if err != nil {
				return nil, err
			}
			out[k] = ev
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			ev, err := Evaluate(e, lookup)
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	case *script.Ref:
		return lookup(v)
	case *script.Expr:
		return evalExpr(v, lookup)
	default:
		return v, nil
	}
}

// ExprError is an error evaluating an expression at a script position.
type ExprError struct {
	Pos script.Pos
	Err error
}

func (e *ExprError) Error() string { return e.Pos.String() + ": " + e.Err.Error() }
func (e *ExprError) Unwrap() error { return e.Err }

func evalExpr(x *script.Expr, lookup Lookup) (any, error) {
	if x.Op == "shard" {
		return evalShard(x, lookup) // placement.go
	}
	args := make([]any, len(x.Args))
	placeholder := false
	for i, a := range x.Args {
		v, err := Evaluate(a, lookup)
		if err != nil {
			return nil, err
		}
		if _, ok := v.(*script.Placeholder); ok {
			placeholder = true
		}
		args[i] = v
	}
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
