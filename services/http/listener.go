package http

import (
	"bufio"
	"crypto/tls"
	"net"
	"sync/atomic"
	"time"
)

// switchingListener serves plaintext while no TLS is configured and TLS
// once it is, on the same socket: each accepted connection is wrapped
// according to the configuration of that moment. While TLS is on, a
// connection whose first byte is not a TLS handshake is answered with 400
// and closed.
type switchingListener struct {
	net.Listener
	tls *atomic.Pointer[tls.Config]
}

func (l *switchingListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		cfg := l.tls.Load()
		if cfg == nil {
			return conn, nil
		}
		br := bufio.NewReader(conn)
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		first, err := br.Peek(1)
		_ = conn.SetReadDeadline(time.Time{})
		if err != nil {
			conn.Close()
			continue
		}
		pc := &peekedConn{Conn: conn, r: br}
		if first[0] != 0x16 { // not a TLS handshake record
			go refusePlaintext(pc)
			continue
		}
		return tls.Server(pc, cfg), nil
	}
}

// refusePlaintext answers a plaintext request on a TLS address.
func refusePlaintext(c net.Conn) {
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = c.Write([]byte("HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"))
}

// peekedConn is a connection whose first bytes were read into r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
