package opamp

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the service's own metrics.
type metrics struct {
	connected       prometheus.Gauge
	connectFailures prometheus.Counter
	remoteConfigs   *prometheus.CounterVec
	connSettings    *prometheus.CounterVec
	healthReports   prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, logger *slog.Logger) *metrics {
	m := &metrics{
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowlua_opamp_connected",
			Help: "1 while the agent is connected to its OpAMP server (over plain HTTP: while its last request succeeded), else 0.",
		}),
		connectFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flowlua_opamp_connect_failures_total",
			Help: "Attempts to reach the OpAMP server that failed.",
		}),
		remoteConfigs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_opamp_remote_configs_total",
			Help: "Remote configs the OpAMP server offered, by status: applied, failed (refused or rejected by the check; the running pipeline kept), unchanged (the config already running).",
		}, []string{"status"}),
		connSettings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_opamp_connection_settings_total",
			Help: "OpAMP connection settings the server offered, by result: applied, refused (invalid), rolled_back (they did not connect; the previous settings are used again).",
		}, []string{"result"}),
		healthReports: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flowlua_opamp_health_reports_total",
			Help: "Changes of the agent's health reported to the OpAMP server.",
		}),
	}
	for _, s := range []string{"applied", "failed", "unchanged"} {
		m.remoteConfigs.WithLabelValues(s)
	}
	for _, r := range []string{"applied", "refused", "rolled_back"} {
		m.connSettings.WithLabelValues(r)
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.connected, m.connectFailures, m.remoteConfigs, m.connSettings, m.healthReports} {
			if err := reg.Register(c); err != nil {
				logger.Warn("registering a metric failed", "err", err)
			}
		}
	}
	return m
}
