package cli

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// garbageServer answers every connection on 127.0.0.1 with bytes that are
// not HTTP, then closes it.
func garbageServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, 4096)
				_, _ = c.Read(buf)
				_, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6 not http\r\n\r\n"))
				c.Close()
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/"
}

// A load in which every request failed exits 1 and names why, in load and
// in run; before, both exited 0 with "errors 100%".
func TestLoadExitsOneWhenNothingSucceeds(t *testing.T) {
	url := garbageServer(t)
	for _, output := range []string{"text", "json"} {
		env, out, _ := loadEnv()
		err := RunLoad(context.Background(), env, &LoadOptions{URL: url, Users: 2, Duration: 500 * time.Millisecond, Output: output})
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "0 succeeded of") || !strings.Contains(err.Error(), "protocol") {
			t.Fatalf("%s: err %v, want exit 1 naming the protocol errors", output, err)
		}
		if out.Len() == 0 {
			t.Errorf("%s: the summary was not printed before the error", output)
		}
	}
}

// run against a service that answers every request with 404 (a wrong
// URL): it is ready (it answers), yet no request of the load succeeded.
func TestRunExitsOneWhenNothingSucceeds(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	url := srv.URL + "/no-such-page"
	env, out, errb := recEnv(t)
	err := RunRun(context.Background(), env, &RunOptions{Target: url, Users: 2, Duration: 1500 * time.Millisecond,
		Interval: 250 * time.Millisecond, Out: filepath.Join(t.TempDir(), "run"), Output: "text", NoCatalog: true, Quiet: true})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "0 succeeded of") || !strings.Contains(err.Error(), "status (unexpected status 404)") {
		t.Fatalf("err = %v, want exit 1 naming the 404s\n%s\n%s", err, out.String(), errb.String())
	}
}

// load --versus against a side where every request fails compares nothing:
// exit 1 naming the side (it was a comparison of two error rates).
func TestLoadVersusSideWithNoSuccess(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer ok.Close()
	bad := garbageServer(t)
	env, out, errb := testEnv()
	code := runRoot(t, env, "load", ok.URL+"/", "--versus", bad, "-c", "2", "--window", "1s", "-d", "4s", "--warm-up", "300ms", "-q")
	if code != ExitFailure || !strings.Contains(errb.String(), bad+": 0 succeeded of") {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
}
