package loadgen

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Servers on 127.0.0.1 that answer every request, but never with a success.
func garbageAnswer(c net.Conn) {
	_, _ = c.Write([]byte("\x00\x01garbage that is not HTTP at all\r\n\r\n"))
	c.Close()
}

func badStatusLine(c net.Conn) {
	_, _ = c.Write([]byte("HTTP/1.1 OK-ish\r\nContent-Length: 0\r\n\r\n"))
	c.Close()
}

func resetEach(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close sends RST
	}
	c.Close()
}

func serverError(c net.Conn) {
	for {
		if _, err := c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")); err != nil {
			return
		}
		buf := make([]byte, 4096) // the next request's head (keep-alive)
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// TestNoSuccessIsAnError: a load where every request failed is not a
// measurement: NoSuccess names the error classes, the text says ERROR, and
// (with the CLI) the exit is 1. Before, such runs printed "errors 100%" and
// NoAnswer stayed nil because some requests had "completed" as errors.
func TestNoSuccessIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		serve   func(net.Conn)
		timeout time.Duration
		want    string
	}{
		{"garbage", garbageAnswer, 0, "protocol"},
		{"bad-status-line", badStatusLine, 0, "protocol"},
		{"reset", resetEach, 0, "connection_reset"},
		{"silent-past-timeout", silent, 150 * time.Millisecond, "timeout"},
		{"503", serverError, 0, "status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bothEngines(t, func(t *testing.T, engine func(*Config)) {
				url := stallServer(t, tc.serve)
				cfg := Config{Users: 2, Duration: 700 * time.Millisecond, Timeout: tc.timeout, Requests: []Request{{URL: url}}}
				engine(&cfg)
				s, err := Generate(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if s.Requests == 0 || s.Errors != s.Requests {
					t.Fatalf("requests %d errors %d: want every request failed", s.Requests, s.Errors)
				}
				err = s.NoSuccess()
				if err == nil || !strings.Contains(err.Error(), "0 succeeded of") || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("NoSuccess = %v, want 0 succeeded naming %s", err, tc.want)
				}
				zh := finding.Localize(err, finding.ZH)
				if !strings.Contains(zh, "成功 0 个") {
					t.Errorf("Chinese: %s", zh)
				}
				var b strings.Builder
				if err := WriteText(&b, s, finding.EN); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(b.String(), "ERROR: 0 succeeded of") {
					t.Errorf("text:\n%s", b.String())
				}
			})
		})
	}
}

// TestSomeSuccessIsNotAnError: one good answer among failures is a
// measurement (with errors), not a failed load.
func TestSomeSuccessIsNotAnError(t *testing.T) {
	done := make(chan struct{}, 1)
	url := stallServer(t, func(c net.Conn) {
		select {
		case done <- struct{}{}:
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
			c.Close()
			return
		default:
		}
		garbageAnswer(c)
	})
	s, err := Generate(context.Background(), Config{Users: 1, Duration: 500 * time.Millisecond, Requests: []Request{{URL: url}}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Errors == 0 || s.Errors == s.Requests {
		t.Fatalf("requests %d errors %d: want a mix", s.Requests, s.Errors)
	}
	if err := s.NoSuccess(); err != nil {
		t.Errorf("NoSuccess = %v with %d of %d succeeded", err, s.Requests-s.Errors, s.Requests)
	}
}
