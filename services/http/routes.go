package http

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sync"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
)

// componentRoutesRoot is where the routes of components live.
const componentRoutesRoot = "/api/v0/component/"

// ComponentPrefix returns the path prefix under which a component's routes
// are served: /api/v0/component/{id}/.
func ComponentPrefix(componentID string) string {
	return componentRoutesRoot + componentID + "/"
}

// Data is what a component that declared the http service gets from
// GetServiceData("http"): the means to serve routes under its prefix. Its
// methods are safe for concurrent use.
type Data struct {
	routes *routeTable
	// owner is the component the data was handed to, when the engine
	// says (see Service.ComponentData); "" otherwise.
	owner string
}

// componentIDRe matches what a component id can be (dotted names and
// labels, module instances included): nothing that could escape a prefix.
var componentIDRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// Handle serves h under ComponentPrefix(componentID), which h sees
// stripped (a request for /api/v0/component/{id}/hello reaches h as
// /hello). componentID must be the caller's own id (opts.ID); registering
// again replaces the previous handler.
//
// The routes live as long as the component: call unregister when Run
// returns (it is idempotent and leaves a later registration alone). A
// component that forgets is covered: a route is served only while its
// component runs in the graph, and is dropped once that component is
// removed or replaced by a new instance.
func (d Data) Handle(componentID string, h http.Handler) (unregister func(), err error) {
	switch {
	case d.routes == nil:
		return nil, errors.New("http: no http service behind this data")
	case h == nil:
		return nil, fmt.Errorf("http: component %s: nil handler", componentID)
	case !componentIDRe.MatchString(componentID):
		return nil, fmt.Errorf("http: %q is not a component id", componentID)
	case d.owner != "" && componentID != d.owner:
		return nil, fmt.Errorf("http: component %s cannot register the routes of %s", d.owner, componentID)
	}
	r := d.routes.add(componentID, h)
	return func() { d.routes.remove(componentID, r) }, nil
}

// PathPrefix returns the prefix of a component's routes (see
// ComponentPrefix).
func (d Data) PathPrefix(componentID string) string { return ComponentPrefix(componentID) }

// route is a component's registered handler.
//
// Which instance of the component registered it is not known: Build runs
// while a predecessor under the same id may still run (a rebuild), Run
// while the instance itself runs. So a route remembers the instance live
// when it was registered (prev) and binds to an instance only once one
// other than prev is seen live: that one is the registrant (prev was
// replaced). While prev is live the route is served unbound; a route whose
// instance is gone, or replaced by one that did not register, is dropped.
type route struct {
	h    http.Handler
	prev component.Component // live under the id at registration, or nil
	// bound is the instance the route belongs to, once known.
	bound component.Component
}

// routeTable holds the routes of components by component id.
type routeTable struct {
	// live returns the instance running under an id, or nil.
	live func(id string) component.Component

	mu     sync.Mutex
	routes map[string]*route
}

func newRouteTable(live func(id string) component.Component) *routeTable {
	return &routeTable{live: live, routes: map[string]*route{}}
}

func (t *routeTable) add(id string, h http.Handler) *route {
	r := &route{h: h, prev: t.live(id)}
	t.mu.Lock()
	t.routes[id] = r
	t.mu.Unlock()
	return r
}

// remove removes r if it is still id's route.
func (t *routeTable) remove(id string, r *route) {
	t.mu.Lock()
	if t.routes[id] == r {
		delete(t.routes, id)
	}
	t.mu.Unlock()
}

// len returns the number of routes held.
func (t *routeTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.routes)
}

// lookup returns the handler to serve for id, or nil: a route is served
// only while its component is in host's graph, built, and declares the
// http service. A route whose component is gone is dropped.
func (t *routeTable) lookup(id string, host service.Host) http.Handler {
	t.mu.Lock()
	r := t.routes[id]
	t.mu.Unlock()
	if r == nil || host == nil {
		return nil
	}
	info, err := host.GetComponent(id)
	var live *component.Info
	if err == nil {
		live = &info
	}
	if !t.check(id, r, live) {
		return nil
	}
	return r.h
}

// prune drops the routes whose components are gone from infos (the whole
// graph) or were replaced.
func (t *routeTable) prune(infos []component.Info) {
	byID := make(map[string]*component.Info, len(infos))
	for i := range infos {
		byID[infos[i].ID] = &infos[i]
	}
	t.mu.Lock()
	ids := make([]string, 0, len(t.routes))
	rs := make([]*route, 0, len(t.routes))
	for id, r := range t.routes {
		ids = append(ids, id)
		rs = append(rs, r)
	}
	t.mu.Unlock()
	for i, id := range ids {
		t.check(id, rs[i], byID[id])
	}
}

// check decides whether r serves for id, live being id's component in
// the graph (nil if absent), and drops r once its component is gone.
func (t *routeTable) check(id string, r *route, live *component.Info) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.routes[id] != r {
		return false // replaced or removed meanwhile
	}
	var inst component.Component
	if live != nil {
		inst = live.Component
	}
	switch {
	case inst == nil:
		if r.bound != nil || r.prev != nil { // what ran under the id is gone
			delete(t.routes, id)
		}
		// Otherwise the registrant is new and not committed yet (or its
		// load failed, and a later registration replaces the route).
		return false
	case r.bound != nil:
		if !sameInstance(r.bound, inst) {
			delete(t.routes, id) // a new instance that registered nothing
			return false
		}
	case r.prev == nil || !sameInstance(r.prev, inst):
		r.bound = inst
	}
	return slices.Contains(live.Dependencies, ServiceName)
}

// sameInstance compares components; values that cannot be compared
// (a component that is a non-comparable struct value) count as the same.
func sameInstance(a, b component.Component) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	if !va.Comparable() || !vb.Comparable() {
		return true
	}
	return a == b
}
