package otelcol

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/component"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// usedSignals says which signals of o have consumers.
func usedSignals(o dataplane.Output) [dataplane.NumSignals]bool {
	var u [dataplane.NumSignals]bool
	for _, s := range dataplane.AllSignals {
		u[s] = len(o.Consumers(s)) > 0
	}
	return u
}

// settings are what creating an upstream component takes.
type settings struct {
	ctx   context.Context
	id    component.ID
	tel   component.TelemetrySettings
	build component.BuildInfo
}

// accepts says whether k's input takes s (component.Registration.Accepts),
// as the collector decides which pipelines a component may be in: an
// exporter takes the signals its factory supports; a processor those, when
// its output has consumers of the signal; a connector a signal it has a
// connection from to a signal its output has consumers for.
func (k *kind) accepts(s dataplane.Signal, outputs [dataplane.NumSignals]bool) error {
	if !k.supports[s] {
		return fmt.Errorf("it takes %s", signalList(k.supports))
	}
	switch k.class {
	case classProcessor:
		if !outputs[s] {
			return fmt.Errorf("its output has no %s", s)
		}
	case classConnector:
		for out, ok := range k.connects[s] {
			if ok && outputs[out] {
				return nil
			}
		}
		return fmt.Errorf("it turns %s into %s, and its output has none", s, signalList(k.connects[s]))
	}
	return nil
}

// signalList names the signals set in sigs: "traces, metrics".
func signalList(sigs [dataplane.NumSignals]bool) string {
	var names []string
	for _, s := range dataplane.AllSignals {
		if sigs[s] {
			names = append(names, s.String())
		}
	}
	if len(names) == 0 {
		return "no signal"
	}
	return strings.Join(names, ", ")
}
