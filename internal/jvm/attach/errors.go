package attach

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// The kinds of attach failure; test with errors.Is. Each *Error carries one
// of them plus what was seen and what to do, in English and Chinese.
var (
	ErrNoSuchProcess  = errors.New("no such process")
	ErrNotHotSpot     = errors.New("not a HotSpot JVM")
	ErrAttachDisabled = errors.New("the attach mechanism is disabled")
	ErrPermission     = errors.New("permission denied")
	ErrTimeout        = errors.New("the JVM did not respond")
	ErrStopped        = errors.New("the process is stopped")
	ErrStaleSocket    = errors.New("a stale attach socket is in the way")
)

var kindText = map[error]finding.Text{
	ErrNoSuchProcess:  finding.T("no such process", "进程不存在"),
	ErrNotHotSpot:     finding.T("not a HotSpot JVM", "不是 HotSpot JVM"),
	ErrAttachDisabled: finding.T("the attach mechanism is disabled", "该 JVM 的 attach 机制不可用"),
	ErrPermission:     finding.T("permission denied", "权限不足"),
	ErrTimeout:        finding.T("the JVM did not respond", "JVM 无响应"),
	ErrStopped:        finding.T("the process is stopped", "进程处于停止状态"),
	ErrStaleSocket:    finding.T("a stale attach socket is in the way", "残留的 attach 套接字挡住了 attach"),
}

// Error is a failure to attach to (or to talk to) one JVM.
type Error struct {
	PID    int
	Kind   error        // one of the Err* values above
	Detail finding.Text // what was seen
	Advice finding.Text // what to do
	Err    error        // the underlying cause, if any
}

func (e *Error) Error() string { return e.Message(finding.EN) }

// Message is the whole error in one language: kind, detail, advice.
func (e *Error) Message(l finding.Lang) string {
	s := fmt.Sprintf("pid %d: %s", e.PID, kindText[e.Kind].In(l))
	if d := e.Detail.In(l); d != "" {
		s += ": " + d
	}
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	if a := e.Advice.In(l); a != "" {
		if l == finding.ZH {
			s += "。" + a
		} else {
			s += ". " + a
		}
	}
	return s
}

func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// CommandError is a command the JVM ran and reported as failed (a non-zero
// result code), with the JVM's own message.
type CommandError struct {
	Command string
	Code    int
	Output  string
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s: the JVM answered %d: %s", e.Command, e.Code, finding.FirstLine(e.Output))
}

func errNoProcess(pid int, err error) *Error {
	return &Error{PID: pid, Kind: ErrNoSuchProcess, Err: err,
		Detail: finding.T("there is no process with this pid (it may have exited)", "没有该 pid 的进程（可能已退出）"),
		Advice: finding.T("List the running JVMs with `tuneloop jvm` and use a pid from there", "用 `tuneloop jvm` 列出正在运行的 JVM，使用其中的 pid")}
}

// errExited: the JVM exited (was killed) while tuneloop spoke to it.
func errExited(pid int, err error) *Error {
	return &Error{PID: pid, Kind: ErrNoSuchProcess, Err: err,
		Detail: finding.T("the JVM exited while tuneloop was talking to it (killed, crashed or stopped by its owner)",
			"在 tuneloop 与 JVM 通信期间 JVM 退出了（被杀死、崩溃或被其所有者停止）"),
		Advice: finding.T("Look at why it exited: its log, `dmesg` for the OOM killer, a core file (hs_err_pid*.log in its working directory)",
			"请查明其退出原因：其日志、`dmesg` 中的 OOM killer 记录、崩溃文件（其工作目录下的 hs_err_pid*.log）")}
}

func errPermission(pid int, user string, err error) *Error {
	if pid > 0 && exitedWithin(pid, 300*time.Millisecond) {
		// A dying process refuses /proc reads and cuts connections: that
		// is its exit, not a lack of rights (it was said "run as root" to root).
		return errExited(pid, err)
	}
	if os.Geteuid() == 0 {
		return &Error{PID: pid, Kind: ErrPermission, Err: err,
			Detail: finding.Tf(finding.T("even root may not read this process's /proc entries (user %s): it is protected (not dumpable, an LSM such as SELinux or AppArmor, or a user namespace this one does not own)",
				"即使 root 也无权读取该进程（用户 %s）的 /proc 信息：该进程受保护（不可转储、SELinux/AppArmor 等安全模块，或不属于当前用户命名空间）"), user),
			Advice: finding.T("Run tuneloop inside the JVM's container or namespaces (nsenter -t PID -a tuneloop jvm PID-inside), or use the JDK's own jcmd there",
				"请在 JVM 所在容器或命名空间内运行 tuneloop（nsenter -t PID -a tuneloop jvm 容器内PID），或在其中使用 JDK 自带的 jcmd")}
	}
	return &Error{PID: pid, Kind: ErrPermission, Err: err,
		Detail: finding.Tf(finding.T("the JVM runs as user %s and this process may not read its /proc entries or connect to its attach socket",
			"该 JVM 以用户 %s 运行，当前进程无权读取其 /proc 信息或连接其 attach 套接字"), user),
		Advice: finding.Tf(finding.T("Run tuneloop as root (sudo tuneloop jvm PID) or as the JVM's user (sudo -u %s tuneloop jvm PID)",
			"请以 root 运行（sudo tuneloop jvm PID），或以 JVM 的用户运行（sudo -u %s tuneloop jvm PID）"), user)}
}

// errStopped: a process in state T (SIGSTOP, Ctrl-Z, a debugger) runs no
// code, so no attach listener can answer; waiting for it is pointless.
func errStopped(pid int) *Error {
	return &Error{PID: pid, Kind: ErrStopped,
		Detail: finding.T("its state is T (stopped by SIGSTOP/SIGTSTP or a debugger): it runs no code, so it can answer nothing",
			"其状态为 T（被 SIGSTOP/SIGTSTP 或调试器停止）：它不执行任何代码，因此无法响应"),
		Advice: finding.Tf(finding.T("Resume it with `kill -CONT %d` (or detach the debugger), then retry",
			"用 `kill -CONT %d` 恢复它（或断开调试器）后重试"), pid)}
}

// errStaleSocket: name in the JVM's /tmp, owned by owner, is not this JVM's,
// and the JVM may not replace it (sticky /tmp), so its attach listener
// cannot start. A JVM killed with SIGKILL leaves its socket; pids come round
// (pid_max is often 32768), and the next JVM of another user with that pid
// meets it. jcmd and jstack fail the same way, after their own timeout.
func (vm *VM) errStaleSocket(name string, owner int, refused bool) *Error {
	path, who := vm.tmpName(name), userName(owner)
	var d finding.Text
	if refused {
		d = finding.Tf(finding.T("%[1]s is a socket of user %[2]s that refuses connections: a process that had pid %[4]d before was killed (kill -9, the OOM killer) and left it",
			"%[1]s 是用户 %[2]s 的套接字，连接被拒绝：此前使用 pid %[4]d 的进程被强制杀死（kill -9、OOM killer）时留下了它"), path, who, vm.User, vm.NSPID)
	} else {
		d = finding.Tf(finding.T("%[1]s belongs to user %[2]s, not to the JVM's user %[3]s, so it is not this JVM's: a process that had pid %[4]d before left it",
			"%[1]s 属于用户 %[2]s，而非该 JVM 的用户 %[3]s，因此不是该 JVM 的：此前使用 pid %[4]d 的进程留下了它"), path, who, vm.User, vm.NSPID)
	}
	d = finding.Tf(finding.T("%s. /tmp is sticky, so the JVM (user %s) may not replace it and its attach listener cannot start; jcmd and jstack fail the same way",
		"%s。/tmp 设置了粘滞位，该 JVM（用户 %s）无权替换它，其 attach 监听无法启动；jcmd 和 jstack 同样会失败"), d, vm.User)
	return &Error{PID: vm.PID, Kind: ErrStaleSocket, Detail: d,
		Advice: finding.Tf(finding.T("Remove it as root (`rm %s`) and retry; the JVM need not restart. Stop JVMs with SIGTERM rather than SIGKILL, and they remove their socket",
			"以 root 删除它（`rm %s`）后重试，无需重启 JVM。停止 JVM 请用 SIGTERM 而非 SIGKILL，JVM 会自行删除其套接字"), path)}
}
