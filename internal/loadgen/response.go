// The HTTP/1.1 response reader of the load client. Sample input:
//
//	HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Type: text/html\r\nContent-Length: 100\r\nConnection: keep-alive\r\n\r\n<100 bytes>
//	HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n
//	HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n
//	HTTP/1.0 404 Not Found\r\nConnection: close\r\n\r\nnot found
//
// It handles what a load generator meets: Content-Length, chunked bodies with
// trailers, read-to-close bodies, HEAD/204/304 without bodies, interim 1xx
// responses, and keep-alive versus Connection: close. It never converts to
// strings so a keep-alive request costs no allocation.

package loadgen

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/tuneloop/tuneloop/internal/units"
)

// Protocol errors; static values so the hot path does not allocate.
var (
	errHeaderTooLarge = errors.New("response header too large")
	errBadStatusLine  = errors.New("malformed HTTP status line")
	errBadHeader      = errors.New("malformed HTTP header line")
	errBadLength      = errors.New("malformed Content-Length")
	errBadChunk       = errors.New("malformed chunked body")
	errSwitching      = errors.New("server switched protocols (101), not supported")
	errTooManyInterim = errors.New("too many 1xx interim responses")
)

const (
	maxInterim   = 8        // 1xx responses tolerated before the final one
	maxHeaderBuf = 64 << 10 // the read buffer grows to this for large headers
)

// response is the part of a response the load generator keeps. reason and
// body alias reader-owned buffers: valid until the next readResponse.
type response struct {
	status  int
	reason  []byte
	bodyLen int64
	close   bool   // the server will close the connection after this response
	body    []byte // captured prefix of the body when capture > 0
	nRead   int64  // bytes read from the wire for this response (JMeter "bytes")
}

// respReader reads responses from one connection into one reused buffer.
// Parsing is a resumable state machine: when the source has no bytes yet
// (errWouldBlock, from a non-blocking socket in the event loop) resume
// returns it and carries on from the same place on the next call, so the
// blocking client and the event loop share one parser.
type respReader struct {
	r          io.Reader
	buf        []byte // read buffer; buf[start:end] is unread
	start, end int
	reasonBuf  [64]byte
	bodyBuf    []byte    // capture buffer, reused
	gotByte    bool      // at least one byte arrived for the current response
	firstByte  time.Time // when it arrived
	// sink, when set, takes body bytes nobody keeps: larger than buf
	// (shared by an event loop's connections), so a large body takes
	// fewer reads.
	sink []byte
	// now, when set, is when the source was found readable (the event
	// loop's clock read for a batch of sockets): the first byte's time
	// without a clock read of its own.
	now time.Time
	// fills counts reads during the current response; with firstInFill
	// (the first byte came from a read, not from leftovers) and one fill,
	// the whole response arrived in that read: its end is firstByte too.
	fills       int
	firstInFill bool
	lineLen     int64 // bytes the last line took, terminator included

	// parser state of the current response
	st      parseState
	head    bool  // a HEAD request: no body
	capture int   // body bytes to keep
	left    int64 // body or chunk bytes still to come (-1: until EOF)
	interim int   // 1xx responses seen
	chunked bool
	http10  bool
}

type parseState uint8

const (
	stStatus parseState = iota
	stHeader
	stBody      // left bytes (or to EOF when left < 0)
	stChunkSize // a chunk-size line
	stChunkData // left bytes of a chunk
	stChunkEnd  // the CRLF after a chunk
	stTrailer   // trailer lines up to the blank line
	stDone
)

// errWouldBlock: the source has no bytes now; resume later.
var errWouldBlock = errors.New("no data yet")

func newRespReader(r io.Reader, size int) *respReader {
	return &respReader{r: r, buf: make([]byte, size)}
}

// reset forgets buffered bytes, for a new connection.
func (rr *respReader) reset(r io.Reader) { rr.r, rr.start, rr.end = r, 0, 0 }

// fill reads more bytes, compacting first. A header larger than the buffer
// grows it, up to maxHeaderBuf.
func (rr *respReader) fill() error {
	if rr.start > 0 {
		n := copy(rr.buf, rr.buf[rr.start:rr.end])
		rr.start, rr.end = 0, n
	}
	if rr.end == len(rr.buf) {
		// A header larger than the buffer: grow, within reason.
		if len(rr.buf) >= maxHeaderBuf {
			return errHeaderTooLarge
		}
		nb := make([]byte, min(2*len(rr.buf), maxHeaderBuf))
		copy(nb, rr.buf[:rr.end])
		rr.buf = nb
	}
	for i := 0; i < 100; i++ {
		n, err := rr.r.Read(rr.buf[rr.end:])
		if n > 0 {
			rr.end += n
			rr.fills++
			if !rr.gotByte {
				rr.gotByte = true
				rr.firstByte = rr.now
				if rr.now.IsZero() {
					rr.firstByte = time.Now()
				}
				rr.firstInFill = true
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// line returns the next line without its CR LF. The slice aliases buf and is
// valid until the next fill. Nothing is consumed until a whole line is there.
func (rr *respReader) line() ([]byte, error) {
	for {
		if i := bytes.IndexByte(rr.buf[rr.start:rr.end], '\n'); i >= 0 {
			l := rr.buf[rr.start : rr.start+i]
			rr.start += i + 1
			rr.lineLen = int64(i + 1)
			if n := len(l); n > 0 && l[n-1] == '\r' {
				l = l[:n-1]
			}
			return l, nil
		}
		if err := rr.fill(); err != nil {
			if err == io.EOF && rr.start < rr.end {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// readResponse reads one complete response from a blocking source. head is
// true for HEAD requests (no body whatever the headers say); capture > 0
// keeps up to capture body bytes in resp.body for assertions.
func (rr *respReader) readResponse(resp *response, head bool, capture int) error {
	rr.begin(resp, head, capture)
	return rr.resume(resp)
}

// begin starts reading a response; resume does the reading.
func (rr *respReader) begin(resp *response, head bool, capture int) {
	rr.gotByte = rr.start < rr.end
	rr.fills, rr.firstInFill = 0, false
	if rr.gotByte {
		rr.firstByte = time.Now()
	}
	resp.body = rr.bodyBuf[:0]
	resp.nRead = 0
	rr.st, rr.head, rr.capture, rr.interim = stStatus, head, capture, 0
}

// resume parses until the response is complete (nil), the source has
// nothing more for now (errWouldBlock: call again when it has), or an error.
func (rr *respReader) resume(resp *response) error {
	for {
		var err error
		switch rr.st {
		case stStatus:
			err = rr.statusLine(resp)
		case stHeader:
			err = rr.headerLine(resp)
		case stBody:
			err = rr.consume(resp)
			if err == nil {
				rr.st = stDone
			}
		case stChunkSize:
			err = rr.chunkSize(resp)
		case stChunkData:
			if err = rr.consume(resp); err == nil {
				rr.st = stChunkEnd
			}
		case stChunkEnd:
			var l []byte
			if l, err = rr.line(); err == nil {
				if len(l) != 0 {
					return errBadChunk
				}
				resp.nRead += rr.lineLen
				rr.st = stChunkSize
			} else if err == io.EOF {
				err = errBadChunk
			}
		case stTrailer:
			var l []byte
			if l, err = rr.line(); err == nil {
				resp.nRead += rr.lineLen
				if len(l) == 0 {
					rr.st = stDone
				}
			}
		case stDone:
			return nil
		}
		if err != nil {
			if err == io.EOF && rr.st != stStatus {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
}

// statusLine parses "HTTP/1.1 200 OK": version, three-digit code, optional reason.
func (rr *respReader) statusLine(resp *response) error {
	l, err := rr.line()
	if err != nil {
		return err
	}
	if len(l) < 12 || !bytes.HasPrefix(l, []byte("HTTP/1.")) || l[8] != ' ' {
		return errBadStatusLine
	}
	c0, c1, c2 := l[9], l[10], l[11]
	if c0 < '1' || c0 > '9' || c1 < '0' || c1 > '9' || c2 < '0' || c2 > '9' || (len(l) > 12 && l[12] != ' ') {
		return errBadStatusLine
	}
	resp.nRead += rr.lineLen
	resp.status = int(c0-'0')*100 + int(c1-'0')*10 + int(c2-'0')
	var reason []byte
	if len(l) > 13 {
		reason = l[13:]
	}
	resp.reason = rr.reasonBuf[:copy(rr.reasonBuf[:], reason)]
	rr.http10 = l[7] == '0'
	resp.close = rr.http10
	resp.bodyLen = -1
	rr.chunked = false
	rr.st = stHeader
	return nil
}

// headerLine takes one header line; the blank line ends the header and
// decides how the body is delimited.
func (rr *respReader) headerLine(resp *response) error {
	l, err := rr.line()
	if err != nil {
		return err
	}
	resp.nRead += rr.lineLen
	if len(l) == 0 {
		return rr.endHeader(resp)
	}
	colon := bytes.IndexByte(l, ':')
	if colon <= 0 {
		return errBadHeader
	}
	// Only three headers matter, and each is told by its length and first
	// letter: the others (Date, Server, ETag...) are skipped untrimmed.
	name := l[:colon]
	if c := lower(name[0]); (c != 'c' || colon != 14 && colon != 10) && (c != 't' || colon != 17) {
		return nil
	}
	value := bytes.TrimSpace(l[colon+1:])
	switch {
	case equalFold(name, "content-length"):
		n, ok := parseDecimal(value)
		if !ok || (resp.bodyLen >= 0 && resp.bodyLen != n) {
			return errBadLength
		}
		resp.bodyLen = n
	case equalFold(name, "transfer-encoding"):
		// Only the last coding matters; anything ending in chunked is chunked.
		rr.chunked = hasSuffixFold(value, "chunked")
	case equalFold(name, "connection"):
		if containsFold(value, "close") {
			resp.close = true
		} else if rr.http10 && containsFold(value, "keep-alive") {
			resp.close = false
		}
	}
	return nil
}

func (rr *respReader) endHeader(resp *response) error {
	if resp.status < 200 {
		if resp.status == 101 {
			return errSwitching
		}
		if rr.interim++; rr.interim > maxInterim {
			return errTooManyInterim
		}
		rr.st = stStatus
		return nil
	}
	n := resp.bodyLen
	if rr.chunked {
		n = -2 // chunked wins over Content-Length (RFC 9112 6.3)
	}
	resp.bodyLen = 0
	switch {
	case rr.head || resp.status == 204 || resp.status == 304:
		rr.st = stDone
	case n == -2:
		rr.st = stChunkSize
	case n == -1:
		resp.close = true
		rr.left, rr.st = -1, stBody
	default:
		rr.left, rr.st = n, stBody
	}
	return nil
}

func (rr *respReader) chunkSize(resp *response) error {
	l, err := rr.line()
	if err != nil {
		return err
	}
	resp.nRead += rr.lineLen
	if i := bytes.IndexByte(l, ';'); i >= 0 {
		l = l[:i] // chunk extensions are ignored
	}
	// Leading zeros are allowed (RFC 9112); 60 bits is far beyond any body.
	v, ok := units.ParseHex(bytes.TrimSpace(l))
	if !ok || v >= 1<<60 {
		return errBadChunk
	}
	size := int64(v)
	if size == 0 {
		rr.st = stTrailer
	} else {
		rr.left, rr.st = size, stChunkData
	}
	return nil
}

// consume reads rr.left body bytes (rr.left < 0: until EOF), keeping up to
// rr.capture bytes; rr.left counts down so a resumed call goes on.
func (rr *respReader) consume(resp *response) error {
	idle := 0
	for rr.left != 0 {
		if rr.start == rr.end && len(rr.sink) > len(rr.buf) && len(resp.body) >= rr.capture && (rr.left < 0 || rr.left > int64(len(rr.buf))) {
			// Bytes nobody reads: straight into the sink, never past the body.
			rr.start, rr.end = 0, 0
			p := rr.sink
			if rr.left > 0 && rr.left < int64(len(p)) {
				p = p[:rr.left]
			}
			n, err := rr.r.Read(p)
			if n > 0 {
				rr.fills++
				resp.bodyLen += int64(n)
				resp.nRead += int64(n)
				if rr.left > 0 {
					rr.left -= int64(n)
				}
				continue
			}
			if err == io.EOF && rr.left < 0 {
				return nil
			}
			if err == nil {
				if idle++; idle < 100 {
					continue // interrupted: again, as fill does
				}
				err = io.ErrNoProgress
			}
			return err
		}
		if rr.start == rr.end {
			rr.start, rr.end = 0, 0
			err := rr.fill()
			if err == io.EOF && rr.left < 0 {
				return nil
			}
			if err != nil {
				return err
			}
		}
		avail := int64(rr.end - rr.start)
		if rr.left >= 0 && avail > rr.left {
			avail = rr.left
		}
		chunk := rr.buf[rr.start : rr.start+int(avail)]
		if room := rr.capture - len(resp.body); room > 0 {
			if room > len(chunk) {
				room = len(chunk)
			}
			resp.body = append(resp.body, chunk[:room]...)
			rr.bodyBuf = resp.body
		}
		rr.start += int(avail)
		resp.bodyLen += avail
		resp.nRead += avail
		if rr.left > 0 {
			rr.left -= avail
		}
	}
	return nil
}

func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFold compares ASCII case-insensitively; lowerName must be lower case.
func equalFold(b []byte, lowerName string) bool {
	if len(b) != len(lowerName) {
		return false
	}
	for i := range b {
		if lower(b[i]) != lowerName[i] {
			return false
		}
	}
	return true
}

func hasSuffixFold(b []byte, lowerSuffix string) bool {
	return len(b) >= len(lowerSuffix) && equalFold(b[len(b)-len(lowerSuffix):], lowerSuffix)
}

func containsFold(b []byte, lowerWord string) bool {
	for i := 0; i+len(lowerWord) <= len(b); i++ {
		if equalFold(b[i:i+len(lowerWord)], lowerWord) {
			return true
		}
	}
	return false
}
