package engine

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// trackingRegisterer registers a component's collectors with its
// component_id label and remembers them, so that all of them are
// unregistered when the component goes: a rebuilt component never clashes
// with its predecessor's metrics.
type trackingRegisterer struct {
	inner prometheus.Registerer

	mu         sync.Mutex
	collectors []prometheus.Collector
}

func newTrackingRegisterer(reg prometheus.Registerer, id string) *trackingRegisterer {
	return &trackingRegisterer{inner: prometheus.WrapRegistererWith(prometheus.Labels{"component_id": id}, reg)}
}

// Register registers c and remembers it.
func (t *trackingRegisterer) Register(c prometheus.Collector) error {
	if err := t.inner.Register(c); err != nil {
		return err
	}
	t.mu.Lock()
	t.collectors = append(t.collectors, c)
	t.mu.Unlock()
	return nil
}

// MustRegister registers cs and panics on error, as prometheus does.
func (t *trackingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := t.Register(c); err != nil {
			panic(err)
		}
	}
}

// Unregister unregisters c.
func (t *trackingRegisterer) Unregister(c prometheus.Collector) bool {
	t.mu.Lock()
	for i, rc := range t.collectors {
		if rc == c {
			t.collectors = append(t.collectors[:i], t.collectors[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	return t.inner.Unregister(c)
}

// unregisterAll unregisters every collector registered through t.
func (t *trackingRegisterer) unregisterAll() {
	t.mu.Lock()
	cs := t.collectors
	t.collectors = nil
	t.mu.Unlock()
	for _, c := range cs {
		t.inner.Unregister(c)
	}
}
