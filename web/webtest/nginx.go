package webtest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
)

// NginxBinary is Debian's nginx, which `make test` installs.
const NginxBinary = "/usr/sbin/nginx"

// StartNginx runs a real nginx in front of upstream (http://host:port) for
// the rest of the test, configured as the README's reverse-proxy recipe
// forwards (X-Forwarded-For, X-Forwarded-Proto, Host), and returns its URL.
func StartNginx(t testing.TB, upstream string) string {
	t.Helper()
	if _, err := os.Stat(NginxBinary); err != nil {
		t.Fatalf("%s is missing: `make test` installs nginx (apt-get install nginx)", NginxBinary)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	dir := t.TempDir()
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // the workers write the test's temporary directories
	}
	conf := fmt.Sprintf(`%s
daemon off;
master_process off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    server {
        listen %[3]s;
        location / {
            proxy_pass %[4]s;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
        }
    }
}
`, user, dir, addr, strings.TrimSuffix(upstream, "/"))
	path := filepath.Join(dir, "nginx.conf")
	require.NoError(t, os.WriteFile(path, []byte(conf), 0o600))
	cmd := exec.Command(NginxBinary, "-p", dir, "-c", path)
	var logs testbin.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	url := "http://" + addr
	require.Eventually(t, func() bool {
		res, err := http.Get(url + "/healthz")
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return true
	}, 10*time.Second, 20*time.Millisecond, "nginx did not start: %s", logs.String())
	return url
}
