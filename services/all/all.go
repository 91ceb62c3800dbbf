// Package all registers every built-in service.
package all

import (
	_ "github.com/flowlua/flowlua/services/http" // http
)
