// Package attach talks to a running HotSpot JVM the way jcmd does, without
// any JDK tool next to it: it speaks the HotSpot attach protocol (version 1)
// over the JVM's UNIX socket, starting the JVM's attach listener when needed
// (.attach_pid trigger file + SIGQUIT). It reaches JVMs of other users, in
// other mount, pid and user namespaces (containers, systemd PrivateTmp)
// through /proc/PID/root and the pid the JVM sees (NSpid), and falls back to
// the jcmd/jstack of a JDK on this host when its own way fails. It is the
// only package in tuneloop that runs other programs (os/exec).
//
// How a JVM is attached (HotSpot attachListener_linux.cpp, checked against
// OpenJDK 17 and Temurin 25):
//
//  1. /proc/PID/maps must map libjvm.so (HotSpot); OpenJ9 and non-JVMs are
//     refused before anything is sent to them.
//  2. The socket is /proc/PID/root/tmp/.java_pid<NSPID>. If it answers, done.
//  3. Otherwise, unless the JVM says attach is off (hsperfdata
//     sun.rt.jvmCapabilities, or -XX:+DisableAttachMechanism on its command
//     line or in JAVA_TOOL_OPTIONS), and only if the process catches SIGQUIT
//     (/proc/PID/status SigCgt: an ordinary process or a JVM run with -Xrs
//     would die of it), create .attach_pid<NSPID> in the JVM's cwd (else its
//     /tmp), owned by the JVM's uid (the JVM ignores a trigger owned by
//     anyone else but root, and root of the host is not root in a user
//     namespace), send SIGQUIT, and wait for the socket. A socket at the
//     path that refuses connections or is another user's (a JVM killed with
//     SIGKILL left it, and its pid came round) is replaced by the listener,
//     unless the JVM may not do so in the sticky /tmp: then attach says
//     which file to remove, at once, instead of waiting out the timeout.
//  4. Each command is one connection: "1\0<cmd>\0<arg1>\0<arg2>\0<arg3>\0";
//     the reply is the result code on a line, then the output until EOF.
//     Diagnostic commands go as cmd "jcmd" with the whole command line as
//     arg1. The listener checks the client's uid/gid (SO_PEERCRED) equal its
//     own, or root. Host root is accepted by a JVM in the same user
//     namespace; for a JVM in another user namespace (a rootless or
//     userns-remapped container) the connection is made from a short-lived
//     copy of this program that switched to the JVM's uid/gid (see helper.go).
package attach

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Method chooses how commands reach the JVM.
type Method string

const (
	Auto   Method = ""       // the socket; the jcmd/jstack on this host if that fails unexpectedly
	Socket Method = "socket" // the attach protocol only
	JCmd   Method = "jcmd"   // the JDK's jcmd (and jstack) on this host only
)

// Options tune Attach.
type Options struct {
	// Timeout bounds starting the attach listener (SIGQUIT until the socket
	// appears) and the first command; default 5s.
	Timeout time.Duration
	// CommandTimeout bounds each command whose context has no deadline;
	// default 60s (a Thread.print of a JVM with 10,000 threads takes seconds).
	CommandTimeout time.Duration
	Method         Method
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 5 * time.Second
}

func (o Options) commandTimeout() time.Duration {
	if o.CommandTimeout > 0 {
		return o.CommandTimeout
	}
	return 60 * time.Second
}

// VM is an attached JVM. Its methods may be called from one goroutine at a time.
type VM struct {
	PID   int // as seen from here
	NSPID int // as the JVM sees itself (differs inside a pid namespace)
	UID   int // the JVM's effective uid and gid, as seen from here
	GID   int
	User  string
	// Socket is the attach socket as reached from here.
	Socket string
	// Version is the first line of VM.version ("OpenJDK 64-Bit Server VM version 17.0.15+6-...").
	Version string
	// Started is true when this attach started the JVM's attach listener
	// (trigger file and SIGQUIT); false when it was already running.
	Started bool
	// Latency is how long Attach took, first command included.
	Latency time.Duration
	// Via says how commands are sent: "socket", "socket as uid N" or the
	// path of the jcmd in use.
	Via string

	opts   Options
	proc   procInfo
	asUser bool   // connect from a helper running as the JVM's uid/gid
	jcmd   string // fallback: run this jcmd instead of using the socket
	jstack string
}

// Attach attaches to the JVM with host pid pid.
func Attach(pid int, opts Options) (*VM, error) {
	return AttachContext(context.Background(), pid, opts)
}

// AttachContext is Attach with a context that can cancel the wait.
func AttachContext(ctx context.Context, pid int, opts Options) (*VM, error) {
	start := time.Now()
	p, err := readProc(pid)
	if err != nil {
		return nil, err
	}
	if err := checkHotSpot(p); err != nil {
		return nil, err
	}
	vm := &VM{PID: pid, NSPID: p.NSPID, UID: p.UID, GID: p.GID, User: userName(p.UID), opts: opts, proc: p,
		Socket: procPath(pid, "root/tmp/"+sockName(p.NSPID))}
	// Host root is not root inside another user namespace: connect as the JVM's user there.
	vm.asUser = os.Geteuid() == 0 && p.UID != 0 && !sameNamespace(pid, "user")

	if opts.Method == JCmd {
		if err := vm.useTools(); err != nil {
			return nil, err
		}
		err = vm.hello(ctx)
	} else {
		err = vm.attachSocket(ctx)
		if err != nil && opts.Method == Auto && fallbackWorthy(err) && vm.useTools() == nil {
			if err2 := vm.hello(ctx); err2 == nil {
				err = nil
			} else {
				err = fmt.Errorf("%w; %s also failed: %v", err, vm.jcmd, err2)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	vm.Latency = time.Since(start)
	return vm, nil
}

// fallbackWorthy: errors a JDK's own tool might get past. The typed kinds
// are facts about the JVM that jcmd would meet too.
func fallbackWorthy(err error) bool {
	for _, k := range []error{ErrNoSuchProcess, ErrNotHotSpot, ErrAttachDisabled, ErrTimeout, ErrStaleSocket} {
		if errors.Is(err, k) {
			return false
		}
	}
	return !(errors.Is(err, ErrPermission) && os.Geteuid() != 0)
}

func checkHotSpot(p procInfo) error {
	if p.OpenJ9 {
		return &Error{PID: p.PID, Kind: ErrNotHotSpot,
			Detail: finding.T("an OpenJ9 / IBM J9 JVM (libj9vm in its memory map), whose attach mechanism differs from HotSpot's",
				"这是 OpenJ9 / IBM J9 JVM（内存映射中有 libj9vm），其 attach 机制与 HotSpot 不同"),
			Advice: finding.T("Use that JDK's own jcmd/jstack, or `kill -3 PID`, which makes OpenJ9 write a javacore*.txt in its working directory",
				"请使用该 JDK 自带的 jcmd/jstack，或执行 `kill -3 PID`（OpenJ9 会在工作目录写出 javacore*.txt）")}
	}
	if p.LibJVM == "" {
		what := "?"
		if len(p.Args) > 0 && p.Args[0] != "" {
			what = p.Args[0]
		}
		return &Error{PID: p.PID, Kind: ErrNotHotSpot,
			Detail: finding.Tf(finding.T("no libjvm.so in its memory map (%s); nothing was sent to it",
				"其内存映射中没有 libjvm.so(%s)；未向其发送任何信号"), what),
			Advice: finding.T("List the JVMs on this host with `tuneloop jvm`; a JVM that is still starting maps libjvm.so within milliseconds, so retry",
				"用 `tuneloop jvm` 列出本机 JVM；刚启动的 JVM 会在几毫秒内加载 libjvm.so，可稍后重试")}
	}
	return nil
}

// hello runs VM.version, proving the channel works, and records the version.
func (vm *VM) hello(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, vm.opts.timeout()+5*time.Second)
	defer cancel()
	out, err := vm.Execute(ctx, "VM.version")
	if err != nil {
		return err
	}
	vm.Version = finding.FirstLine(strings.TrimSpace(out))
	return nil
}

// attachSocket finds or starts the attach listener and says hello.
func (vm *VM) attachSocket(ctx context.Context) error {
	vm.setVia()
	var stale fileInfo // a socket at the path that is not this JVM's listener
	refused := false
	f, fi, err := vm.openSocket()
	switch {
	case err == nil:
		f.Close()
		err := vm.helloAs(ctx)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
			return err
		}
		stale, refused = fi, true // nobody listens on it: a dead JVM's, or left behind
	case errors.Is(err, errNotJVMs):
		stale, _ = vm.statTmp(sockName(vm.NSPID))
	case errors.Is(err, fs.ErrPermission):
		return errPermission(vm.PID, vm.User, err)
	}
	if err := vm.startListener(ctx, stale, refused); err != nil {
		return err
	}
	vm.Started = true
	return vm.helloAs(ctx)
}

func sockName(nspid int) string { return ".java_pid" + strconv.Itoa(nspid) }

// helloAs says hello and, when the JVM refuses host root (another user
// namespace seen as the same one, or an unusual setup), retries as the
// JVM's own uid/gid.
func (vm *VM) helloAs(ctx context.Context) error {
	err := vm.hello(ctx)
	if errors.Is(err, errRefused) && !vm.asUser && os.Geteuid() == 0 && vm.UID != 0 {
		vm.asUser = true
		vm.setVia()
		err = vm.hello(ctx)
	}
	return err
}

func (vm *VM) setVia() {
	vm.Via = "socket"
	if vm.asUser {
		vm.Via = fmt.Sprintf("socket as uid %d gid %d", vm.UID, vm.GID)
	}
}

// startListener is step 3 of the package comment.
// stale is the socket file found at the path that nothing answered on
// (refused: connections to it were refused), if any.
func (vm *VM) startListener(ctx context.Context, stale fileInfo, refused bool) error {
	p := vm.proc
	if off, how := attachDisabled(p); off {
		return &Error{PID: vm.PID, Kind: ErrAttachDisabled,
			Detail: finding.Tf(finding.T("the JVM was started with -XX:+DisableAttachMechanism (%s); no signal was sent",
				"该 JVM 以 -XX:+DisableAttachMechanism 启动（%s）；未发送任何信号"), how),
			Advice: finding.T("Attach cannot be switched on at run time: restart the JVM without that flag; meanwhile `kill -3 PID` still prints a thread dump to the JVM's stdout (its console log)",
				"attach 无法在运行时开启：请去掉该参数后重启 JVM；在此之前 `kill -3 PID` 仍可把线程转储打印到 JVM 的标准输出（控制台日志）")}
	}
	if !p.CatchQuit {
		if hasArg(p.Args, "-Xrs") {
			return &Error{PID: vm.PID, Kind: ErrAttachDisabled,
				Detail: finding.T("the JVM runs with -Xrs, does not handle SIGQUIT, and its attach socket is gone (a /tmp cleaner may have removed it); SIGQUIT would kill it, so none was sent",
					"该 JVM 以 -Xrs 运行，不处理 SIGQUIT，且其 attach 套接字已不存在（可能被 /tmp 清理任务删除）；发送 SIGQUIT 会杀死它，因此未发送"),
				Advice: finding.T("Restart the JVM (without -Xrs if possible) and exclude /tmp/.java_pid* from tmp cleaners (systemd-tmpfiles: `x /tmp/.java_pid*`)",
					"请重启 JVM（尽量去掉 -Xrs），并让 /tmp 清理任务排除 /tmp/.java_pid*(systemd-tmpfiles:`x /tmp/.java_pid*`)")}
		}
		return &Error{PID: vm.PID, Kind: ErrTimeout,
			Detail: finding.T("the process does not handle SIGQUIT yet (a JVM still starting?); SIGQUIT would kill it, so none was sent",
				"该进程尚未处理 SIGQUIT（JVM 仍在启动？）；发送 SIGQUIT 会杀死它，因此未发送"),
			Advice: finding.T("Retry in a few seconds", "请几秒后重试")}
	}

	// The listener would fail on either file, for tuneloop and jcmd alike:
	// say so now rather than after the timeout.
	if stale.ino != 0 && vm.cannotReplace(stale.uid) {
		return vm.errStaleSocket(sockName(vm.NSPID), stale.uid, refused)
	}
	if t, ok := vm.statTmp(sockName(vm.NSPID) + ".tmp"); ok && vm.cannotReplace(t.uid) {
		return vm.errStaleSocket(sockName(vm.NSPID)+".tmp", t.uid, false)
	}
	remove, err := vm.trigger()
	if err != nil {
		return err
	}
	defer remove()
	if err := syscall.Kill(vm.PID, syscall.SIGQUIT); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return errNoProcess(vm.PID, nil)
		}
		return errPermission(vm.PID, vm.User, err)
	}
	deadline := time.NewTimer(vm.opts.timeout())
	defer deadline.Stop()
	// Poll 1, 2, 4 ... ms, then every 20 ms: a healthy JVM answers in a few ms.
	step := time.Millisecond
	for {
		if ino := vm.socketInode(); ino != 0 && ino != stale.ino {
			return nil
		}
		if exited(vm.PID) {
			return errNoProcess(vm.PID, errors.New("the JVM exited while attaching"))
		}
		if stopped(vm.PID) {
			return errStopped(vm.PID)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			if now, ok := vm.statTmp(sockName(vm.NSPID)); ok && stale.ino != 0 && now.ino == stale.ino && now.uid != vm.UID {
				return vm.errStaleSocket(sockName(vm.NSPID), now.uid, refused)
			}
			return &Error{PID: vm.PID, Kind: ErrTimeout,
				Detail: finding.Tf(finding.T("no attach socket %[1]s within %[2]s of SIGQUIT", "发送 SIGQUIT 后 %[2]s 内未出现 attach 套接字 %[1]s"), vm.Socket, vm.opts.timeout()),
				Advice: finding.T("The JVM may be hung (a long GC or safepoint, out of memory or threads) or have -XX:+DisableAttachMechanism in a flags file; retry with a longer --timeout; `kill -3 PID` prints a thread dump to the JVM's stdout even then",
					"JVM 可能已挂起（长时间 GC 或安全点、内存或线程耗尽），或在参数文件中设置了 -XX:+DisableAttachMechanism；可用更长的 --timeout 重试；此时 `kill -3 PID` 仍会把线程转储打印到 JVM 的标准输出")}
		case <-time.After(step):
			step = min(2*step, 20*time.Millisecond)
		}
	}
}

// attachDisabled reports whether the JVM has switched attach off, and how we know.
func attachDisabled(p procInfo) (bool, string) {
	if p.PerfData != "" {
		if b, err := os.ReadFile(procPath(p.PID, "root"+p.PerfData)); err == nil {
			if pd, err := parsePerfData(b); err == nil {
				if capable, known := attachCapable(pd); known {
					return !capable, "hsperfdata sun.rt.jvmCapabilities"
				}
			}
		}
	}
	// JAVA_TOOL_OPTIONS and JDK_JAVA_OPTIONS come before the command line, _JAVA_OPTIONS after.
	env := readEnviron(p.PID)
	v, set := lastBoolFlag(p.Args, "DisableAttachMechanism")
	ev, eset := lastBoolFlag(env, "DisableAttachMechanism")
	switch {
	case set:
		return v, "command line"
	case eset:
		return ev, "JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS / _JAVA_OPTIONS"
	}
	return false, ""
}

// Execute runs a diagnostic command, as `jcmd PID command args...` would,
// and returns its output. A command the JVM rejects is a *CommandError.
func (vm *VM) Execute(ctx context.Context, command string, args ...string) (string, error) {
	line := strings.TrimSpace(command + " " + strings.Join(args, " "))
	if vm.jcmd != "" {
		return vm.runJCmd(ctx, line)
	}
	out, err := vm.Operation(ctx, "jcmd", line)
	var ce *CommandError
	if errors.As(err, &ce) {
		ce.Command = line
	}
	return out, err
}

// Operation sends one raw attach operation ("jcmd", "properties",
// "threaddump", "agentProperties", ...) with up to three arguments.
func (vm *VM) Operation(ctx context.Context, op string, args ...string) (string, error) {
	if vm.jcmd != "" {
		return "", fmt.Errorf("attach: operation %q needs the socket; this JVM is reached through %s", op, vm.jcmd)
	}
	req, err := request(op, args...)
	if err != nil {
		return "", err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, vm.opts.commandTimeout())
		defer cancel()
	}
	var stale fileInfo
	send := func() (int, []byte, error) {
		f, fi, err := vm.openSocket()
		if err != nil {
			return 0, nil, err
		}
		defer f.Close()
		stale = fi
		if vm.asUser {
			return helperRoundTrip(ctx, f, vm.UID, vm.GID, req)
		}
		return roundTrip(ctx, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), req)
	}
	code, out, err := send()
	if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)) && !exited(vm.PID) {
		// The socket went away under a running JVM (a /tmp cleaner): start
		// the listener again, as jcmd would, and retry once.
		if e := vm.startListener(ctx, stale, errors.Is(err, syscall.ECONNREFUSED)); e != nil {
			return "", e
		}
		vm.Started = true
		code, out, err = send()
	}
	if err != nil {
		name := op
		if op == "jcmd" && len(args) > 0 {
			name = args[0]
		}
		return "", vm.transportError(ctx, name, err)
	}
	if code != 0 {
		return string(out), &CommandError{Command: op, Code: code, Output: string(out)}
	}
	return string(out), nil
}

// errRefused marks a connection the JVM closed without a reply: its
// credentials check failed.
var errRefused = errors.New("connection closed without a reply")

func (vm *VM) transportError(ctx context.Context, op string, err error) error {
	switch {
	case ctx.Err() != nil && stopped(vm.PID):
		return errStopped(vm.PID)
	case ctx.Err() != nil:
		return &Error{PID: vm.PID, Kind: ErrTimeout, Err: ctx.Err(),
			Detail: finding.Tf(finding.T("%s did not finish in time", "%s 未在限定时间内完成"), op),
			Advice: finding.T("The JVM may be stuck at a safepoint (a long GC, a huge heap dump) or short of memory; retry with a longer timeout, or take `kill -3 PID` (printed to its stdout)",
				"JVM 可能卡在安全点（长时间 GC、大堆转储）或内存不足；请加长超时重试，或使用 `kill -3 PID`（输出在其标准输出）")}
	case errors.Is(err, errNoReply), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		if exitedWithin(vm.PID, 300*time.Millisecond) {
			return errExited(vm.PID, fmt.Errorf("%s: %w", op, err))
		}
		return &Error{PID: vm.PID, Kind: ErrPermission, Err: errRefused,
			Detail: finding.Tf(finding.T("the JVM (user %s) closed the connection without a reply: its attach listener accepts only its own uid/gid, or root of its user namespace",
				"JVM（用户 %s）未作任何回复即关闭了连接：其 attach 监听只接受相同 uid/gid 或其用户命名空间内的 root"), vm.User),
			Advice: finding.Tf(finding.T("Run tuneloop as root, or as the JVM's user and group (sudo -u %s tuneloop jvm PID)",
				"请以 root 运行 tuneloop，或以 JVM 的用户和组运行（sudo -u %s tuneloop jvm PID）"), vm.User)}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ECONNREFUSED):
		if exited(vm.PID) {
			return errNoProcess(vm.PID, errors.New("the JVM exited"))
		}
		return fmt.Errorf("pid %d: attach socket %s: %w", vm.PID, vm.Socket, err)
	case errors.Is(err, fs.ErrPermission):
		return errPermission(vm.PID, vm.User, err)
	}
	return fmt.Errorf("pid %d: %s: %w", vm.PID, op, err)
}

// roundTrip sends req on a new connection and reads the whole reply.
func roundTrip(ctx context.Context, path string, req []byte) (int, []byte, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
	defer stop()
	if _, err := c.Write(req); err != nil {
		return 0, nil, err
	}
	return readReply(c)
}
