package sample

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"unsafe"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// reader reads whole pseudo-files into one reused buffer with raw syscalls:
// os.Open costs an allocation, an fstat and a finalizer per file, which on
// the per-thread path (1500 files a second for 500 threads) is most of the
// user-space cost. What read returns is valid until the next read.
type reader struct {
	buf  []byte
	path []byte // NUL-terminated name for openat, reused
	dirb []byte // getdents buffer
}

const maxRead = hostfs.MaxFileSize

func newReader() *reader { return &reader{buf: make([]byte, 64<<10), dirb: make([]byte, 32<<10)} }

// file reads the whole file at path (absolute, under a hostfs root).
func (r *reader) file(h hostfs.FS, path string) ([]byte, error) {
	b, err := r.at(atFDCWD, path, false)
	if err != nil {
		return nil, &hostfs.Error{Path: h.Display(path), Err: err}
	}
	return b, nil
}

const atFDCWD = -100

// at reads name relative to dirfd. oneShot says the file is produced by a
// single seq_file show (proc_single_show: /proc/PID/stat, status,
// schedstat): the kernel hands over all of it in the first read, so a read
// shorter than the buffer is the whole file and the second read that would
// return 0 is skipped. Multi-record files (/proc/net/tcp, diskstats) come in
// page-sized chunks and are read to EOF.
func (r *reader) at(dirfd int, name string, oneShot bool) ([]byte, error) {
	r.path = append(r.path[:0], name...)
	return r.atPath(dirfd, oneShot)
}

// atPath is at for the name already in r.path (not NUL-terminated).
func (r *reader) atPath(dirfd int, oneShot bool) ([]byte, error) {
	r.path = append(r.path, 0)
	fd, err := openat(dirfd, r.path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	n := 0
	for {
		if n == len(r.buf) {
			if len(r.buf) >= maxRead {
				return nil, fmt.Errorf("larger than %d bytes", maxRead)
			}
			nb := make([]byte, 2*len(r.buf))
			copy(nb, r.buf[:n])
			r.buf = nb
		}
		m, err := syscall.Read(fd, r.buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m <= 0 {
			break
		}
		n += m
		if oneShot && n < len(r.buf) {
			break
		}
	}
	return r.buf[:n], nil
}

// openDir opens a directory for getdents and openat.
func openDir(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		return fd, err
	}
}

// dirNames calls fn with each entry name of the open directory fd (from
// its start), without allocating. The name is valid only during the call.
func (r *reader) dirNames(fd int, fn func(name []byte)) error {
	if _, err := syscall.Seek(fd, 0, 0); err != nil {
		return err
	}
	for {
		n, err := syscall.ReadDirent(fd, r.dirb)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		b := r.dirb[:n]
		for len(b) > 0 {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			if len(b) < 19 {
				return errors.New("short dirent")
			}
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return errors.New("bad dirent length")
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if !(len(name) == 1 && name[0] == '.') && !(len(name) == 2 && name[0] == '.' && name[1] == '.') {
				fn(name)
			}
			b = b[reclen:]
		}
	}
}

// isGone says a read failed because the file's process or thread exited
// (ENOENT on open, ESRCH on read) rather than something worth reporting.
func isGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// openat opens the NUL-terminated path relative to dirfd, read-only.
func openat(dirfd int, path []byte) (int, error) {
	for {
		fd, _, e := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&path[0])),
			uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(fd), nil
	}
}

// stream calls fn with each line (without its newline) of the file at
// path, reading it in buffer-sized chunks: for files that grow with the
// host, like /proc/net/tcp with a line per socket. A line longer than the
// buffer is an error.
func (r *reader) stream(path string, fn func(line []byte)) error {
	r.path = append(r.path[:0], path...)
	r.path = append(r.path, 0)
	fd, err := openat(atFDCWD, r.path)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	have := 0 // bytes of an unfinished line kept at the start of buf
	for {
		m, err := syscall.Read(fd, r.buf[have:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if m <= 0 {
			if have > 0 {
				fn(r.buf[:have])
			}
			return nil
		}
		b := r.buf[:have+m]
		for {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				break
			}
			fn(b[:i])
			b = b[i+1:]
		}
		have = copy(r.buf, b)
		if have == len(r.buf) {
			return errors.New("line longer than the read buffer")
		}
	}
}
