package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// nginxServer starts nginx on 127.0.0.1 in the foreground (one process, no
// master) with an access log, and returns its URL and the log's path. It
// keeps nginx's default keepalive_requests (1000 per connection, then a
// close), which the client must ride through. .ci/run installs nginx.
func nginxServer(t *testing.T) (url, accessLog string) {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx not installed in CI (.ci/run installs nginx-light)")
		}
		t.Skip("nginx not on PATH (Debian: apt-get install nginx-light)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	accessLog = filepath.Join(dir, "access.log")
	conf := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
  access_log %[2]s;
  client_body_temp_path %[1]s; proxy_temp_path %[1]s; fastcgi_temp_path %[1]s; uwsgi_temp_path %[1]s; scgi_temp_path %[1]s;
  server {
    listen 127.0.0.1:%[3]d;
    location / { return 200 "ok\n"; }
    location /slow { return 503; }
  }
}
`, dir, accessLog, port)
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", cf, "-p", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(end) {
			t.Fatalf("nginx did not start: %s", stderr.String())
		}
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port), accessLog
}

// accessCount waits until nginx has logged at least want requests (it
// writes the line after the response) and returns the count.
func accessCount(t *testing.T, path string, want int64) int64 {
	t.Helper()
	var n int64
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if n = int64(bytes.Count(b, []byte("\n"))); n >= want {
			break
		}
	}
	time.Sleep(50 * time.Millisecond) // anything beyond want shows too
	b, _ := os.ReadFile(path)
	return int64(bytes.Count(b, []byte("\n")))
}

// nginx counts exactly what we count, across its keep-alive limit (1000
// requests per connection, then it closes), on both closed-model engines.
func TestClosedCountMatchesNginx(t *testing.T) { bothEngines(t, testClosedCountMatchesNginx) }

func testClosedCountMatchesNginx(t *testing.T, engine func(*Config)) {
	url, log := nginxServer(t)
	cfg := Config{Requests: []Request{{URL: url + "/a"}, {URL: url + "/slow", Label: "503", ExpectStatus: []int{503}}},
		Users: 8, MaxRequests: 12000, Timeout: 5 * time.Second} // 1,500 per connection
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 12000 || s.Errors != 0 {
		t.Fatalf("requests %d errors %d %v", s.Requests, s.Errors, s.ErrorKinds)
	}
	if n := accessCount(t, log, 12000); n != 12000 {
		t.Fatalf("nginx logged %d requests, we counted %d", n, s.Requests)
	}
	if s.StatusCodes["200"]+s.StatusCodes["503"] != 12000 || s.StatusCodes["503"] == 0 {
		t.Fatalf("status codes %v", s.StatusCodes)
	}
}

// The open model against nginx: every scheduled send is sent and logged.
func TestOpenCountMatchesNginx(t *testing.T) {
	url, log := nginxServer(t)
	s, err := Generate(context.Background(), Config{Requests: []Request{{URL: url + "/"}}, Rate: 2000, Connections: 20, MaxRequests: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 3000 || s.Errors != 0 || s.Open.Sent != 3000 || s.Open.Missed != 0 {
		t.Fatalf("requests %d errors %d open %+v", s.Requests, s.Errors, s.Open)
	}
	if n := accessCount(t, log, 3000); n != 3000 {
		t.Fatalf("nginx logged %d requests, we counted %d", n, s.Requests)
	}
}
