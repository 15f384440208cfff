// Package input is how evidence files are opened: a path or "-" (stdin) is
// checked (a directory or a device is refused, naming the file), undone
// (gzip by its magic bytes, every entry of a zip archive as an input of its
// own, UTF-16 with or without a byte-order mark, a UTF-8 BOM, CRLF line
// ends) and read within limits (bytes, line length) that name the file and
// the limit when they are hit. Every read checks its context, so Ctrl-C ends
// any command within a second, even on a FIFO nobody writes.
//
// Detect names what a file holds from its first bytes, so a command can
// refuse what it cannot read with a message that says what it saw.
package input

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Limits bound what one input may cost.
type Limits struct {
	// MaxBytes is the most text read from one input after decompression
	// and decoding; past it a read fails with ErrLimit.
	MaxBytes int64
	// MaxLine is the longest line passed on; a longer line is cut there,
	// the rest skipped without being held, and counted (File.LongLines).
	MaxLine int
	// MaxEntries is the most entries taken from one zip archive.
	MaxEntries int
}

// DefaultLimits: 2 GiB of text per input (a day of a busy GC log is tens of
// MB; a thread dump of 10,000 threads is about 20 MB), 1 MiB lines (the
// longest real line, a JVM command line, is tens of KB), 1,000 zip entries.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 2 << 30, MaxLine: 1 << 20, MaxEntries: 1000}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxLine <= 0 {
		l.MaxLine = d.MaxLine
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	return l
}

// ErrLimit is wrapped by a read that passed Limits.MaxBytes.
var ErrLimit = errors.New("input limit reached")

// ErrNotFile is wrapped when a path names a directory, a device or a socket.
var ErrNotFile = errors.New("not a regular file")

// HeadLen is how much decoded text File.Head holds for Detect.
const HeadLen = 256 << 10

// File is one input: a file, stdin, or one entry of a zip archive.
type File struct {
	// Name is what the user gave ("stdin" for "-"; "a.zip!dir/x.log" for an
	// entry of a zip archive): every message about the input uses it.
	Name string
	// Encoding says what was undone to read it: "gzip", "utf-16le",
	// "gzip+utf-16be", "utf-8-bom"; "" for plain UTF-8 or ASCII.
	Encoding string
	// Head is the first HeadLen bytes of the decoded text.
	Head []byte
	// Format is Detect(Head, Name).
	Format Format

	lim     Limits
	raw     func() (io.ReadCloser, error) // the bytes as stored, from the start
	longs   int
	size    int64
	cleanup func()
}

// LongLines counts the lines cut at Limits.MaxLine in the last complete read.
func (f *File) LongLines() int { return f.longs }

// Size is the decoded size read by the last complete read.
func (f *File) Size() int64 { return f.size }

// Close releases what Open holds (nothing for a file on disk).
func (f *File) Close() error {
	if f.cleanup != nil {
		f.cleanup()
		f.cleanup = nil
	}
	return nil
}

// Open reads the decoded text from the start: UTF-8 with LF line ends,
// lines cut at MaxLine, failing with ErrLimit past MaxBytes and with ctx's
// error once ctx is done. It may be called more than once (a GC log set is
// read twice: once to order the files); stdin is replayed from memory.
func (f *File) Open(ctx context.Context) (io.ReadCloser, error) {
	rc, err := f.raw()
	if err != nil {
		return nil, f.wrap(err)
	}
	r, _, err := decode(rc)
	if err != nil {
		rc.Close()
		return nil, f.wrap(err)
	}
	lr := &lineReader{ctx: ctx, src: bufio.NewReaderSize(r, 64<<10), f: f, lim: f.lim}
	return struct {
		io.Reader
		io.Closer
	}{lr, rc}, nil
}

func (f *File) wrap(err error) error {
	if err == nil {
		return nil
	}
	var fe *finding.Error
	if errors.As(err, &fe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s: %w", f.Name, err)
}

// Open opens one input; a zip archive must hold exactly one file (use
// OpenAll for archives of several).
func Open(ctx context.Context, path string, lim Limits) (*File, error) {
	fs, err := OpenAll(ctx, path, lim)
	if err != nil {
		return nil, err
	}
	if len(fs) != 1 {
		for _, f := range fs {
			f.Close()
		}
		return nil, finding.Errorf(finding.T("%s: a zip archive of %d files: give them one by one or use OpenAll",
			"%s：包含 %d 个文件的 zip 归档：请逐个给出"), path, len(fs))
	}
	return fs[0], nil
}

// OpenAll opens a path or "-" (stdin): one File, or one per file in a zip
// archive (directories in it skipped). Stdin and pipes are read once and
// replayed from memory for a second read.
func OpenAll(ctx context.Context, path string, lim Limits) ([]*File, error) {
	return openAll(ctx, path, lim, os.Stdin)
}

// OpenReader is OpenAll for a stream already open (stdin in tests): r is
// read once, in a goroutine abandoned when ctx ends.
func OpenReader(ctx context.Context, name string, r io.Reader, lim Limits) (*File, error) {
	lim = lim.withDefaults()
	f := &File{Name: name, lim: lim}
	rp := newReplay(ctx, r, replayMax(lim))
	f.raw = rp.open
	if err := f.sniff(ctx); err != nil {
		return nil, err
	}
	return f, nil
}

// OpenStream is OpenReader that also takes a zip archive (each entry an
// input, read into memory up to the replay bound): what stdin may carry.
func OpenStream(ctx context.Context, name string, r io.Reader, lim Limits) ([]*File, error) {
	lim = lim.withDefaults()
	br := bufio.NewReaderSize(r, 64<<10)
	if zipped, err := peekZip(ctx, br); err != nil {
		return nil, err
	} else if zipped {
		return openZipStream(ctx, name, br, lim)
	}
	f, err := OpenReader(ctx, name, br, lim)
	if err != nil {
		return nil, err
	}
	return []*File{f}, nil
}

// replayMax is how much of a stream is kept for a second read: all of it
// up to 64 MiB (a thread dump, a day of GC log), and at least what sniffing reads.
func replayMax(lim Limits) int64 { return max(min(lim.MaxBytes, 64<<20), sniffMax+HeadLen) }

func openAll(ctx context.Context, path string, lim Limits, stdin io.Reader) ([]*File, error) {
	lim = lim.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "-" {
		return OpenStream(ctx, "stdin", stdin, lim)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err // *PathError names the file; Localize says ENOENT in Chinese
	}
	if what := notFile(st.Mode()); what.EN != "" {
		return nil, errT(ErrNotFile, finding.T("%s: %s, not a file", "%s：%s，不是文件"), path, what)
	}
	if st.Mode()&fs.ModeNamedPipe != 0 {
		// open(2) of a FIFO waits for a writer: open it where ctx can abandon it.
		rc, err := openFIFO(ctx, path)
		if err != nil {
			return nil, err
		}
		f := &File{Name: path, lim: lim}
		rp := newReplay(ctx, rc, replayMax(lim))
		f.raw = rp.open
		f.cleanup = func() { rc.Close() }
		if err := f.sniff(ctx); err != nil {
			f.Close()
			return nil, err
		}
		return []*File{f}, nil
	}
	if isZip(path) {
		return openZip(ctx, path, st.Size(), lim)
	}
	f := &File{Name: path, lim: lim}
	f.raw = func() (io.ReadCloser, error) {
		fd, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return ctxFile{ctx, fd}, nil
	}
	if err := f.sniff(ctx); err != nil {
		return nil, err
	}
	return []*File{f}, nil
}

// notFile names what a mode is when it is not a regular file or a FIFO.
func notFile(m fs.FileMode) finding.Text {
	switch {
	case m.IsDir():
		return finding.T("a directory", "一个目录")
	case m&fs.ModeCharDevice != 0:
		return finding.T("a character device", "一个字符设备")
	case m&fs.ModeDevice != 0:
		return finding.T("a block device", "一个块设备")
	case m&fs.ModeSocket != 0:
		return finding.T("a socket", "一个套接字")
	case m&fs.ModeIrregular != 0:
		return finding.T("an irregular file", "一个特殊文件")
	}
	return finding.Text{}
}

func openFIFO(ctx context.Context, path string) (*os.File, error) {
	type res struct {
		f   *os.File
		err error
	}
	ch := make(chan res, 1)
	go func() {
		f, err := os.Open(path)
		ch <- res{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
		// The goroutine stays in open(2) until a writer comes or the process
		// ends; the buffered channel lets it finish without a reader.
		go func() {
			if r := <-ch; r.f != nil {
				r.f.Close()
			}
		}()
		return nil, fmt.Errorf("%s: %w", path, ctx.Err())
	}
}

func isZip(path string) bool {
	fd, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fd.Close()
	var m [4]byte
	n, _ := io.ReadFull(fd, m[:])
	return n == 4 && string(m[:]) == "PK\x03\x04"
}

// peekZip says whether a stream starts like a zip archive, waiting for its
// first bytes no longer than ctx.
func peekZip(ctx context.Context, br *bufio.Reader) (bool, error) {
	ch := make(chan []byte, 1)
	go func() {
		m, _ := br.Peek(4)
		ch <- m
	}()
	select {
	case m := <-ch:
		return string(m) == "PK\x03\x04", nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// openZipStream reads a zip archive from a stream (stdin) into memory, up
// to the replay bound (a zip needs its directory at the end, so it cannot
// be read as it comes), and opens its entries like openZip.
func openZipStream(ctx context.Context, name string, r io.Reader, lim Limits) ([]*File, error) {
	max := replayMax(lim)
	b, err := io.ReadAll(io.LimitReader(ContextReader(ctx, r), max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, errT(ErrLimit, finding.T("%s: a zip archive larger than %s on standard input: give its path instead (a zip is read from its end)",
			"%s：标准输入上的 zip 归档大于 %s：请改为给出其路径（zip 需从末尾读取）"), name, units.FormatBytesExact(max))
	}
	ra := bytes.NewReader(b)
	return openZipAt(ctx, name, int64(len(b)), lim, func() (io.ReaderAt, io.Closer, error) { return ra, io.NopCloser(nil), nil })
}

func openZip(ctx context.Context, path string, size int64, lim Limits) ([]*File, error) {
	return openZipAt(ctx, path, size, lim, func() (io.ReaderAt, io.Closer, error) {
		fd, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return fd, fd, nil
	})
}

// openZipAt opens the entries of the zip archive that open gives (a file,
// or bytes read from a stream), each entry a File named path!entry.
func openZipAt(ctx context.Context, path string, size int64, lim Limits, open func() (io.ReaderAt, io.Closer, error)) ([]*File, error) {
	fd, fdc, err := open()
	if err != nil {
		return nil, err
	}
	defer fdc.Close()
	zr, err := zip.NewReader(fd, size)
	if err != nil {
		return nil, finding.Errorf(finding.T("%s: a damaged zip archive: %v", "%s：损坏的 zip 归档：%v"), path, err)
	}
	var out []*File
	for i, ze := range zr.File {
		if ze.FileInfo().IsDir() || strings.HasSuffix(ze.Name, "/") {
			continue
		}
		if len(out) >= lim.MaxEntries {
			for _, f := range out {
				f.Close()
			}
			return nil, errT(ErrLimit, finding.T("%s: more than %d files in the archive; limit of entries per archive",
				"%s：归档中的文件多于 %d 个（每个归档的条目上限）"), path, lim.MaxEntries)
		}
		idx := i
		f := &File{Name: path + "!" + ze.Name, lim: lim}
		f.raw = func() (io.ReadCloser, error) {
			fd, fdc, err := open()
			if err != nil {
				return nil, err
			}
			zr, err := zip.NewReader(fd, size)
			if err != nil {
				fdc.Close()
				return nil, err
			}
			er, err := zr.File[idx].Open()
			if err != nil {
				fdc.Close()
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{ctxReader{ctx, er}, closers{er, fdc}}, nil
		}
		if err := f.sniff(ctx); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, finding.Errorf(finding.T("%s: an empty zip archive", "%s：空的 zip 归档"), path)
	}
	return out, nil
}

type closers []io.Closer

func (c closers) Close() error {
	var first error
	for _, x := range c {
		if err := x.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// sniff reads Head and detects the format and encoding.
func (f *File) sniff(ctx context.Context) error {
	rc, err := f.raw()
	if err != nil {
		return f.wrap(err)
	}
	defer rc.Close()
	r, enc, err := decode(rc)
	if err != nil {
		return f.wrap(err)
	}
	f.Encoding = enc
	lr := &lineReader{ctx: ctx, src: bufio.NewReaderSize(r, 64<<10), f: f, lim: f.lim, sniffing: true}
	head, err := io.ReadAll(io.LimitReader(lr, HeadLen))
	if err != nil && !errors.Is(err, ErrLimit) {
		return f.wrap(err)
	}
	f.Head = head
	f.Format = Detect(head, f.Name)
	return nil
}

// errT is a bilingual error with a cause for errors.Is.
func errT(cause error, t finding.Text, args ...any) error {
	return &finding.Error{Msg: finding.Tf(t, args...), Err: cause}
}
