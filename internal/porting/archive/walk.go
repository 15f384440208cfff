// Package archive walks an install tree, a jar/war/ear/zip or a tar(.gz)
// bundle, recursing into nested archives in place: nothing is extracted to
// disk. Stored nested jars (Spring Boot's BOOT-INF/lib) are read through a
// section of the outer file; deflated ones are inflated to memory under a
// per-entry cap. Total inflated bytes, entry size and nesting depth are
// capped, unsafe entry names are reported, and a damaged archive becomes a
// Problem, never a panic.
//
// Display paths name nested entries the way the JDK does for jar URLs:
//
//	/opt/app/app.jar!/BOOT-INF/lib/jna-5.13.0.jar!/com/sun/jna/linux-aarch64/libjnidispatch.so
//
// The containers read, as `unzip -v` and `tar tzvf` list them:
//
//	 Length   Method    Size  Cmpr    Date    Time   CRC-32   Name
//	  1866630  Stored  1866630   0% 2023-01-01 00:00 0d3d1c2a  BOOT-INF/lib/jna-5.13.0.jar
//	     3412  Defl:N     1510  56% 2023-01-01 00:00 7c1e0f11  BOOT-INF/classes/com/acme/App.class
//
//	-rwxr-xr-x 0/0  17392 2023-01-01 00:00 app/lib/libfoo.so
package archive

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits bound what a walk may read. Zero fields take the defaults.
type Limits struct {
	// MaxEntry is the most bytes one nested archive may inflate to (default
	// 256 MiB); nested archives held in memory at once are at most MaxDepth.
	MaxEntry int64
	// MaxTotal is the most bytes the whole walk may inflate (default 8 GiB).
	MaxTotal int64
	// MaxDepth is how deep archives may nest (default 6: PATH app.ear is
	// depth 0, app.ear!/x.war 1, app.ear!/x.war!/WEB-INF/lib/y.jar 2).
	MaxDepth int
	// MaxRead is the most bytes of one non-archive entry handed to Visit
	// (default 256 MiB: some JNI libraries are that large).
	MaxRead int64
}

// DefaultLimits are the limits used for zero fields.
var DefaultLimits = Limits{MaxEntry: 256 << 20, MaxTotal: 8 << 30, MaxDepth: 6, MaxRead: 256 << 20}

func (l Limits) withDefaults() Limits {
	if l.MaxEntry <= 0 {
		l.MaxEntry = DefaultLimits.MaxEntry
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultLimits.MaxTotal
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxRead <= 0 {
		l.MaxRead = DefaultLimits.MaxRead
	}
	return l
}

// Action is what the caller wants done with an entry.
type Action int

const (
	// Skip ignores the entry (it is neither read nor inflated).
	Skip Action = iota
	// Read hands the whole entry to Visit.
	Read
	// Sniff reads the first bytes and hands the entry to Visit only if it is ELF.
	Sniff
)

// Container is a directory tree or an archive being walked.
type Container struct {
	Path   string // display path: "/opt/app/app.jar!/BOOT-INF/lib/x.jar"
	Name   string // name inside the parent ("BOOT-INF/lib/x.jar"); the PATH for the root
	Kind   string // "dir", "zip" or "tar"
	Depth  int    // 0 for the PATH itself
	Parent *Container
}

// Entry is one file inside a container.
type Entry struct {
	Container *Container
	Name      string // path inside the container, forward slashes
	Path      string // display path
	Size      int64
}

// ProblemKind classifies what went wrong.
type ProblemKind string

const (
	UnsafeName ProblemKind = "unsafe-name" // absolute or ../ names, the zip-slip pattern
	Limit      ProblemKind = "limit"       // an entry, the total or the nesting exceeded a cap
	Unreadable ProblemKind = "unreadable"  // truncated, corrupt or unsupported
)

// Problem is something a walk could not read or refused to read.
type Problem struct {
	Path string
	Kind ProblemKind
	Err  error
}

func (p Problem) Error() string { return fmt.Sprintf("%s: %v", p.Path, p.Err) }

// Bytes is an entry held in memory. Visit receives one for every entry it
// did not read from a disk file, so a caller can use the bytes without a
// copy (valid only during the call).
type Bytes []byte

// ReadAt implements io.ReaderAt.
func (b Bytes) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("archive: negative offset")
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Walker walks PATHs; the callbacks say what to read and receive it.
type Walker struct {
	Limits Limits
	// Want decides, from the name inside the container, what to read.
	Want func(c *Container, name string, size int64) Action
	// Visit receives a wanted entry; r is valid only during the call.
	Visit func(e *Entry, r io.ReaderAt, size int64)
	// Enter and Leave bracket every container, the PATH included.
	Enter, Leave func(c *Container)
	// Problem receives every problem; the walk goes on where it can.
	Problem func(p Problem)

	lim      Limits
	scratch  []byte // reused for entries handed to Visit
	inflated int64
	stopped  bool
	ctx      context.Context
}

// ErrTotalLimit stops a walk that inflated more than Limits.MaxTotal.
var ErrTotalLimit = errors.New("total uncompressed size limit reached (possible zip bomb)")

// Walk walks one PATH: a directory, a zip-format archive (jar, war, ear,
// zip) or a tar (optionally gzip-compressed). It returns an error only when
// PATH itself cannot be opened; everything inside is reported as Problems.
func (w *Walker) Walk(ctx context.Context, root string) error {
	w.lim = w.Limits.withDefaults()
	w.ctx = ctx
	w.stopped = false
	fi, err := os.Stat(root)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		c := &Container{Path: root, Name: root, Kind: "dir"}
		w.enter(c)
		w.walkDir(c, root)
		w.leave(c)
		return nil
	}
	f, err := os.Open(root)
	if err != nil {
		return err
	}
	defer f.Close()
	kind := sniffKind(root, f)
	if kind == "" {
		// A single loose file: wrap it in a container so Visit has one.
		c := &Container{Path: root, Name: root, Kind: "dir"}
		w.enter(c)
		w.file(c, filepath.Base(root), root, f, fi.Size())
		w.leave(c)
		return nil
	}
	w.archive(&Container{Path: root, Name: root, Kind: kind}, f, fi.Size())
	return nil
}

// WalkReader walks an archive held in r (a zip-format or tar archive named
// name); fuzz tests and callers with in-memory data use it.
func (w *Walker) WalkReader(ctx context.Context, name string, r io.ReaderAt, size int64) {
	w.lim = w.Limits.withDefaults()
	w.ctx = ctx
	w.stopped = false
	kind := sniffKind(name, r)
	if kind == "" {
		kind = "zip"
	}
	w.archive(&Container{Path: name, Name: name, Kind: kind}, r, size)
}

func (w *Walker) done() bool {
	if w.stopped {
		return true
	}
	if w.ctx != nil && w.ctx.Err() != nil {
		w.stopped = true
	}
	return w.stopped
}

func (w *Walker) enter(c *Container) {
	if w.Enter != nil {
		w.Enter(c)
	}
}

func (w *Walker) leave(c *Container) {
	if w.Leave != nil {
		w.Leave(c)
	}
}

func (w *Walker) problem(p string, k ProblemKind, err error) {
	if w.Problem != nil {
		w.Problem(Problem{Path: p, Kind: k, Err: err})
	}
}

func (w *Walker) want(c *Container, name string, size int64) Action {
	if w.Want == nil {
		return Skip
	}
	return w.Want(c, name, size)
}

// IsArchiveName reports whether a name is one the walker recurses into.
func IsArchiveName(name string) bool { return archiveKind(name) != "" }

func archiveKind(name string) string {
	n := strings.ToLower(name)
	switch path.Ext(n) {
	case ".jar", ".war", ".ear", ".zip", ".rar", ".sar", ".har", ".aar":
		return "zip"
	case ".tar", ".tgz", ".tbz2", ".tbz":
		return "tar"
	case ".gz", ".bz2":
		if strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".tar.bz2") {
			return "tar"
		}
	}
	if unsupportedName(n) {
		return "unsupported"
	}
	return ""
}

var errUnsupported = errors.New("package format not supported (xz, zstd, rpm, deb, 7z): unpack it and scan the directory")

// unsupportedName: package formats the walker recognises but cannot read
// (xz and zstd need decoders outside the standard library).
func unsupportedName(n string) bool {
	for _, ext := range []string{".tar.xz", ".txz", ".tar.zst", ".tzst", ".rpm", ".deb", ".7z"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
}

// sniffKind picks the container kind of a top-level file from its name,
// then its magic (a zip with a launch script prepended has no PK at 0).
func sniffKind(name string, r io.ReaderAt) string {
	if k := archiveKind(name); k != "" {
		return k
	}
	var b [262]byte
	n, _ := r.ReadAt(b[:], 0)
	switch {
	case n >= 4 && (string(b[:4]) == "PK\x03\x04" || string(b[:4]) == "PK\x05\x06"):
		return "zip"
	case n >= 2 && b[0] == 0x1f && b[1] == 0x8b:
		return "tar"
	case n >= 262 && string(b[257:262]) == "ustar":
		return "tar"
	}
	return ""
}

// isOCIBlob reports whether a tar entry is a content-addressed blob of an
// OCI image layout ("blobs/sha256/<hex>").
func isOCIBlob(name string) bool {
	i := strings.Index(name, "blobs/sha256/")
	return i >= 0 && !strings.Contains(name[i+len("blobs/sha256/"):], "/")
}

// UnsafeEntryName reports whether an archive entry name would escape the
// folder it is extracted to (we never extract; we report it).
func UnsafeEntryName(name string) bool {
	if name == "" {
		return false
	}
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return true
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

func (w *Walker) walkDir(c *Container, root string) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if w.done() {
			return filepath.SkipAll
		}
		if err != nil {
			w.problem(p, Unreadable, err)
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() { // directories, symlinks (not followed), devices
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			rel = p
		}
		rel = filepath.ToSlash(rel)
		kind := archiveKind(rel)
		info, err := d.Info()
		if err != nil {
			w.problem(p, Unreadable, err)
			return nil
		}
		if kind == "" && w.want(c, rel, info.Size()) == Skip {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			w.problem(p, Unreadable, err)
			return nil
		}
		defer f.Close()
		if kind != "" {
			w.archive(&Container{Path: p, Name: rel, Kind: kind, Depth: c.Depth + 1, Parent: c}, f, info.Size())
			return nil
		}
		w.file(c, rel, p, f, info.Size())
		return nil
	})
	if err != nil {
		w.problem(root, Unreadable, err)
	}
}

// file hands an entry backed by random access (a disk file or a section of
// one, or memory) to Visit, sniffing it first when asked.
func (w *Walker) file(c *Container, name, display string, r io.ReaderAt, size int64) {
	act := w.want(c, name, size)
	if act == Skip {
		return
	}
	if act == Sniff && !isELFAt(r) {
		return
	}
	if w.Visit != nil {
		w.Visit(&Entry{Container: c, Name: name, Path: display, Size: size}, r, size)
	}
}

func isELFAt(r io.ReaderAt) bool {
	var b [4]byte
	n, _ := r.ReadAt(b[:], 0)
	return n == 4 && string(b[:]) == "\x7fELF"
}

func (w *Walker) archive(c *Container, r io.ReaderAt, size int64) {
	if c.Depth > w.lim.MaxDepth {
		w.problem(c.Path, Limit, fmt.Errorf("archives nested deeper than %d levels; not opened", w.lim.MaxDepth))
		return
	}
	w.enter(c)
	defer w.leave(c)
	switch c.Kind {
	case "zip":
		w.zip(c, r, size)
	case "tar":
		w.tar(c, io.NewSectionReader(r, 0, size))
	default:
		w.problem(c.Path, Unreadable, errUnsupported)
	}
}

func (w *Walker) zip(c *Container, r io.ReaderAt, size int64) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		w.problem(c.Path, Unreadable, fmt.Errorf("not a readable zip/jar: %w", err))
		return
	}
	if !startsConsistent(zr, r) {
		w.problem(c.Path, Unreadable, errors.New("truncated or corrupt zip/jar: its central directory is missing (the one found belongs to an archive stored inside it)"))
		return
	}
	unsafeNames := 0
	for _, f := range zr.File {
		if w.done() {
			return
		}
		if UnsafeEntryName(f.Name) {
			unsafeNames++
			if unsafeNames <= 20 {
				w.problem(c.Path+"!/"+f.Name, UnsafeName, errors.New("entry name escapes the extraction folder (zip-slip); not extracted"))
			}
			continue
		}
		if f.Mode().IsDir() || strings.HasSuffix(f.Name, "/") {
			continue
		}
		display := c.Path + "!/" + f.Name
		declared := int64(f.UncompressedSize64)
		if f.UncompressedSize64 > 1<<62 {
			declared = 1 << 62
		}
		if kind := archiveKind(f.Name); kind != "" {
			w.nestedZipEntry(c, f, r, size, kind, display, declared)
			continue
		}
		act := w.want(c, f.Name, declared)
		if act == Skip {
			continue
		}
		if declared > w.lim.MaxRead {
			w.problem(display, Limit, fmt.Errorf("entry declares %d bytes, over the %d-byte read limit; not read", declared, w.lim.MaxRead))
			continue
		}
		if act == Sniff && !w.zipSniff(f) {
			continue
		}
		b, err := w.inflate(f, display, w.lim.MaxRead, true)
		if err != nil {
			continue // reported
		}
		if w.Visit != nil {
			w.Visit(&Entry{Container: c, Name: f.Name, Path: display, Size: int64(len(b))}, Bytes(b), int64(len(b)))
		}
	}
}

// startsConsistent checks that an archive that begins with a local file
// header lists that entry at offset 0. A truncated jar whose end was cut
// off can still "open": archive/zip then finds the end record of a jar
// stored inside it and treats everything before as a prefix.
func startsConsistent(zr *zip.Reader, r io.ReaderAt) bool {
	var h [30]byte
	if n, _ := r.ReadAt(h[:], 0); n < 30 || string(h[:4]) != "PK\x03\x04" {
		return true // a launch script or other prefix: archive/zip handles it
	}
	nameLen := int64(binary.LittleEndian.Uint16(h[26:]))
	extraLen := int64(binary.LittleEndian.Uint16(h[28:]))
	name := make([]byte, nameLen)
	if n, _ := r.ReadAt(name, 30); int64(n) < nameLen {
		return false
	}
	want := 30 + nameLen + extraLen
	for _, f := range zr.File {
		if f.Name == string(name) {
			if off, err := f.DataOffset(); err == nil && off == want {
				return true
			}
		}
	}
	return false
}

func (w *Walker) zipSniff(f *zip.File) bool {
	rc, err := f.Open()
	if err != nil {
		return false
	}
	defer rc.Close()
	var b [4]byte
	n, _ := io.ReadFull(rc, b[:])
	return n == 4 && string(b[:]) == "\x7fELF"
}

func (w *Walker) nestedZipEntry(c *Container, f *zip.File, r io.ReaderAt, size int64, kind, display string, declared int64) {
	if kind == "unsupported" {
		w.problem(display, Unreadable, errUnsupported)
		return
	}
	nc := &Container{Path: display, Name: f.Name, Kind: kind, Depth: c.Depth + 1, Parent: c}
	if nc.Depth > w.lim.MaxDepth {
		w.problem(display, Limit, fmt.Errorf("archives nested deeper than %d levels; not opened", w.lim.MaxDepth))
		return
	}
	if f.Method == zip.Store && f.Flags&0x1 == 0 {
		// Read in place: a section of the outer archive, no copy.
		off, err := f.DataOffset()
		n := int64(f.CompressedSize64)
		if err != nil || off < 0 || n < 0 || off > size || n > size-off {
			w.problem(display, Unreadable, errors.New("stored entry lies outside the archive (truncated?)"))
			return
		}
		w.archive(nc, io.NewSectionReader(r, off, n), n)
		return
	}
	if declared > w.lim.MaxEntry {
		w.problem(display, Limit, fmt.Errorf("nested archive declares %d bytes, over the %d-byte entry limit; not opened", declared, w.lim.MaxEntry))
		return
	}
	b, err := w.inflate(f, display, w.lim.MaxEntry, false)
	if err != nil {
		return
	}
	w.archive(nc, Bytes(b), int64(len(b)))
}

// inflate reads a zip entry into memory, enforcing the entry and total caps
// on the bytes actually produced (headers can lie).
// reuse reads into the walker's scratch buffer (for entries handed to
// Visit, not for nested archives that stay in use while walked).
func (w *Walker) inflate(f *zip.File, display string, max int64, reuse bool) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		w.problem(display, Unreadable, err)
		return nil, err
	}
	defer rc.Close()
	hint := int64(-1)
	if f.UncompressedSize64 <= 1<<40 {
		hint = int64(f.UncompressedSize64)
	}
	return w.readCapped(rc, display, max, hint, false, reuse)
}

// readCapped reads r into memory, at most max bytes. counted is true when r
// already counts what it produces against MaxTotal (a gzip stream).
func (w *Walker) readCapped(r io.Reader, display string, max, hint int64, counted, reuse bool) ([]byte, error) {
	budget := w.lim.MaxTotal - w.inflated
	lim := max
	if budget < lim && !counted {
		lim = budget
	}
	var buf []byte
	if reuse {
		buf = w.scratch[:0]
	}
	if hint >= 0 && hint < lim && int64(cap(buf)) < hint+1 {
		buf = make([]byte, 0, hint+1) // +1: the read that sees EOF needs room
	}
	buf, err := readUpTo(buf, r, lim+1)
	n := int64(len(buf))
	if reuse {
		w.scratch = buf[:0]
	}
	if !counted {
		w.inflated += n
	}
	if errors.Is(err, ErrTotalLimit) || (n > lim && lim == budget && !counted) {
		w.stopped = true
		w.problem(display, Limit, ErrTotalLimit)
		return nil, ErrTotalLimit
	}
	if n > lim {
		err := fmt.Errorf("entry inflates to more than %d bytes (possible zip bomb); not read", max)
		w.problem(display, Limit, err)
		return nil, err
	}
	if err != nil {
		err = fmt.Errorf("truncated or corrupt entry: %w", err)
		w.problem(display, Unreadable, err)
		return nil, err
	}
	return buf, nil
}

// readUpTo appends from r to buf until EOF or max bytes; EOF is not an error.
func readUpTo(buf []byte, r io.Reader, max int64) ([]byte, error) {
	for int64(len(buf)) < max {
		if len(buf) == cap(buf) {
			grow := cap(buf)
			if grow < 4096 {
				grow = 4096
			}
			if room := max - int64(len(buf)); int64(grow) > room {
				grow = int(room)
			}
			buf = append(buf, make([]byte, grow)...)[:len(buf)]
		}
		end := cap(buf)
		if int64(end) > max {
			end = int(max)
		}
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// countingReader counts the bytes a decompressor produced, so a gzip bomb
// stops at MaxTotal even for entries that are skipped.
type countingReader struct {
	r   io.Reader
	w   *Walker
	max int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.w.inflated >= c.max {
		return 0, ErrTotalLimit
	}
	if room := c.max - c.w.inflated; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.w.inflated += int64(n)
	return n, err
}

func (w *Walker) tar(c *Container, r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	counted := false
	if magic, _ := br.Peek(3); len(magic) == 3 && string(magic) == "BZh" {
		src = &countingReader{r: bzip2.NewReader(br), w: w, max: w.lim.MaxTotal}
		counted = true
	} else if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			w.problem(c.Path, Unreadable, fmt.Errorf("not a readable gzip stream: %w", err))
			return
		}
		defer gz.Close()
		src = &countingReader{r: gz, w: w, max: w.lim.MaxTotal}
		counted = true
	}
	tr := tar.NewReader(src)
	for !w.done() {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			if errors.Is(err, ErrTotalLimit) {
				w.stopped = true
				w.problem(c.Path, Limit, ErrTotalLimit)
				return
			}
			w.problem(c.Path, Unreadable, fmt.Errorf("truncated or corrupt tar: %w", err))
			return
		}
		name := strings.TrimPrefix(h.Name, "./")
		if UnsafeEntryName(h.Name) {
			w.problem(c.Path+"!/"+h.Name, UnsafeName, errors.New("entry name escapes the extraction folder; not extracted"))
			continue
		}
		if (h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink) && UnsafeEntryName(h.Linkname) {
			w.problem(c.Path+"!/"+h.Name, UnsafeName, fmt.Errorf("link target %q escapes the extraction folder", h.Linkname))
			continue
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeRegA { //nolint:staticcheck // old tars use TypeRegA
			continue
		}
		display := c.Path + "!/" + name
		if kind := archiveKind(name); kind == "unsupported" {
			w.problem(display, Unreadable, errUnsupported)
			continue
		} else if kind != "" {
			nc := &Container{Path: display, Name: name, Kind: kind, Depth: c.Depth + 1, Parent: c}
			if nc.Depth > w.lim.MaxDepth {
				w.problem(display, Limit, fmt.Errorf("archives nested deeper than %d levels; not opened", w.lim.MaxDepth))
				continue
			}
			if h.Size > w.lim.MaxEntry {
				w.problem(display, Limit, fmt.Errorf("nested archive is %d bytes, over the %d-byte entry limit; not opened", h.Size, w.lim.MaxEntry))
				continue
			}
			b, err := w.readCapped(tr, display, w.lim.MaxEntry, h.Size, counted, false)
			if err != nil {
				if w.stopped {
					return
				}
				continue
			}
			w.archive(nc, Bytes(b), int64(len(b)))
			continue
		}
		if isOCIBlob(name) && h.Size <= w.lim.MaxEntry && c.Depth < w.lim.MaxDepth {
			// An image layout (docker save, skopeo): layers are blobs with no
			// name to go by; open the ones that are tar or tar.gz, hand the
			// others (configs, manifests) to Visit like any entry.
			b, err := w.readCapped(tr, display, w.lim.MaxEntry, h.Size, counted, false)
			if err != nil {
				if w.stopped {
					return
				}
				continue
			}
			if k := sniffKind("", Bytes(b)); k == "tar" {
				w.archive(&Container{Path: display, Name: name, Kind: k, Depth: c.Depth + 1, Parent: c}, Bytes(b), int64(len(b)))
			} else if w.Visit != nil && int64(len(b)) <= w.lim.MaxRead && w.want(c, name, int64(len(b))) != Skip {
				w.Visit(&Entry{Container: c, Name: name, Path: display, Size: int64(len(b))}, Bytes(b), int64(len(b)))
			}
			continue
		}
		act := w.want(c, name, h.Size)
		if act == Skip {
			continue
		}
		if h.Size > w.lim.MaxRead {
			w.problem(display, Limit, fmt.Errorf("entry is %d bytes, over the %d-byte read limit; not read", h.Size, w.lim.MaxRead))
			continue
		}
		b, err := w.readCapped(tr, display, w.lim.MaxRead, h.Size, counted, true)
		if err != nil {
			if w.stopped {
				return
			}
			continue
		}
		if act == Sniff && !(len(b) >= 4 && string(b[:4]) == "\x7fELF") {
			continue
		}
		if w.Visit != nil {
			w.Visit(&Entry{Container: c, Name: name, Path: display, Size: int64(len(b))}, Bytes(b), int64(len(b)))
		}
	}
}
