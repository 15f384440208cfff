package input

// What is undone between the stored bytes and the text a parser reads:
// gzip (1f 8b), a byte-order mark (EF BB BF, FF FE, FE FF), UTF-16 without
// one (PowerShell's `jcmd PID Thread.print > dump.txt` writes UTF-16LE with
// a BOM; some tools write none: every other byte of ASCII text is then 0),
// CRLF line ends, and lines too long to hold.

import (
	"bufio"
	"compress/gzip"
	"context"
	"io"
	"os"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// decode returns the UTF-8 text of r and what was undone to get it.
func decode(r io.Reader) (io.Reader, string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	enc := ""
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", finding.Errorf(finding.T("a damaged gzip file: %v", "损坏的 gzip 文件：%v"), err)
		}
		zr.Multistream(true)
		br = bufio.NewReaderSize(zr, 64<<10)
		enc = "gzip"
	}
	join := func(e string) string {
		if enc == "" {
			return e
		}
		return enc + "+" + e
	}
	head, _ := br.Peek(512)
	switch {
	case len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF:
		br.Discard(3)
		return br, join("utf-8-bom"), nil
	case len(head) >= 2 && head[0] == 0xFF && head[1] == 0xFE:
		br.Discard(2)
		return &utf16Reader{src: br, le: true}, join("utf-16le"), nil
	case len(head) >= 2 && head[0] == 0xFE && head[1] == 0xFF:
		br.Discard(2)
		return &utf16Reader{src: br}, join("utf-16be"), nil
	}
	if le, ok := utf16Guess(head); ok {
		e := "utf-16be"
		if le {
			e = "utf-16le"
		}
		return &utf16Reader{src: br, le: le}, join(e), nil
	}
	return br, enc, nil
}

// utf16Guess recognises UTF-16 text without a BOM: mostly ASCII, so the
// high byte of each unit is 0 while the low byte is not. A run of NUL bytes
// (a sparse file) has zeros at both parities and is not taken for it.
func utf16Guess(b []byte) (le, ok bool) {
	n := len(b) &^ 1
	if n < 16 {
		return false, false
	}
	var zEven, zOdd int
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			zEven++
		}
		if b[i+1] == 0 {
			zOdd++
		}
	}
	units := n / 2
	switch {
	case zOdd*10 >= units*7 && zEven*10 <= units:
		return true, true
	case zEven*10 >= units*7 && zOdd*10 <= units:
		return false, true
	}
	return false, false
}

// utf16Reader decodes UTF-16 into UTF-8; an unpaired surrogate becomes U+FFFD.
type utf16Reader struct {
	src     *bufio.Reader
	le      bool
	out     []byte
	pending rune // a high surrogate waiting for its pair, 0 when none
	err     error
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	if _, err := io.ReadFull(u.src, b[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = io.EOF // an odd trailing byte is dropped
		}
		return 0, err
	}
	if u.le {
		return uint16(b[0]) | uint16(b[1])<<8, nil
	}
	return uint16(b[1]) | uint16(b[0])<<8, nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		buf := u.out[:0]
		for len(buf) < 32<<10 {
			c, err := u.unit()
			if err != nil {
				if u.pending != 0 {
					buf = utf8.AppendRune(buf, utf8.RuneError)
					u.pending = 0
				}
				u.err = err
				break
			}
			r := rune(c)
			switch {
			case u.pending != 0:
				if utf16.IsSurrogate(r) && r >= 0xDC00 {
					buf = utf8.AppendRune(buf, utf16.DecodeRune(u.pending, r))
					u.pending = 0
					continue
				}
				buf = utf8.AppendRune(buf, utf8.RuneError)
				u.pending = 0
				if r >= 0xD800 && r < 0xDC00 {
					u.pending = r
					continue
				}
				buf = utf8.AppendRune(buf, r)
			case r >= 0xD800 && r < 0xDC00:
				u.pending = r
			case utf16.IsSurrogate(r):
				buf = utf8.AppendRune(buf, utf8.RuneError)
			default:
				buf = utf8.AppendRune(buf, r)
			}
		}
		u.out = buf
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// ctxFile is a file on disk whose reads stop once ctx is done (a read of a
// regular file returns within microseconds, so checking before each is enough).
type ctxFile struct {
	ctx context.Context
	f   *os.File
}

func (c ctxFile) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.f.Read(p)
}

func (c ctxFile) Close() error { return c.f.Close() }

// ContextReader ends a stream with ctx's error once ctx is done: for
// decoders that take no context of their own (a file may decompress to
// tens of GB, or be a FIFO fed forever).
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// replay reads a stream (stdin, a pipe, a FIFO) once, in a goroutine that
// ctx can abandon while it sits in read(2), and keeps the first max bytes so
// the input can be opened again from the start.
type replay struct {
	ctx context.Context
	max int64

	mu      sync.Mutex
	buf     []byte
	full    bool // more than max bytes were read: no new open may replay
	readers int

	chunks chan []byte
	errc   chan error
	err    error // the stream's end (io.EOF) or failure, once seen
	start  sync.Once
	src    io.Reader
}

func newReplay(ctx context.Context, r io.Reader, max int64) *replay {
	return &replay{ctx: ctx, max: max, src: r, chunks: make(chan []byte, 4), errc: make(chan error, 1)}
}

func (rp *replay) pump() {
	for {
		b := make([]byte, 64<<10)
		n, err := rp.src.Read(b)
		if n > 0 {
			select {
			case rp.chunks <- b[:n]:
			case <-rp.ctx.Done():
				return
			}
		}
		if err != nil {
			rp.errc <- err
			close(rp.chunks)
			return
		}
	}
}

func (rp *replay) open() (io.ReadCloser, error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.full {
		return nil, finding.Errorf(finding.T("more than %s arrived on a stream that has to be read twice: save it to a file first",
			"流中的数据超过 %s 且需要读取两次：请先保存为文件"), units.FormatBytesExact(rp.max))
	}
	rp.start.Do(func() { go rp.pump() })
	rp.readers++
	return &replayReader{rp: rp}, nil
}

type replayReader struct {
	rp       *replay
	pos      int64
	detached bool   // went on past the replay buffer, alone
	left     []byte // the rest of a chunk read past the buffer
}

func (r *replayReader) Read(p []byte) (int, error) {
	if len(r.left) > 0 {
		n := copy(p, r.left)
		r.left = r.left[n:]
		return n, nil
	}
	rp := r.rp
	rp.mu.Lock()
	if !r.detached && r.pos < int64(len(rp.buf)) {
		n := copy(p, rp.buf[r.pos:])
		r.pos += int64(n)
		rp.mu.Unlock()
		return n, nil
	}
	if rp.err != nil {
		err := rp.err
		rp.mu.Unlock()
		return 0, err
	}
	if rp.full && !r.detached {
		rp.mu.Unlock()
		return 0, errT(nil, finding.T("the stream went on without this reader: save it to a file first", "数据流已被另一读取者消费：请先保存为文件"))
	}
	rp.mu.Unlock()
	select {
	case b, ok := <-rp.chunks:
		rp.mu.Lock()
		defer rp.mu.Unlock()
		if !ok {
			if rp.err == nil {
				rp.err = <-rp.errc
			}
			return 0, rp.err
		}
		if !rp.full && int64(len(rp.buf)+len(b)) <= rp.max {
			rp.buf = append(rp.buf, b...)
			n := copy(p, rp.buf[r.pos:])
			r.pos += int64(n)
			return n, nil
		}
		if !r.detached {
			rp.full, r.detached = true, true
			b = append(rp.buf[r.pos:], b...) // what this reader had not yet seen
			rp.buf = nil
		}
		n := copy(p, b)
		r.left = b[n:]
		return n, nil
	case <-rp.ctx.Done():
		return 0, rp.ctx.Err()
	}
}

func (r *replayReader) Close() error { return nil }

// lineReader passes text on line by line: CRLF becomes LF, a line longer
// than MaxLine is cut there (the rest is read and dropped, never held),
// and more than MaxBytes consumed ends with ErrLimit naming the file.
type lineReader struct {
	ctx      context.Context
	src      *bufio.Reader
	f        *File
	lim      Limits
	sniffing bool // reading Head: stop quietly after sniffMax bytes

	out      []byte
	consumed int64
	longs    int
	skipping bool // inside a line already cut
	lineLen  int  // bytes of the current line passed on so far
	err      error
}

// sniffMax bounds what Head costs: a hole of NULs or one endless line is
// not read to the end just to name the format.
const sniffMax = 16 << 20

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.fill()
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	return n, nil
}

func (l *lineReader) fill() {
	if err := l.ctx.Err(); err != nil {
		l.err = err
		return
	}
	chunk, err := l.src.ReadSlice('\n')
	l.consumed += int64(len(chunk))
	if l.consumed > l.lim.MaxBytes {
		l.err = errT(ErrLimit, finding.T("%s: more than %s read; limit --max-input", "%s：读取超过 %s；上限见 --max-input"),
			l.f.Name, units.FormatBytesExact(l.lim.MaxBytes))
		return
	}
	if l.sniffing && l.consumed > sniffMax {
		l.err = io.EOF
		return
	}
	full := err == bufio.ErrBufferFull
	if err != nil && !full && err != io.EOF {
		l.err = err
		if l.f != nil {
			l.err = l.f.wrap(err)
		}
		return
	}
	eol := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
	if eol {
		chunk = chunk[:len(chunk)-1]
		if n := len(chunk); n > 0 && chunk[n-1] == '\r' {
			chunk = chunk[:n-1]
		}
	}
	if !l.skipping {
		room := l.lim.MaxLine - l.lineLen
		if len(chunk) > room {
			chunk = chunk[:max(room, 0)]
			l.skipping = true
			l.longs++
		}
		l.out = append(l.out[:0], chunk...)
		l.lineLen += len(chunk)
	} else {
		l.out = l.out[:0]
	}
	if eol {
		l.out = append(l.out, '\n')
		l.skipping = false
		l.lineLen = 0
	}
	if err == io.EOF {
		l.err = io.EOF
		if !l.sniffing && l.f != nil {
			l.f.longs = l.longs
			l.f.size = l.consumed
		}
	}
}
