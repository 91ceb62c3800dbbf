//go:build !flowlua_minimal && !flowlua_lean

package otelcol

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
)

// The components only the full build has (see components.go).
func init() {
	// Its static targets are fed through files (promtargets.go).
	RegisterReceiver(prometheusreceiver.NewFactory(), feedsTargets(feedPrometheusTargets))
}
