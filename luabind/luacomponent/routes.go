package luacomponent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	lua "github.com/yuin/gopher-lua"

	httpsvc "github.com/flowlua/flowlua/services/http"
)

// maxRequestBody bounds the body of a request handed to a route.
const maxRequestBody = 1 << 20

// serveRoutes registers the component's routes with the http service,
// under the component's prefix (/api/v0/component/{id}/), and returns
// how to remove them.
func (inst *instance) serveRoutes() (remove func()) {
	remove = func() {}
	if len(inst.k.def.routes) == 0 || inst.opts.GetServiceData == nil {
		return remove
	}
	data, err := inst.opts.GetServiceData(httpsvc.ServiceName)
	if err != nil {
		inst.logger.Error("serving routes failed", "err", err)
		return remove
	}
	d, ok := data.(httpsvc.Data)
	if !ok {
		inst.logger.Error("serving routes failed: unexpected http service data", "type", fmt.Sprintf("%T", data))
		return remove
	}
	mux := http.NewServeMux()
	for _, pattern := range inst.k.def.routes {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { inst.serveRoute(pattern, w, r) })
	}
	unregister, err := d.Handle(inst.opts.ID, mux)
	if err != nil {
		inst.logger.Error("serving routes failed", "err", err)
		return remove
	}
	return unregister
}

// serveRoute calls a route's function in the primary state with the
// request as a table { method, path, query, headers, body } and writes
// what it returns: a table { status = 200, body = "...", headers = {
// ... } } or a string (the body of a 200).
func (inst *instance) serveRoute(pattern string, w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > maxRequestBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	hook := "route " + pattern
	var resp response
	err = inst.invoke(context.Background(), inst.primary, hook, func(v *vm) (*lua.LFunction, []lua.LValue) {
		return v.hooks.routes[pattern], []lua.LValue{requestTable(v.L, r, body)}
	}, func(v *vm, rets []lua.LValue) error {
		var err error
		resp, err = readResponse(rets)
		return err
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for k, v := range resp.headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(resp.status)
	_, _ = io.WriteString(w, resp.body)
}

// requestTable converts a request for Lua.
func requestTable(L *lua.LState, r *http.Request, body []byte) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("method", lua.LString(r.Method))
	t.RawSetString("path", lua.LString(r.URL.Path))
	q := L.NewTable()
	for k, vs := range r.URL.Query() {
		q.RawSetString(k, lua.LString(vs[0]))
	}
	t.RawSetString("query", q)
	h := L.NewTable()
	for k, vs := range r.Header {
		h.RawSetString(strings.ToLower(k), lua.LString(vs[0]))
	}
	t.RawSetString("headers", h)
	t.RawSetString("body", lua.LString(body))
	return t
}

// response is what a route returned.
type response struct {
	status  int
	body    string
	headers map[string]string
}

// readResponse reads a route's result.
func readResponse(rets []lua.LValue) (response, error) {
	resp := response{status: http.StatusOK}
	if len(rets) == 0 {
		return resp, nil
	}
	switch x := rets[0].(type) {
	case lua.LString:
		resp.body = string(x)
	case *lua.LTable:
		if st, ok := x.RawGetString("status").(lua.LNumber); ok {
			resp.status = int(st)
			if resp.status < 100 || resp.status > 999 {
				return resp, fmt.Errorf("invalid status %d", resp.status)
			}
		}
		if b, ok := x.RawGetString("body").(lua.LString); ok {
			resp.body = string(b)
		}
		if h, ok := x.RawGetString("headers").(*lua.LTable); ok {
			resp.headers = map[string]string{}
			h.ForEach(func(k, v lua.LValue) { resp.headers[lua.LVAsString(k)] = lua.LVAsString(v) })
		}
	case *lua.LNilType:
	default:
		return resp, fmt.Errorf("a route returns a string or a table { status, body, headers }, got %s", x.Type())
	}
	return resp, nil
}
