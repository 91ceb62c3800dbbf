package http

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Timeouts of a connection before it reaches the HTTP server.
const (
	// sniffTimeout bounds the wait for a client's first byte while TLS is
	// on.
	sniffTimeout = 10 * time.Second
	// handshakeTimeout bounds a TLS handshake.
	handshakeTimeout = 10 * time.Second
	// refuseTimeout bounds answering a plaintext request on a TLS address.
	refuseTimeout = 5 * time.Second
)

// plaintextRefusal answers a plaintext request while TLS is on.
const plaintextRefusal = "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n" +
	"Client sent an HTTP request to an HTTPS server.\n"

// switchingListener serves plaintext while no TLS is configured and TLS
// once it is, on one socket: each accepted connection is handled according
// to the configuration of that moment.
//
// Its life:
//
//  1. newSwitchingListener starts a goroutine accepting from the socket.
//  2. Each accepted connection gets its own goroutine: with TLS off it is
//     handed over as is; with TLS on its first byte is read (bounded by
//     sniffTimeout), a TLS handshake record starts a handshake (bounded by
//     handshakeTimeout), anything else is answered 400 and closed. A slow
//     client therefore holds up only its own connection.
//  3. Accept returns the connections that are ready, in the order they
//     became ready.
//  4. Close closes the socket and every connection not yet handed over,
//     and waits for the goroutines; Accept then returns net.ErrClosed.
type switchingListener struct {
	inner  net.Listener
	tls    *atomic.Pointer[tls.Config]
	logger *slog.Logger

	timeouts listenerTimeouts

	ready     chan net.Conn // unbuffered: a handover either happens or not
	done      chan struct{} // closed when the listener stops
	stopOnce  sync.Once     // closes done
	closeOnce sync.Once
	wg        sync.WaitGroup        // the accept loop and the per-connection goroutines
	err       atomic.Pointer[error] // why the accept loop stopped, if not Close

	mu   sync.Mutex // guards pend
	pend map[net.Conn]struct{}
}

// listenerTimeouts bound the preparation of a connection.
type listenerTimeouts struct {
	sniff, handshake time.Duration
}

var defaultTimeouts = listenerTimeouts{sniff: sniffTimeout, handshake: handshakeTimeout}

func newSwitchingListener(inner net.Listener, cfg *atomic.Pointer[tls.Config], logger *slog.Logger, timeouts listenerTimeouts) *switchingListener {
	l := &switchingListener{
		inner:    inner,
		tls:      cfg,
		logger:   logger,
		timeouts: timeouts,
		ready:    make(chan net.Conn),
		done:     make(chan struct{}),
		pend:     map[net.Conn]struct{}{},
	}
	l.wg.Add(1)
	go l.acceptLoop()
	return l
}

// Accept returns the next connection ready to serve.
func (l *switchingListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ready:
		return c, nil
	case <-l.done:
		if p := l.err.Load(); p != nil {
			return nil, *p
		}
		return nil, net.ErrClosed
	}
}

// Addr returns the socket's address.
func (l *switchingListener) Addr() net.Addr { return l.inner.Addr() }

// Close stops accepting, closes the connections not handed over yet and
// waits for every goroutine of the listener.
func (l *switchingListener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		l.stop()
		err = l.inner.Close()
		l.mu.Lock()
		for c := range l.pend {
			c.Close()
		}
		l.mu.Unlock()
	})
	l.wg.Wait()
	return err
}

// stop makes Accept and the preparing goroutines give up.
func (l *switchingListener) stop() { l.stopOnce.Do(func() { close(l.done) }) }

// acceptLoop accepts connections until the socket is closed, backing off
// on other errors (too many open files) as net/http does.
func (l *switchingListener) acceptLoop() {
	defer l.wg.Done()
	var delay time.Duration
	for {
		conn, err := l.inner.Accept()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			if !errors.Is(err, net.ErrClosed) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				l.logger.Warn("accepting a connection failed, retrying", "err", err, "delay", delay)
				select {
				case <-time.After(delay):
					continue
				case <-l.done:
					return
				}
			}
			l.err.Store(&err)
			l.stop()
			return
		}
		delay = 0
		if !l.track(conn) {
			conn.Close()
			return
		}
		l.wg.Add(1)
		go l.prepare(conn)
	}
}

// track records a connection being prepared, so that Close can close it;
// it reports false once the listener is closed.
func (l *switchingListener) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
		return false
	default:
	}
	l.pend[c] = struct{}{}
	return true
}

func (l *switchingListener) untrack(c net.Conn) {
	l.mu.Lock()
	delete(l.pend, c)
	l.mu.Unlock()
}

// prepare readies one connection and hands it to Accept.
func (l *switchingListener) prepare(raw net.Conn) {
	defer l.wg.Done()
	defer l.untrack(raw)
	conn, ok := l.wrap(raw)
	if !ok {
		raw.Close()
		return
	}
	select {
	case l.ready <- conn:
	case <-l.done:
		raw.Close()
	}
}

// wrap returns the connection to serve: raw with TLS off, else a
// handshaken *tls.Conn. It reports false for a connection to drop.
func (l *switchingListener) wrap(raw net.Conn) (net.Conn, bool) {
	cfg := l.tls.Load()
	if cfg == nil {
		return raw, true
	}
	br := bufio.NewReader(raw)
	_ = raw.SetReadDeadline(time.Now().Add(l.timeouts.sniff))
	first, err := br.Peek(1)
	_ = raw.SetReadDeadline(time.Time{})
	if err != nil {
		return nil, false
	}
	pc := &peekedConn{Conn: raw, r: br}
	if first[0] != 0x16 { // not a TLS handshake record
		refusePlaintext(pc)
		return nil, false
	}
	tc := tls.Server(pc, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), l.timeouts.handshake)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		l.logger.Debug("TLS handshake failed", "remote", raw.RemoteAddr().String(), "err", err)
		return nil, false
	}
	return tc, true
}

// refusePlaintext answers a plaintext request on a TLS address with 400.
// It half-closes and drains what the client sent, so that the client reads
// the answer instead of a connection reset.
func refusePlaintext(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(refuseTimeout))
	if _, err := c.Write([]byte(plaintextRefusal)); err != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// peekedConn is a connection whose first bytes were read into r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// CloseWrite half-closes the underlying TCP connection, if it can.
func (c *peekedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
