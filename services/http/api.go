package http

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/service"
)

// secretComponent is a component that may ask for its exports to be
// hidden (file.read with is_secret = true).
type secretComponent interface {
	IsSecret() bool
}

// componentJSON is a component as /api/v0/components shows it.
type componentJSON struct {
	ID     string     `json:"id"`
	Name   string     `json:"name"`
	Label  string     `json:"label"`
	Health healthJSON `json:"health"`
	// Arguments and Exports are script values (see decode.Encode).
	Arguments any `json:"arguments"`
	Exports   any `json:"exports"`
	// Dependencies are the components this one references; Services the
	// services it uses.
	Dependencies []string `json:"dependencies"`
	// Dependants are the components (and services) referencing this one.
	Dependants []string `json:"dependants"`
	Services   []string `json:"services"`
	// Sends is where the component sends data: each consumer of each
	// signal of its outputs, with the items sent so far (the rates of the
	// graph's edges).
	Sends []sendJSON `json:"sends"`
	// ModuleInstance is the module instance that declared the component.
	ModuleInstance string `json:"module_instance,omitempty"`
	Placement      string `json:"placement,omitempty"`
	// Owner is the node that runs a unique component; Standby says why
	// this node does not ("standby (owned by node-b)").
	Owner   string `json:"owner,omitempty"`
	Standby string `json:"standby,omitempty"`
}

// sendJSON is one consumer a component sends a signal to; To is ""
// when the consumer is no component's export.
type sendJSON struct {
	Signal string `json:"signal"`
	To     string `json:"to"`
	Items  uint64 `json:"items"`
}

type healthJSON struct {
	State     string    `json:"state"`
	Message   string    `json:"message"`
	UpdatedAt time.Time `json:"updated_at"`
}

// apiView turns components into their JSON form. It knows the whole graph,
// so that a consumer in one component's arguments is shown as the export
// it came from, and a secret export stays hidden wherever it flows.
type apiView struct {
	host    service.Host
	names   map[any]string // export values that are not data -> "<id.export>"
	secrets []string       // exported strings of secret components
	// redact is the host's redaction (service.Redactor), which also knows
	// the strings derived from secrets (a compute of one); nil if none.
	redact func(string) string
}

func newAPIView(host service.Host, infos []component.Info) *apiView {
	v := &apiView{host: host, names: map[any]string{}}
	if r, ok := host.(service.Redactor); ok {
		v.redact = r.Redact
	}
	for _, info := range infos {
		secret := isSecret(info.Component)
		for name, e := range decode.ExportValues(info.Exports) {
			if secret {
				if s, ok := e.(string); ok && s != "" {
					v.secrets = append(v.secrets, s)
					if t := strings.TrimSpace(s); t != "" && t != s {
						v.secrets = append(v.secrets, t)
					}
				}
				continue
			}
			rv := reflect.ValueOf(e)
			if !rv.IsValid() || !rv.Comparable() {
				continue
			}
			switch rv.Kind() {
			case reflect.Pointer, reflect.Chan, reflect.Struct:
				if _, taken := v.names[e]; !taken {
					v.names[e] = "<" + info.ID + "." + name + ">"
				}
			}
		}
	}
	return v
}

// references returns what Describe names consumers and other values
// that are not data ("<id.export>"), to tell them from strings.
func (v *apiView) references() map[string]bool {
	out := make(map[string]bool, len(v.names))
	for _, name := range v.names {
		out[name] = true
	}
	return out
}

func isSecret(c component.Component) bool {
	sc, ok := c.(secretComponent)
	return ok && sc.IsSecret()
}

func (v *apiView) options() decode.EncodeOptions {
	return decode.EncodeOptions{
		Describe: func(x any) (string, bool) {
			rv := reflect.ValueOf(x)
			if !rv.IsValid() || !rv.Comparable() {
				return "", false
			}
			s, ok := v.names[x]
			return s, ok
		},
		Secret: func(s string) bool {
			for _, sec := range v.secrets {
				if strings.Contains(s, sec) {
					return true
				}
			}
			return v.redact != nil && v.redact(s) != s
		},
	}
}

func (v *apiView) component(info component.Info) componentJSON {
	opts := v.options()
	out := componentJSON{
		ID:    info.ID,
		Name:  info.Name,
		Label: info.Label,
		Health: healthJSON{
			State:     info.Health.Health.String(),
			Message:   info.Health.Message,
			UpdatedAt: info.Health.UpdateTime,
		},
		Arguments:      decode.Encode(info.Arguments, opts),
		Exports:        decode.Encode(info.Exports, opts),
		Dependencies:   []string{},
		Dependants:     nonNil(info.Dependants),
		Services:       []string{},
		Sends:          []sendJSON{},
		ModuleInstance: info.ModuleInstance,
		Placement:      info.Placement,
		Owner:          info.Owner,
		Standby:        info.Standby,
	}
	for _, send := range info.Sends {
		out.Sends = append(out.Sends, sendJSON(send))
	}
	if isSecret(info.Component) {
		if m, ok := out.Exports.(map[string]any); ok {
			for k := range m {
				m[k] = decode.Redacted
			}
		}
	}
	if out.Exports == nil {
		out.Exports = map[string]any{}
	}
	for _, dep := range info.Dependencies {
		if _, ok := v.host.GetService(dep); ok {
			out.Services = append(out.Services, dep)
		} else {
			out.Dependencies = append(out.Dependencies, dep)
		}
	}
	return out
}

// serveComponents answers GET /api/v0/components: every component, sorted
// by id.
func (s *Service) serveComponents(w http.ResponseWriter, r *http.Request) {
	host := s.currentHost()
	if host == nil {
		writeJSON(w, http.StatusOK, []componentJSON{})
		return
	}
	infos := host.ListComponents()
	s.routes.prune(infos)
	view := newAPIView(host, infos)
	out := make([]componentJSON, 0, len(infos))
	for _, info := range infos {
		out = append(out, view.component(info))
	}
	writeJSON(w, http.StatusOK, out)
}

// serveComponent answers GET /api/v0/components/{id}.
func (s *Service) serveComponent(w http.ResponseWriter, r *http.Request) {
	host := s.currentHost()
	if host == nil {
		http.Error(w, "not running yet", http.StatusServiceUnavailable)
		return
	}
	infos := host.ListComponents()
	id := r.PathValue("id")
	for _, info := range infos {
		if info.ID == id {
			writeJSON(w, http.StatusOK, newAPIView(host, infos).component(info))
			return
		}
	}
	http.Error(w, "no component "+id, http.StatusNotFound)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	// Values stay as written ("<otelcol.exporter.otlp.up.input>", not
	// "\u003c..."): the answer is JSON, never parsed as HTML.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
