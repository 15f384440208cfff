package input

// Profiles as inputs: collapsed stacks recognised by their lines, and the
// bytes of a binary recording (JFR) as stored, with only gzip undone.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// collapsedLines is how many stack lines must agree before the head is
// taken for collapsed stacks.
const collapsedLines = 200

// isCollapsed: every line looked at (blank lines and '#' comments aside)
// is "frame;frame;... COUNT" and at least one has a ';'. The head's last
// line is left out when the head is cut mid-line.
func isCollapsed(head []byte) bool {
	if len(head) == HeadLen {
		if i := bytes.LastIndexByte(head, '\n'); i > 0 {
			head = head[:i]
		}
	}
	seen, semis := 0, 0
	for rest := head; len(rest) > 0 && seen < collapsedLines; {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte{'\n'})
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		sp := bytes.LastIndexByte(l, ' ')
		if sp <= 0 || sp == len(l)-1 || l[0] == '{' || l[0] == '<' {
			return false
		}
		for _, c := range l[sp+1:] {
			if c < '0' || c > '9' {
				return false
			}
		}
		if bytes.IndexByte(l[:sp], ';') >= 0 {
			semis++
		}
		seen++
	}
	return semis > 0
}

// OpenBinary reads the input's bytes as stored, gzip undone, without the
// text decoding of Open (a JFR recording is binary: no line ends to undo,
// no line to cut); past MaxBytes a read fails with ErrLimit, and once ctx
// is done with its error.
func (f *File) OpenBinary(ctx context.Context) (io.ReadCloser, error) {
	rc, err := f.raw()
	if err != nil {
		return nil, f.wrap(err)
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	var r io.Reader = br
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, f.wrap(finding.Errorf(finding.T("a damaged gzip file: %v", "损坏的 gzip 文件：%v"), err))
		}
		zr.Multistream(true)
		r = zr
	}
	return struct {
		io.Reader
		io.Closer
	}{&boundedReader{ctx: ctx, r: r, f: f, left: f.lim.MaxBytes}, rc}, nil
}

// boundedReader fails with ErrLimit past left bytes and with ctx's error
// once ctx is done.
type boundedReader struct {
	ctx  context.Context
	r    io.Reader
	f    *File
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.left <= 0 {
		// One byte more tells a file of exactly the limit from a longer one.
		var one [1]byte
		if n, _ := b.r.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, errT(ErrLimit, finding.T("%s: more than %s read; limit --max-input", "%s：读取超过 %s；上限见 --max-input"),
			b.f.Name, units.FormatBytesExact(b.f.lim.MaxBytes))
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}
