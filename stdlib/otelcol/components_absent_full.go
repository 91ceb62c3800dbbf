//go:build flowlua_minimal || flowlua_lean

package otelcol

func init() { registerAbsent("flowlua_lean or flowlua_minimal", leftOutByLean...) }
