package http

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// serve answers one request through the service's handler.
func serve(s *Service, method, path string) (int, string) {
	rec := httptest.NewRecorder()
	s.handler().ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Code, rec.Body.String()
}

// newHostedService returns a service whose host is h, without listening.
func newHostedService(opts services.Options, h service.Host) *Service {
	s := New(opts)
	s.host = h
	return s
}

func hello(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(body + " " + r.URL.Path))
	})
}

func TestComponentRoutesLiveWithTheirComponent(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	data := s.ComponentData("testing.route.a").(Data)
	a := &nopComponent{name: "a"}

	unregister, err := data.Handle("testing.route.a", hello("a"))
	if err != nil {
		t.Fatal(err)
	}
	// Built but not in the graph yet (its load is being applied): not
	// served, but kept.
	if code, _ := serve(s, "GET", "/api/v0/component/testing.route.a/hello"); code != 404 {
		t.Fatalf("before the component runs: %d, want 404", code)
	}
	host.set(healthyInfo("testing.route.a", a))
	code, body := serve(s, "GET", "/api/v0/component/testing.route.a/hello")
	if code != 200 || body != "a /hello" {
		t.Fatalf("while it runs: %d %q", code, body)
	}

	// Removed by a reload: 404, and the route is dropped even though the
	// component never unregistered.
	host.set()
	if code, _ := serve(s, "GET", "/api/v0/component/testing.route.a/hello"); code != 404 {
		t.Fatalf("after removal: %d, want 404", code)
	}
	if n := s.routes.len(); n != 0 {
		t.Fatalf("%d routes left after the component went", n)
	}
	unregister() // late and harmless
	unregister()
}

func TestComponentRouteUnregister(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	host.set(healthyInfo("testing.route.a", &nopComponent{}))
	data := s.Data().(Data)
	first, err := data.Handle("testing.route.a", hello("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := data.Handle("testing.route.a", hello("two")); err != nil {
		t.Fatal(err)
	}
	first() // unregistering a replaced handler leaves its successor
	if code, body := serve(s, "GET", "/api/v0/component/testing.route.a/x"); code != 200 || body != "two /x" {
		t.Fatalf("after the first handler's unregister: %d %q", code, body)
	}
}

// A new instance under the same id does not inherit the routes of the
// one it replaced.
func TestComponentRouteNotInheritedByNewInstance(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	if _, err := s.Data().(Data).Handle("testing.route.a", hello("old")); err != nil {
		t.Fatal(err)
	}
	host.set(healthyInfo("testing.route.a", &nopComponent{name: "old"}))
	if code, _ := serve(s, "GET", "/api/v0/component/testing.route.a/"); code != 200 {
		t.Fatalf("old instance: %d", code)
	}
	host.set(healthyInfo("testing.route.a", &nopComponent{name: "new"}))
	if code, _ := serve(s, "GET", "/api/v0/component/testing.route.a/"); code != 404 {
		t.Fatalf("new instance that registered nothing: %d, want 404", code)
	}
}

// Routes of ids no longer in the graph are pruned when the components
// are listed, without a request to them.
func TestComponentRoutesPruned(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	host.set(healthyInfo("testing.route.a", &nopComponent{}), healthyInfo("testing.route.b", &nopComponent{}))
	for _, id := range []string{"testing.route.a", "testing.route.b"} {
		if _, err := s.Data().(Data).Handle(id, hello(id)); err != nil {
			t.Fatal(err)
		}
		if code, _ := serve(s, "GET", ComponentPrefix(id)); code != 200 {
			t.Fatalf("%s: %d", id, code)
		}
	}
	host.set(healthyInfo("testing.route.b", host.ListComponents()[1].Component))
	if code, _ := serve(s, "GET", "/api/v0/components"); code != 200 {
		t.Fatalf("components: %d", code)
	}
	if n := s.routes.len(); n != 1 {
		t.Fatalf("%d routes after a's removal, want 1", n)
	}
}

func TestHandleRefusals(t *testing.T) {
	s := New(services.Options{})
	for _, tc := range []struct {
		data Data
		id   string
		h    http.Handler
		want string
	}{
		{Data{}, "testing.route.a", hello(""), "no http service"},
		{s.Data().(Data), "testing.route.a", nil, "nil handler"},
		{s.Data().(Data), "../metrics", hello(""), "not a component id"},
		{s.Data().(Data), "a/b.c", hello(""), "not a component id"},
		{s.ComponentData("testing.route.a").(Data), "testing.route.b", hello(""), "testing.route.a cannot register the routes of testing.route.b"},
	} {
		_, err := tc.data.Handle(tc.id, tc.h)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Handle(%q): %v, want an error containing %q", tc.id, err, tc.want)
		}
	}
}

// A component that did not declare the http service is not served, even
// if it got hold of the data.
func TestComponentRouteNeedsDeclaredService(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	info := healthyInfo("testing.route.a", &nopComponent{})
	info.Dependencies = nil
	host.set(info)
	if _, err := s.Data().(Data).Handle("testing.route.a", hello("a")); err != nil {
		t.Fatal(err)
	}
	if code, _ := serve(s, "GET", "/api/v0/component/testing.route.a/"); code != 404 {
		t.Fatalf("undeclared: %d, want 404", code)
	}
}

var _ component.Component = (*nopComponent)(nil)

// A component rebuilt under the same id (its implementation changed)
// registers in Build while its predecessor still runs: the new route
// survives the switch, and the predecessor's late unregister leaves it.
func TestComponentRouteAcrossRebuild(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	const id = "testing.route.a"
	old, successor := &nopComponent{name: "old"}, &nopComponent{name: "new"}
	host.set(healthyInfo(id, old))
	unregisterOld, err := s.Data().(Data).Handle(id, hello("old")) // from old's Run
	if err != nil {
		t.Fatal(err)
	}
	if _, body := serve(s, "GET", ComponentPrefix(id)); body != "old /" {
		t.Fatalf("old: %q", body)
	}

	if _, err := s.Data().(Data).Handle(id, hello("new")); err != nil { // successor's Build
		t.Fatal(err)
	}
	if code, body := serve(s, "GET", ComponentPrefix(id)); code != 200 || body != "new /" {
		t.Fatalf("between the successor's build and its commit: %d %q", code, body)
	}
	host.set(healthyInfo(id, successor))
	unregisterOld() // old's Run returns
	for range 2 {
		if code, body := serve(s, "GET", ComponentPrefix(id)); code != 200 || body != "new /" {
			t.Fatalf("after the rebuild: %d %q", code, body)
		}
	}
	host.set()
	if code, _ := serve(s, "GET", ComponentPrefix(id)); code != 404 || s.routes.len() != 0 {
		t.Fatalf("after removal: %d, %d routes", code, s.routes.len())
	}
}

// A route registered from Run and never unregistered goes with its
// component.
func TestComponentRouteRegisteredInRunDropped(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	const id = "testing.route.a"
	host.set(healthyInfo(id, &nopComponent{}))
	if _, err := s.Data().(Data).Handle(id, hello("a")); err != nil {
		t.Fatal(err)
	}
	if code, _ := serve(s, "GET", ComponentPrefix(id)+"x"); code != 200 {
		t.Fatalf("while running: %d", code)
	}
	host.set()
	s.routes.prune(host.ListComponents())
	if n := s.routes.len(); n != 0 {
		t.Fatalf("%d routes after removal", n)
	}
}
