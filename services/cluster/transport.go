package cluster

import (
	"net"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// countingTransport is memberlist's UDP/TCP transport, counting what it
// carries for flowlua_cluster_gossip_*.
type countingTransport struct {
	*memberlist.NetTransport
	m       *clusterMetrics
	packets chan *memberlist.Packet
	streams chan net.Conn
	done    chan struct{}
	once    sync.Once
}

var _ memberlist.NodeAwareTransport = (*countingTransport)(nil)

func newCountingTransport(nt *memberlist.NetTransport, m *clusterMetrics) *countingTransport {
	t := &countingTransport{
		NetTransport: nt, m: m,
		packets: make(chan *memberlist.Packet),
		streams: make(chan net.Conn),
		done:    make(chan struct{}),
	}
	go func() {
		for {
			select {
			case p := <-nt.PacketCh():
				m.messages.WithLabelValues("received", "packet").Inc()
				m.bytes.WithLabelValues("received").Add(float64(len(p.Buf)))
				select {
				case t.packets <- p:
				case <-t.done:
					return
				}
			case c := <-nt.StreamCh():
				m.messages.WithLabelValues("received", "stream").Inc()
				select {
				case t.streams <- c:
				case <-t.done:
					_ = c.Close()
					return
				}
			case <-t.done:
				return
			}
		}
	}()
	return t
}

func (t *countingTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	t.m.messages.WithLabelValues("sent", "packet").Inc()
	t.m.bytes.WithLabelValues("sent").Add(float64(len(b)))
	return t.NetTransport.WriteTo(b, addr)
}

func (t *countingTransport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	t.m.messages.WithLabelValues("sent", "stream").Inc()
	return t.NetTransport.DialTimeout(addr, timeout)
}

func (t *countingTransport) PacketCh() <-chan *memberlist.Packet { return t.packets }

func (t *countingTransport) StreamCh() <-chan net.Conn { return t.streams }

// Shutdown stops forwarding and shuts the transport down. Its listeners
// hand what they receive over unbuffered channels and exit only once that
// is taken: what they still deliver is drained (and dropped) until they
// have exited, or Shutdown would wait for them forever.
func (t *countingTransport) Shutdown() error {
	t.once.Do(func() { close(t.done) })
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.NetTransport.PacketCh():
			case c := <-t.NetTransport.StreamCh():
				_ = c.Close()
			case <-stop:
				return
			}
		}
	}()
	err := t.NetTransport.Shutdown()
	close(stop)
	return err
}

func (t *countingTransport) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	t.m.messages.WithLabelValues("sent", "packet").Inc()
	t.m.bytes.WithLabelValues("sent").Add(float64(len(b)))
	return t.NetTransport.WriteToAddress(b, a)
}

func (t *countingTransport) DialAddressTimeout(a memberlist.Address, timeout time.Duration) (net.Conn, error) {
	t.m.messages.WithLabelValues("sent", "stream").Inc()
	return t.NetTransport.DialAddressTimeout(a, timeout)
}
