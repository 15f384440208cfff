package loadgen

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadResponse(t *testing.T) {
	cases := []struct {
		name, in     string
		head         bool
		status       int
		bodyLen      int64
		close        bool
		body, reason string
		wantErr      bool
	}{
		{name: "content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, bodyLen: 5, body: "hello", reason: "OK"},
		{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: y\r\n\r\n", status: 200, bodyLen: 11, body: "hello world", reason: "OK"},
		{name: "interim 100", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", status: 201, reason: "Created"},
		{name: "http/1.0 to close", in: "HTTP/1.0 404 Not Found\r\n\r\nnot found", status: 404, bodyLen: 9, close: true, body: "not found", reason: "Not Found"},
		{name: "connection close", in: "HTTP/1.1 200 OK\r\nconnection: Close\r\ncontent-length: 2\r\n\r\nok", status: 200, bodyLen: 2, close: true, body: "ok", reason: "OK"},
		{name: "http/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", status: 200, bodyLen: 2, body: "ok", reason: "OK"},
		{name: "head ignores length", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", head: true, status: 200, reason: "OK"},
		{name: "204", in: "HTTP/1.1 204 No Content\r\n\r\n", status: 204, reason: "No Content"},
		{name: "no reason, bare LF", in: "HTTP/1.1 503\nContent-Length: 1\n\nx", status: 503, bodyLen: 1, body: "x"},
		{name: "bad status", in: "HTTP/2 200 OK\r\n\r\n", wantErr: true},
		{name: "conflicting lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", wantErr: true},
		{name: "truncated body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", wantErr: true},
		{name: "bad chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", wantErr: true},
		{name: "101", in: "HTTP/1.1 101 Switching Protocols\r\n\r\n", wantErr: true},
	}
	for _, c := range cases {
		for mode := range 3 {
			oneByte := mode > 0
			var r io.Reader = strings.NewReader(c.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			var starved *starving
			if mode == 2 {
				starved = &starving{r: r}
				r = starved
			}
			rr := newRespReader(r, 64)
			var resp response
			err := rr.readResponse(&resp, c.head, 1024)
			// A non-blocking source: resume where the parser stopped.
			for err == errWouldBlock {
				starved.resumed++
				err = rr.resume(&resp)
			}
			if mode == 2 && starved.resumed < len(c.in)/2 {
				t.Fatalf("%s: resumed %d times for %d bytes", c.name, starved.resumed, len(c.in))
			}
			if (err != nil) != c.wantErr {
				t.Fatalf("%s: err %v", c.name, err)
			}
			if err != nil {
				continue
			}
			if resp.status != c.status || resp.bodyLen != c.bodyLen || resp.close != c.close ||
				string(resp.body) != c.body || string(resp.reason) != c.reason {
				t.Fatalf("%s (one byte %v): %+v", c.name, oneByte, resp)
			}
			if !c.head && resp.nRead != int64(len(c.in)) {
				t.Fatalf("%s: read %d bytes, want %d", c.name, resp.nRead, len(c.in))
			}
		}
	}
}

func TestKeepAliveSequence(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"
	rr := newRespReader(strings.NewReader(in), 32)
	var resp response
	for _, want := range []int{200, 200, 500} {
		if err := rr.readResponse(&resp, false, 0); err != nil || resp.status != want {
			t.Fatalf("status %d err %v, want %d", resp.status, err, want)
		}
	}
	if err := rr.readResponse(&resp, false, 0); err != io.EOF {
		t.Fatalf("after the last response: %v, want EOF", err)
	}
}

func TestHeaderTooLarge(t *testing.T) {
	// The buffer grows for a large header, up to a limit.
	rr := newRespReader(strings.NewReader("HTTP/1.1 200 OK\r\nX: "+strings.Repeat("a", 1000)+"\r\n\r\n"), 64)
	var resp response
	if err := rr.readResponse(&resp, false, 0); err != nil || resp.status != 200 {
		t.Fatalf("err = %v", err)
	}
	rr = newRespReader(strings.NewReader("HTTP/1.1 200 OK\r\nX: "+strings.Repeat("a", maxHeaderBuf)+"\r\n\r\n"), 64)
	if err := rr.readResponse(&resp, false, 0); err != errHeaderTooLarge {
		t.Fatalf("err = %v", err)
	}
}

// starving has no data on every other read, as a non-blocking socket.
type starving struct {
	r       io.Reader
	dry     bool
	resumed int
}

func (s *starving) Read(p []byte) (int, error) {
	if s.dry = !s.dry; s.dry {
		return 0, errWouldBlock
	}
	return s.r.Read(p)
}

func FuzzReadResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), false)
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), false)
	f.Add([]byte("HTTP/1.0 200 OK\r\n\r\nbody"), true)
	f.Fuzz(func(t *testing.T, in []byte, head bool) {
		rr := newRespReader(bytes.NewReader(in), 128)
		// The same bytes a byte at a time from a source that is dry every
		// other read, as the event loop's sockets: the same responses.
		st := &starving{r: iotest.OneByteReader(bytes.NewReader(in))}
		rs := newRespReader(st, 128)
		var resp, resp2 response
		for i := 0; i < 4; i++ {
			err := rr.readResponse(&resp, head, 16)
			err2 := rs.readResponse(&resp2, head, 16)
			for err2 == errWouldBlock {
				err2 = rs.resume(&resp2)
			}
			if (err == nil) != (err2 == nil) {
				t.Fatalf("response %d: blocking %v, resumed %v", i, err, err2)
			}
			if err != nil {
				return
			}
			if resp.status != resp2.status || resp.bodyLen != resp2.bodyLen || resp.close != resp2.close ||
				resp.nRead != resp2.nRead || !bytes.Equal(resp.body, resp2.body) {
				t.Fatalf("response %d: blocking %+v, resumed %+v", i, resp, resp2)
			}
			if resp.status < 200 || resp.status > 999 || resp.bodyLen < 0 || len(resp.body) > 16 || resp.nRead > int64(len(in)) {
				t.Fatalf("bad response %+v", resp)
			}
		}
	})
}

func BenchmarkReadResponse(b *testing.B) {
	in := []byte(okResp)
	r := bytes.NewReader(in)
	rr := newRespReader(r, readBufSize)
	var resp response
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Reset(in)
		rr.reset(r)
		if err := rr.readResponse(&resp, false, 0); err != nil {
			b.Fatal(err)
		}
	}
}
