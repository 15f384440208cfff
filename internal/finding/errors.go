package finding

import (
	"errors"
	"strings"
	"syscall"
)

// Error is an error a user reads, in English and Chinese. Error() is the
// English text; Localize picks the language at the point it is printed.
type Error struct {
	Msg Text
	Err error // the cause, for errors.Is/As; its text is already in Msg
}

func (e *Error) Error() string { return e.Msg.EN }
func (e *Error) Unwrap() error { return e.Err }

// Localize returns the message in l.
func (e *Error) Localize(l Lang) string { return e.Msg.In(l) }

// Errorf formats both languages with the same arguments; an argument that
// is itself a bilingual error is said in each language. The last argument,
// when it is an error, becomes the cause (write it with %v, not %w).
func Errorf(t Text, args ...any) *Error {
	// A bilingual error argument is a Text to Tf.
	targs, copied := args, false
	for i, a := range args {
		if loc, ok := a.(Localizer); ok {
			if !copied {
				targs, copied = append([]any(nil), args...), true
			}
			targs[i] = Text{EN: loc.Error(), ZH: Localize(loc, ZH)}
		}
	}
	e := &Error{Msg: Tf(t, targs...)}
	if n := len(args); n > 0 {
		if err, ok := args[n-1].(error); ok {
			e.Err = err
		}
	}
	return e
}

// Localizer is an error that can say itself in either language.
type Localizer interface {
	error
	Localize(Lang) string
}

// Localize renders err for a reader of l: the outermost error in the chain
// that can say itself in l does, inside whatever context wraps it (a file
// name, a flag); everything else stays as Error() has it.
func Localize(err error, l Lang) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if l == EN {
		return msg
	}
	var loc Localizer
	if errors.As(err, &loc) {
		if en := loc.Error(); en != "" && strings.Contains(msg, en) {
			msg = strings.Replace(msg, en, loc.Localize(l), 1)
		}
	}
	return errnoZH.Replace(msg)
}

// errnoZH says the system's error texts as glibc does in zh_CN (what
// coreutils print there), wherever the OS error sits in the message.
var errnoZH = func() *strings.Replacer {
	var pairs []string
	for errno, zh := range map[syscall.Errno]string{
		syscall.ENOENT: "没有那个文件或目录", syscall.EACCES: "权限不够", syscall.EPERM: "不允许的操作",
		syscall.EISDIR: "是一个目录", syscall.ENOTDIR: "不是目录", syscall.EEXIST: "文件已存在",
		syscall.ENOTEMPTY: "目录非空", syscall.ENOSPC: "设备上没有空间", syscall.EROFS: "只读文件系统",
		syscall.EMFILE: "打开的文件过多", syscall.ESRCH: "没有那个进程", syscall.EINVAL: "无效的参数",
		syscall.ECONNREFUSED: "拒绝连接", syscall.ECONNRESET: "连接被对方重置", syscall.ETIMEDOUT: "连接超时",
		syscall.EADDRINUSE: "地址已在使用", syscall.EHOSTUNREACH: "没有到主机的路由", syscall.ENETUNREACH: "网络不可达",
		syscall.EPIPE: "断开的管道",
	} {
		pairs = append(pairs, errno.Error(), zh)
	}
	return strings.NewReplacer(pairs...)
}()

var _ Localizer = (*Error)(nil)
