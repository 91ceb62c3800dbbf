package decode

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/script"
)

// string decodes a string, checking it against enum when set.
func (d *decoder) string(v any, dst reflect.Value, ti *typeInfo, enum []string) {
	s, ok := v.(string)
	if !ok {
		d.typeError(ti, v)
		return
	}
	if enum != nil && !slices.Contains(enum, s) {
		d.fail("expected %s, got %q%s", oneOf(enum), s, script.DidYouMean(s, enum))
		return
	}
	dst.SetString(s)
}

// oneOf formats an enum: `one of "a", "b"`.
func oneOf(enum []string) string {
	var b strings.Builder
	b.WriteString("one of ")
	for i, e := range enum {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(e))
	}
	return b.String()
}

// The integer decoders accept only a number that is integral and in the
// range of the Go type: anything else (1.5, 1e+300, NaN) is an error that
// names the range, never a truncated or wrapped value.

// int decodes an integral number into a signed integer of any size.
func (d *decoder) int(v any, dst reflect.Value, ti *typeInfo) {
	bits := ti.t.Bits()
	switch x := v.(type) {
	case int64, uint64: // a Go integer beyond 2^53 (normalize)
		lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
		if i, ok := x.(int64); ok && i >= lo && i <= hi {
			dst.SetInt(i)
			return
		}
		if u, ok := x.(uint64); ok && u <= uint64(hi) {
			dst.SetInt(int64(u))
			return
		}
		d.fail("expected integer in [%d, %d], got %v", lo, hi, x)
		return
	}
	f, ok := v.(float64)
	if !ok {
		d.typeError(ti, v)
		return
	}
	if err := CheckInteger(f, ti.t); err != nil {
		d.fail("%v", err)
		return
	}
	dst.SetInt(int64(f))
}

// CheckInteger returns nil when f is an integral number in the range of
// the integer type t, signed or unsigned, and otherwise the error every
// decoder of integers reports: "expected integer in [min, max], got X".
func CheckInteger(f float64, t reflect.Type) error {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if f != math.Trunc(f) || f < 0 || f >= math.Ldexp(1, bits) {
			return fmt.Errorf("expected integer in [0, %d], got %s", uint64(math.MaxUint64)>>(64-bits), formatNumber(f))
		}
		return nil
	}
	limit := math.Ldexp(1, bits-1) // 2^(bits-1), exactly representable
	// NaN fails f == Trunc(f); ±Inf fail the range.
	if f != math.Trunc(f) || f < -limit || f >= limit {
		return fmt.Errorf("expected integer in [%d, %d], got %s", int64(-1)<<(bits-1), uint64(1)<<(bits-1)-1, formatNumber(f))
	}
	return nil
}

// uint decodes an integral number into an unsigned integer of any size.
func (d *decoder) uint(v any, dst reflect.Value, ti *typeInfo) {
	bits := ti.t.Bits()
	switch x := v.(type) {
	case int64, uint64: // a Go integer beyond 2^53 (normalize)
		hi := uint64(math.MaxUint64) >> (64 - bits)
		if i, ok := x.(int64); ok && i >= 0 && uint64(i) <= hi {
			dst.SetUint(uint64(i))
			return
		}
		if u, ok := x.(uint64); ok && u <= hi {
			dst.SetUint(u)
			return
		}
		d.fail("expected integer in [0, %d], got %v", hi, x)
		return
	}
	f, ok := v.(float64)
	if !ok {
		d.typeError(ti, v)
		return
	}
	if err := CheckInteger(f, ti.t); err != nil {
		d.fail("%v", err)
		return
	}
	dst.SetUint(uint64(f))
}

// float decodes a number into a float32 or float64.
func (d *decoder) float(v any, dst reflect.Value, ti *typeInfo) {
	switch x := v.(type) {
	case int64: // a Go integer beyond 2^53 (normalize): the nearest float
		v = float64(x)
	case uint64:
		v = float64(x)
	}
	f, ok := v.(float64)
	if !ok {
		d.typeError(ti, v)
		return
	}
	if dst.OverflowFloat(f) {
		d.fail("%s is out of range for a %d-bit number", formatNumber(f), ti.t.Bits())
		return
	}
	dst.SetFloat(f)
}

// durationHint ends the message of an invalid duration.
const durationHint = ` (use a number with a unit: "200ms", "1m30s")`

// duration decodes a string such as "200ms" into a time.Duration. Numbers
// are refused: their unit would be a guess.
func (d *decoder) duration(v any, dst reflect.Value, ti *typeInfo) {
	s, ok := v.(string)
	if !ok {
		d.typeError(ti, v)
		return
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		d.fail("invalid duration %q%s%s", s, durationDetail(err), durationHint)
		return
	}
	dst.SetInt(int64(dur))
}

// durationDetail extracts what time.ParseDuration found wrong, as
// ": missing unit", or "" when it only says "invalid duration".
func durationDetail(err error) string {
	msg := strings.TrimPrefix(err.Error(), "time: ")
	if i := strings.Index(msg, " in duration "); i >= 0 {
		msg = msg[:i]
	}
	if strings.HasPrefix(msg, "invalid duration") {
		return ""
	}
	return ": " + msg
}

// formatNumber formats a number as Lua prints it: 1.5, 1e+20, NaN.
func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}
