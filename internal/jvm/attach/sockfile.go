package attach

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The JVM's /tmp and cwd belong to its user, who could plant a symlink
// named .java_pid<N> or .attach_pid<N> there (and, in a container, the
// symlink's target would resolve in the host's filesystem). Running as root,
// tuneloop must not connect to, create or chown whatever such a link points
// to. So the directory is opened first (the last component not followed,
// except /proc/PID/cwd, which is the directory itself), files are opened
// relative to it with O_NOFOLLOW, the socket is checked to be a socket owned
// by the JVM's user, and connections go through /proc/self/fd/N of that
// O_PATH descriptor rather than the path.

// openTmp opens the JVM's /tmp as a directory descriptor, refusing a symlink.
func openTmp(pid int) (int, error) {
	p := procPath(pid, "root/tmp")
	fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return fd, nil
}

// fileInfo is what tuneloop knows of a file in the JVM's /tmp.
type fileInfo struct {
	ino uint64
	uid int
}

// errNotJVMs: a socket owned by a user other than the JVM's and root. The
// JVM chowns its socket to its own euid, so such a file is never this JVM's.
var errNotJVMs = errors.New("a socket of another user")

// openSocket opens the attach socket as an O_PATH file and returns it with
// its inode and owner. A missing file, or one that is not a socket, is
// fs.ErrNotExist (the JVM's listener replaces it when it starts).
func (vm *VM) openSocket() (*os.File, fileInfo, error) {
	dir, err := openTmp(vm.PID)
	if err != nil {
		return nil, fileInfo{}, err
	}
	defer unix.Close(dir)
	name := ".java_pid" + strconv.Itoa(vm.NSPID)
	fd, err := unix.Openat(dir, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			err = unix.ENOENT
		}
		return nil, fileInfo{}, &fs.PathError{Op: "open", Path: vm.Socket, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fileInfo{}, &fs.PathError{Op: "stat", Path: vm.Socket, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		unix.Close(fd)
		return nil, fileInfo{}, &fs.PathError{Op: "open", Path: vm.Socket, Err: fmt.Errorf("not a socket: %w", fs.ErrNotExist)}
	}
	if int(st.Uid) != vm.UID && st.Uid != 0 {
		unix.Close(fd)
		return nil, fileInfo{}, &fs.PathError{Op: "open", Path: vm.Socket,
			Err: fmt.Errorf("owned by uid %d, not by the JVM's uid %d: %w: %w", st.Uid, vm.UID, errNotJVMs, fs.ErrPermission)}
	}
	return os.NewFile(uintptr(fd), vm.Socket), fileInfo{ino: st.Ino, uid: int(st.Uid)}, nil
}

// socketInode is the inode of a valid attach socket, 0 when there is none.
func (vm *VM) socketInode() uint64 {
	f, fi, err := vm.openSocket()
	if err != nil {
		return 0
	}
	f.Close()
	return fi.ino
}

// statTmp lstats name in the JVM's /tmp.
func (vm *VM) statTmp(name string) (fileInfo, bool) {
	dir, err := openTmp(vm.PID)
	if err != nil {
		return fileInfo{}, false
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return fileInfo{}, false
	}
	return fileInfo{ino: st.Ino, uid: int(st.Uid)}, true
}

// cannotReplace says whether the JVM surely cannot remove or rename over a
// file of owner in its /tmp, as its listener must (it binds
// .java_pid<N>.tmp, after unlinking any old one, and renames it to
// .java_pid<N>). In a sticky directory only the file's owner, the
// directory's owner or root may do that. Said only when sure: in another
// user namespace owners and capabilities are not what they look like here.
func (vm *VM) cannotReplace(owner int) bool {
	if owner == vm.UID || vm.UID == 0 || !sameNamespace(vm.PID, "user") {
		return false
	}
	dir, err := openTmp(vm.PID)
	if err != nil {
		return false
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if unix.Fstat(dir, &st) != nil {
		return false
	}
	return st.Mode&unix.S_ISVTX != 0 && int(st.Uid) != vm.UID
}

// tmpName is how the user names a file in the JVM's /tmp: /tmp/NAME when
// the JVM shares our mounts, else through /proc/PID/root.
func (vm *VM) tmpName(name string) string {
	if sameNamespace(vm.PID, "mnt") {
		return "/tmp/" + name
	}
	return procPath(vm.PID, "root/tmp/"+name)
}

// trigger creates .attach_pid<NSPID> where the JVM looks (its cwd, else its
// /tmp) and returns a function removing it.
func (vm *VM) trigger() (func(), error) {
	name := ".attach_pid" + strconv.Itoa(vm.NSPID)
	var firstErr error
	for _, open := range []func() (int, error){
		func() (int, error) {
			p := procPath(vm.PID, "cwd")
			fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return -1, &fs.PathError{Op: "open", Path: p, Err: err}
			}
			return fd, nil
		},
		func() (int, error) { return openTmp(vm.PID) },
	} {
		dir, err := open()
		if err == nil {
			var fd int
			fd, err = unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
			switch {
			case err == nil:
				if os.Geteuid() == 0 {
					// The JVM honours a trigger owned by its euid or by root as it sees
					// root; host root is "nobody" inside a user namespace.
					_ = unix.Fchown(fd, vm.UID, vm.GID)
				}
				unix.Close(fd)
				return func() { _ = unix.Unlinkat(dir, name, 0); unix.Close(dir) }, nil
			case errors.Is(err, unix.EEXIST):
				// Someone else's trigger (a jcmd attaching now): use it, leave it.
				var st unix.Stat_t
				if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
					unix.Close(dir)
					return func() {}, nil
				}
			}
			unix.Close(dir)
			err = &fs.PathError{Op: "create", Path: name, Err: err}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if errors.Is(firstErr, fs.ErrPermission) {
		return nil, errPermission(vm.PID, vm.User, firstErr)
	}
	if exited(vm.PID) {
		return nil, errNoProcess(vm.PID, errors.New("the JVM exited"))
	}
	return nil, fmt.Errorf("pid %d: cannot create the attach trigger file: %w", vm.PID, firstErr)
}
