package luacomponent

import (
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// ErrorMessage returns the message of an error from PCall without its
// stack traceback.
func ErrorMessage(err error) string {
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		return apiErr.Object.String()
	}
	msg := err.Error()
	if i := strings.Index(msg, "\nstack traceback:"); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

// luaTraceback returns the message of an error from PCall with its Lua
// stack traceback.
func luaTraceback(err error) string {
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		msg := apiErr.Object.String()
		if apiErr.StackTrace != "" {
			msg += "\n" + apiErr.StackTrace
		}
		return msg
	}
	return err.Error()
}

// At turns a Lua error message of the chunk into a Diagnostic: at the
// "file:line:" it starts with, else at the chunk's first line.
func (ch *Chunk) At(msg string) script.Diagnostic {
	if rest, ok := strings.CutPrefix(msg, ch.file+":"); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if line, err := strconv.Atoi(rest[:i]); err == nil {
				return script.Errorf(script.Pos{File: ch.file, Line: line}, "%s", strings.TrimSpace(rest[i+1:]))
			}
		}
	}
	return script.Errorf(script.Pos{File: ch.file, Line: 1}, "%s", msg)
}
