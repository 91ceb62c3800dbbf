package cluster

import (
	"github.com/prometheus/client_golang/prometheus"
)

// clusterMetrics are the cluster service's metrics: members by state,
// membership events and gossip traffic. (Ownership changes are counted
// by the engine, which moves the work: flowlua_cluster_ownership_changes_total.)
type clusterMetrics struct {
	membership *prometheus.CounterVec
	messages   *prometheus.CounterVec
	bytes      *prometheus.CounterVec
}

func newClusterMetrics(s *Service, reg prometheus.Registerer) *clusterMetrics {
	m := &clusterMetrics{
		membership: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_cluster_membership_events_total",
			Help: "Members that joined, left gracefully or were found dead.",
		}, []string{"event"}),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_cluster_gossip_messages_total",
			Help: "Gossip packets (UDP) and streams (TCP push/pull, joins) sent and received.",
		}, []string{"direction", "kind"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_cluster_gossip_packet_bytes_total",
			Help: "Bytes of gossip packets sent and received.",
		}, []string{"direction"}),
	}
	if reg == nil {
		return m
	}
	members := &membersCollector{s: s, desc: prometheus.NewDesc("flowlua_cluster_members",
		"The nodes this one knows, by state (alive, suspect, left, dead).", []string{"state"}, nil)}
	ready := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "flowlua_cluster_placement_ready",
		Help: "1 once this node places work on the cluster (joined, and --cluster.wait-for-size met); 0 while it waits and owns nothing.",
	}, func() float64 {
		if s.cur.Load() != nil {
			return 1
		}
		return 0
	})
	for _, c := range []prometheus.Collector{m.membership, m.messages, m.bytes, members, ready} {
		if err := reg.Register(c); err != nil {
			s.logger.Warn("registering a metric failed", "err", err)
		}
	}
	return m
}

// membersCollector counts the peers by state at scrape time.
type membersCollector struct {
	s    *Service
	desc *prometheus.Desc
}

func (c *membersCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *membersCollector) Collect(ch chan<- prometheus.Metric) {
	counts := map[string]int{"alive": 0, "suspect": 0, "left": 0, "dead": 0}
	for _, p := range c.s.Peers() {
		counts[p.State]++
	}
	for state, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), state)
	}
}
