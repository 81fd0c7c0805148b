package webtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// DBProxy stands between the service and PostgreSQL so that a test can
// take the database away (every connection cut, new ones refused) and give
// it back, as a restart or a network fault would, without touching the
// PostgreSQL the other tests share.
type DBProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

// WithDBProxy routes the service's database connections through a DBProxy
// (Server.DBProxy).
func WithDBProxy() Option {
	return func(o *Options) { o.dbProxy = true }
}

func startDBProxy(t testing.TB, dbURL string) (*DBProxy, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &DBProxy{ln: ln, target: u.Host, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() { _ = ln.Close(); p.Cut() })
	u.Host = ln.Addr().String()
	return p, u.String()
}

func (p *DBProxy) serve() {
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

func (p *DBProxy) pipe(c net.Conn) {
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
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
	_ = c.Close()
	_ = up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// Cut closes every connection and refuses new ones until Restore.
func (p *DBProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Restore accepts connections again.
func (p *DBProxy) Restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}
