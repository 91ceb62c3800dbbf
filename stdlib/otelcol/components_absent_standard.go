//go:build flowlua_minimal

package otelcol

func init() { registerAbsent("flowlua_minimal", leftOutByMinimal...) }
