// Package all registers every built-in component.
package all

import (
	_ "github.com/flowlua/flowlua/stdlib/file"    // file.*
	_ "github.com/flowlua/flowlua/stdlib/lua"     // lua.* (components written in Lua)
	_ "github.com/flowlua/flowlua/stdlib/otelcol" // otelcol.*
)
