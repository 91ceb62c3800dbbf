package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["firstparty"] = cmdFirstParty
	scriptCmds["fakek8s"] = cmdFakeK8s
	scriptCmds["fakekubelet"] = cmdFakeKubelet
}

// firstPartyPlugins builds each first-party plugin (plugins/NAME) once per
// test binary, unless $FLOWLUA_TEST_PLUGINS names the directory `make
// test` built them into (bin/plugins), so that each builds once a run.
var firstPartyPlugins sync.Map // name → func() (string, error)

func firstPartyPlugin(name string) (string, error) {
	f, _ := firstPartyPlugins.LoadOrStore(name, sync.OnceValues(func() (string, error) {
		if dir := os.Getenv("FLOWLUA_TEST_PLUGINS"); dir != "" {
			path := filepath.Join(dir, name)
			if _, err := os.Stat(path); err != nil {
				return "", fmt.Errorf("$FLOWLUA_TEST_PLUGINS: %w", err)
			}
			return path, nil
		}
		return buildPlugin(filepath.Join("..", "..", "plugins", name), name)
	}))
	return f.(func() (string, error))()
}

// firstparty NAME DEST: copies the first-party plugin plugins/NAME, built
// once, to DEST.
func cmdFirstParty(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: firstparty NAME DEST")
	}
	src, err := firstPartyPlugin(args[0])
	ts.Check(err)
	install(ts, src, args[1], 0)
}

// fakek8s FILE: starts a Kubernetes API server that answers discovery
// (/api, /apis and each group version's resources: the legacy form, which
// clients fall back to), and list and watch (including watch-list
// streams) for the objects of FILE, a JSON object
// of resource name ("pods", "namespaces", "nodes", "replicasets") to a
// list of objects, writes $WORK/kubeconfig pointing at it and sets
// $KUBECONFIG. Watches send nothing more: the objects do not change.
func cmdFakeK8s(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: fakek8s FILE")
	}
	var objects map[string][]map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &objects))
	done := make(chan struct{})
	srv := httptest.NewServer(fakeK8s{objects: objects, done: done})
	// Watches end first: Close waits for every request, and a watch
	// lasts as long as its client, which may still be running.
	ts.Defer(func() { close(done); srv.Close() })
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: %s
users:
- name: fake
  user:
    token: fake
contexts:
- name: fake
  context:
    cluster: fake
    user: fake
current-context: fake
`, srv.URL)
	path := ts.MkAbs("kubeconfig")
	ts.Check(os.WriteFile(path, []byte(kubeconfig), 0o600))
	ts.Setenv("KUBECONFIG", path)
	ts.Setenv("K8S_API", srv.URL)
}

// fakeK8s is the fake API server: GET of /api/v1/[namespaces/NS/]RESOURCE
// or /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE.
type fakeK8s struct {
	objects map[string][]map[string]any
	done    <-chan struct{} // closed when the server stops
}

// listKinds are the kinds of the resources the fake serves.
var listKinds = map[string][2]string{
	"pods":        {"v1", "Pod"},
	"namespaces":  {"v1", "Namespace"},
	"nodes":       {"v1", "Node"},
	"replicasets": {"apps/v1", "ReplicaSet"},
	"deployments": {"apps/v1", "Deployment"},
	"services":    {"v1", "Service"},
	"endpoints":   {"v1", "Endpoints"},
}

func (f fakeK8s) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.discovery(w, r) {
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	resource := parts[len(parts)-1]
	kind, ok := listKinds[resource]
	if r.Method != http.MethodGet || !ok {
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
		return
	}
	var items []map[string]any
	for _, o := range f.objects[resource] {
		item := map[string]any{"apiVersion": kind[0], "kind": kind[1]}
		for k, v := range o {
			item[k] = v
		}
		items = append(items, item)
	}
	w.Header().Set("Content-Type", "application/json")
	q := r.URL.Query()
	if q.Get("watch") != "true" && q.Get("watch") != "1" {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"apiVersion": kind[0], "kind": kind[1] + "List",
			"metadata": map[string]any{"resourceVersion": "1"},
			"items":    items,
		})
		return
	}
	enc := json.NewEncoder(w)
	if q.Get("sendInitialEvents") == "true" {
		for _, o := range items {
			_ = enc.Encode(map[string]any{"type": "ADDED", "object": o})
		}
		_ = enc.Encode(map[string]any{"type": "BOOKMARK", "object": map[string]any{
			"apiVersion": kind[0], "kind": kind[1],
			"metadata": map[string]any{"resourceVersion": "1", "annotations": map[string]string{"k8s.io/initial-events-end": "true"}},
		}})
	}
	w.(http.Flusher).Flush()
	select {
	case <-r.Context().Done():
	case <-f.done:
	}
}

// fakekubelet FILE: starts a kubelet's read-only API answering
// /stats/summary with FILE, and sets $KUBELET to its host:port.
func cmdFakeKubelet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: fakekubelet FILE")
	}
	summary := []byte(ts.ReadFile(args[0]))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/stats/summary" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(summary)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("KUBELET", strings.TrimPrefix(srv.URL, "http://"))
}

// discovery answers the discovery paths: /api, /apis, /api/v1 and
// /apis/GROUP/VERSION, listing the resources of listKinds. It reports
// whether the request was one of them.
func (f fakeK8s) discovery(w http.ResponseWriter, r *http.Request) bool {
	path := strings.Trim(r.URL.Path, "/")
	var body any
	switch {
	case path == "api":
		body = map[string]any{"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []any{}}
	case path == "apis":
		groups := map[string][]string{}
		for _, k := range listKinds {
			if g, v, ok := strings.Cut(k[0], "/"); ok && !slices.Contains(groups[g], v) {
				groups[g] = append(groups[g], v)
			}
		}
		var list []any
		for _, g := range slices.Sorted(maps.Keys(groups)) {
			var versions []any
			for _, v := range groups[g] {
				versions = append(versions, map[string]string{"groupVersion": g + "/" + v, "version": v})
			}
			list = append(list, map[string]any{"name": g, "versions": versions, "preferredVersion": versions[0]})
		}
		body = map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": list}
	case path == "api/v1" || (strings.HasPrefix(path, "apis/") && strings.Count(path, "/") == 2):
		gv := strings.TrimPrefix(strings.TrimPrefix(path, "apis/"), "api/")
		var resources []any
		for _, name := range slices.Sorted(maps.Keys(listKinds)) {
			k := listKinds[name]
			if k[0] != gv {
				continue
			}
			resources = append(resources, map[string]any{
				"name": name, "singularName": "", "kind": k[1],
				"namespaced": name != "nodes" && name != "namespaces",
				"verbs":      []string{"get", "list", "watch"},
			})
		}
		body = map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
	default:
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
	return true
}
