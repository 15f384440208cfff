package attach

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// The attach listener accepts a client whose uid/gid (SO_PEERCRED, mapped
// into the JVM's user namespace) equal its own, or root there. Host root
// maps to nobody inside a user namespace it does not own, so for such a JVM
// the connection is made by a copy of this program (/proc/self/exe, so the
// tuneloop binary and test binaries alike) that drops to the JVM's uid/gid
// before connecting. Switching credentials in the main process would switch
// every thread of it (Go applies setuid to all threads); the copy lives for
// one command.
//
// The copy is selected by helperEnv=UID:GID; it gets the socket as an
// O_PATH descriptor (fd 3, see sockfile.go), reads the request on stdin and
// copies the reply to stdout.
const helperEnv = "TUNELOOP_ATTACH_HELPER"

func init() {
	if v := os.Getenv(helperEnv); v != "" {
		os.Exit(runHelper(v, os.Stdin, os.Stdout, os.Stderr))
	}
}

func runHelper(ids string, in io.Reader, out, errw io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(errw, "attach helper:", err)
		return 1
	}
	us, gs, ok := strings.Cut(ids, ":")
	uid, err1 := strconv.Atoi(us)
	gid, err2 := strconv.Atoi(gs)
	if !ok || err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return fail(fmt.Errorf("bad %s=%q", helperEnv, ids))
	}
	req, err := io.ReadAll(io.LimitReader(in, 1<<20))
	if err != nil {
		return fail(err)
	}
	// Order matters: groups and gid while still root, then uid.
	if err := syscall.Setgroups([]int{gid}); err != nil {
		return fail(fmt.Errorf("setgroups: %w", err))
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fail(fmt.Errorf("setresgid %d: %w", gid, err))
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fail(fmt.Errorf("setresuid %d: %w", uid, err))
	}
	c, err := net.Dial("unix", "/proc/self/fd/3") // the socket, opened O_PATH by the parent
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	if _, err := c.Write(req); err != nil {
		return fail(err)
	}
	if _, err := io.Copy(out, c); err != nil {
		return fail(err)
	}
	return 0
}

// helperRoundTrip is roundTrip made by a helper running as uid:gid.
func helperRoundTrip(ctx context.Context, sock *os.File, uid, gid int, req []byte) (int, []byte, error) {
	cmd := exec.CommandContext(ctx, "/proc/self/exe")
	cmd.Env = []string{helperEnv + "=" + strconv.Itoa(uid) + ":" + strconv.Itoa(gid)}
	cmd.ExtraFiles = []*os.File{sock}
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return 0, nil, fmt.Errorf("starting the attach helper: %w", err)
	}
	code, out, rerr := readReply(stdout)
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return 0, nil, ctx.Err()
	}
	if werr != nil && stderr.Len() > 0 {
		msg := strings.TrimSpace(stderr.String())
		for _, e := range []error{syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ENOENT, syscall.EACCES, syscall.EPIPE} {
			if strings.Contains(msg, e.Error()) {
				return 0, nil, fmt.Errorf("%s: %w", msg, e)
			}
		}
		return 0, nil, errors.New(msg)
	}
	return code, out, rerr
}
