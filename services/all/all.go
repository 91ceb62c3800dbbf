// Package all registers every built-in service.
package all

import (
	_ "github.com/flowlua/flowlua/services/cluster"       // cluster
	_ "github.com/flowlua/flowlua/services/http"          // http
	_ "github.com/flowlua/flowlua/services/livedebugging" // livedebugging
	_ "github.com/flowlua/flowlua/services/opamp"         // opamp
)
