package runfolder

// A run folder may come from anyone (an archive handed over, a shared
// disk): every file in it is read as untrusted. No symbolic link is
// followed, neither the file nor a folder on its way (raw/ -> /etc); only
// regular files are read, so a FIFO cannot block and /dev/zero cannot fill
// the memory; every read has a size cap with a message that names it.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Caps on what one file of a run folder may hold. A real manifest is tens
// of KB (the host facts), findings a few MB, numa_maps of a 100 GB heap some
// tens of MB; the samples stream is read, never held, and capped
// decompressed (a day at 1 s ticks with every thread is well under it).
const (
	MaxManifest    = 64 << 20
	MaxFindings    = 256 << 20
	MaxRaw         = 512 << 20
	MaxSamplesRead = 64 << 30
)

// ErrNotRegular is a name in a run folder that is a link, a device, a FIFO
// or a socket: it is not read.
var ErrNotRegular = errors.New("not a regular file (a link, device, FIFO or socket is not read from a run folder)")

// ErrTooLarge is a file of a run folder over its cap.
var ErrTooLarge = errors.New("over the size cap")

// OpenInside opens name (slash-separated, relative to dir) for reading when
// it and every folder on its way inside dir are what they claim: folders
// that are no links, and a regular file. It never blocks on a FIFO.
func OpenInside(dir, name string) (*os.File, error) {
	clean := filepath.Clean(filepath.FromSlash(name))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: fs.ErrPermission}
	}
	parts := strings.Split(clean, string(filepath.Separator))
	p := dir
	for _, part := range parts[:len(parts)-1] {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: p, Err: ErrNotRegular}
		}
	}
	path := filepath.Join(dir, clean)
	// O_NOFOLLOW refuses a link; O_NONBLOCK keeps a FIFO from blocking the
	// open (it is refused just below by its type).
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
		}
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return fh, nil
}

// ReadInside reads a whole file of a run folder, refusing links, special
// files and anything over limit bytes.
func ReadInside(dir, name string, limit int64) ([]byte, error) {
	fh, err := OpenInside(dir, name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.Size() > limit {
		return nil, tooLarge(filepath.Join(dir, name), limit)
	}
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(filepath.Join(dir, name), limit) // grew while read
	}
	return b, nil
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s: %w", path, finding.Errorf(finding.T("over %d MB, larger than tuneloop reads: not a file tuneloop wrote, or a damaged one",
		"超过 %d MB，超出 tuneloop 读取的上限：不是 tuneloop 写的文件，或者已损坏"), limit>>20, ErrTooLarge))
}

// cappedReader ends a stream that passes its cap with ErrTooLarge instead
// of reading on (a decompression bomb in raw/samples.jsonl.gz).
type cappedReader struct {
	r    io.Reader
	left int64
	name string
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, tooLarge(c.name, MaxSamplesRead)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Refusal says an error of OpenInside or ReadInside in both languages when
// it is a link or special file that was not read, naming the path refused;
// any other error comes back as it is (a missing file, or one over its cap,
// which ReadInside already says in both).
func Refusal(err error) error {
	var pe *fs.PathError
	if !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) {
		return err
	}
	return &finding.Error{Msg: finding.Tf(finding.T("%s: not read: a symbolic link, device, FIFO or socket in a run folder is never followed or read",
		"%s：未读取：运行目录中的符号链接、设备、FIFO 或套接字一律不跟随、不读取"), finding.SafeLine(pe.Path)), Err: err}
}
