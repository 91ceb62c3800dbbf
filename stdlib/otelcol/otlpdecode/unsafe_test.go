package otlpdecode

import "unsafe"

func unsafeData(s string) *byte { return unsafe.StringData(s) }
