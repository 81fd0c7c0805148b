package storetest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Proxy stands between a client and PostgreSQL, for a test's life. It
// counts the client's writes (Writes: one per round trip of a pipelined
// client), and can take the database away (every connection cut, new ones
// refused) and give it back, as a restart or a network fault would,
// without touching the PostgreSQL the other tests share.
type Proxy struct {
	ln     net.Listener
	target string
	writes atomic.Int64
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

// StartProxy proxies dbURL's server and returns the proxy and dbURL
// through it.
func StartProxy(t testing.TB, dbURL string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &Proxy{ln: ln, target: u.Host, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() { _ = ln.Close(); p.Cut() })
	u.Host = ln.Addr().String()
	return p, u.String()
}

// Writes is how many writes the clients made so far.
func (p *Proxy) Writes() int64 { return p.writes.Load() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.mu.Unlock()
		go p.pipe(c)
	}
}

func (p *Proxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	if p.down {
		// Cut while this connection was being dialed: it must not outlive
		// the cut (found: a test's whole backlog delivered "during" an
		// outage through a connection accepted just before it).
		p.mu.Unlock()
		_ = c.Close()
		_ = up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(countedWriter{up, &p.writes}, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
	_ = c.Close()
	_ = up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// countedWriter counts the writes passed through it: one per read of the
// client's side of the connection.
type countedWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countedWriter) Write(b []byte) (int, error) {
	c.n.Add(1)
	return c.w.Write(b)
}

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Restore accepts connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}
