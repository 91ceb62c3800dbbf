package decode

import (
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

// integral returns v as a float64 holding an integer, or records an error.
func (d *decoder) integral(v any, ti *typeInfo) (float64, bool) {
	f, ok := v.(float64)
	if !ok {
		d.typeError(ti, v)
		return 0, false
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		d.fail("expected integer, got %s", formatNumber(f))
		return 0, false
	}
	return f, true
}

// int decodes an integral number into a signed integer of any size.
func (d *decoder) int(v any, dst reflect.Value, ti *typeInfo) {
	f, ok := d.integral(v, ti)
	if !ok {
		return
	}
	bits := ti.t.Bits()
	limit := math.Ldexp(1, bits-1) // 2^(bits-1), exactly representable
	if f < -limit || f >= limit {
		d.fail("%s is out of range (%d to %d)", formatNumber(f), int64(-1)<<(bits-1), uint64(1)<<(bits-1)-1)
		return
	}
	dst.SetInt(int64(f))
}

// uint decodes an integral number into an unsigned integer of any size.
func (d *decoder) uint(v any, dst reflect.Value, ti *typeInfo) {
	f, ok := d.integral(v, ti)
	if !ok {
		return
	}
	bits := ti.t.Bits()
	if f < 0 || f >= math.Ldexp(1, bits) {
		d.fail("%s is out of range (0 to %d)", formatNumber(f), uint64(math.MaxUint64)>>(64-bits))
		return
	}
	dst.SetUint(uint64(f))
}

// float decodes a number into a float32 or float64.
func (d *decoder) float(v any, dst reflect.Value, ti *typeInfo) {
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
