package storetest

import (
	"io"
	"net"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// A WriteCounter passes connections to PostgreSQL through and counts the
// client's writes: one per round trip of a pipelined client.
type WriteCounter struct {
	writes atomic.Int64
}

// Writes is how many writes the clients made so far.
func (wc *WriteCounter) Writes() int64 { return wc.writes.Load() }

// CountWrites proxies dbURL's server, for the test's life, and returns the
// counter and dbURL through the proxy.
func CountWrites(t testing.TB, dbURL string) (*WriteCounter, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	wc := &WriteCounter{}
	target := u.Host
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			go func() {
				defer server.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := client.Read(buf)
					if n > 0 {
						wc.writes.Add(1)
						if _, werr := server.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { defer client.Close(); _, _ = io.Copy(client, server) }()
		}
	}()
	u.Host = ln.Addr().String()
	return wc, u.String()
}
