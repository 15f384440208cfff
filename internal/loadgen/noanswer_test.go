package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// stallServer accepts connections on 127.0.0.1 and hands each to serve after
// reading the request head; it closes every connection at cleanup.
func stallServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				br := bufio.NewReader(c)
				for {
					l, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if l == "\r\n" {
						break
					}
				}
				serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String() + "/"
}

// silent accepts and never answers.
func silent(c net.Conn) { _, _ = c.Read(make([]byte, 1)) }

// endlessChunked answers with a chunked body that never ends.
func endlessChunked(c net.Conn) {
	if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")); err != nil {
		return
	}
	for {
		if _, err := c.Write([]byte("4\r\nabcd\r\n")); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// endlessBody announces 2 GB and sends it slowly.
func endlessBody(c net.Conn) {
	if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n")); err != nil {
		return
	}
	buf := bytes.Repeat([]byte("x"), 4096)
	for {
		if _, err := c.Write(buf); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoAnswerIsAnError: against servers that never complete a response,
// the summary says 0 completed of N sent, why, and NoAnswer is an error;
// no longer "requests 0, errors 0 (0.00%)" as a clean run.
func TestNoAnswerIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		serve  func(net.Conn)
		inBody bool
		want   string
	}{
		{"silent", silent, false, "never answered"},
		{"endless-chunked", endlessChunked, true, "never ended"},
		{"endless-body", endlessBody, true, "never ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bothEngines(t, func(t *testing.T, engine func(*Config)) {
				url := stallServer(t, tc.serve)
				cfg := Config{Users: 4, Duration: time.Second, Requests: []Request{{URL: url}}}
				engine(&cfg)
				s, err := Generate(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if s.Requests != 0 || s.Aborted != 4 {
					t.Fatalf("requests %d aborted %d, want 0 and 4", s.Requests, s.Aborted)
				}
				if tc.inBody != (s.AbortedInBody == 4) {
					t.Errorf("aborted in body %d (in body: %v)", s.AbortedInBody, tc.inBody)
				}
				err = s.NoAnswer()
				if err == nil || !strings.Contains(err.Error(), "0 completed of 4 sent") || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("NoAnswer = %v", err)
				}
				var b strings.Builder
				if err := WriteText(&b, s, finding.EN); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(b.String(), "ERROR: 0 completed of 4 sent") {
					t.Errorf("text:\n%s", b.String())
				}
			})
		})
	}
}

// TestOpenModelBlamesTheServer: at a rate a silent server cannot hold, the
// open model says the server is not answering, not that the generator fell
// behind.
func TestOpenModelBlamesTheServer(t *testing.T) {
	bothEngines(t, func(t *testing.T, engine func(*Config)) {
		url := stallServer(t, silent)
		cfg := Config{Rate: 200, Connections: 4, Duration: time.Second, Requests: []Request{{URL: url}}}
		engine(&cfg)
		s, err := Generate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.Open == nil || s.Open.Behind != "server" {
			t.Fatalf("open stats %+v, want behind=server", s.Open)
		}
		var b strings.Builder
		_ = WriteText(&b, s, finding.EN)
		if !strings.Contains(b.String(), "the server is not answering") || strings.Contains(b.String(), "generator fell behind") {
			t.Errorf("text:\n%s", b.String())
		}
	})
}

// TestPartialAnswerCountsInFlight: a run where some requests completed
// still says how many never did.
func TestPartialAnswerCountsInFlight(t *testing.T) {
	var n sync.Mutex
	count := 0
	url := stallServer(t, func(c net.Conn) {
		n.Lock()
		count++
		first := count == 1
		n.Unlock()
		if first {
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
			c.Close()
			return
		}
		silent(c)
	})
	s, err := Generate(context.Background(), Config{Users: 2, Duration: time.Second, Requests: []Request{{URL: url}}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 1 || s.Aborted != 2 || s.NoAnswer() != nil {
		t.Fatalf("requests %d aborted %d noanswer %v", s.Requests, s.Aborted, s.NoAnswer())
	}
	var b strings.Builder
	_ = WriteText(&b, s, finding.EN)
	if !strings.Contains(b.String(), "2 of 3 sent were still in flight at the end (2 without any response byte") {
		t.Errorf("text:\n%s", b.String())
	}
}
