// Package all registers every built-in component.
package all

import (
	_ "github.com/flowlua/flowlua/stdlib/file"    // file.*
	_ "github.com/flowlua/flowlua/stdlib/otelcol" // otelcol.*
)
