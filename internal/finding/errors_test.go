package finding

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestLocalize(t *testing.T) {
	base := Errorf(T("cannot read %s: %v", "无法读取 %s:%v"), "a.txt", io.ErrUnexpectedEOF)
	if !errors.Is(base, io.ErrUnexpectedEOF) {
		t.Error("the cause is not kept")
	}
	wrapped := fmt.Errorf("--scenario s.yaml: %w", base)
	cases := []struct {
		err  error
		l    Lang
		want string
	}{
		{base, EN, "cannot read a.txt: unexpected EOF"},
		{base, ZH, "无法读取 a.txt:unexpected EOF"},
		{wrapped, ZH, "--scenario s.yaml: 无法读取 a.txt:unexpected EOF"},
		{wrapped, EN, "--scenario s.yaml: cannot read a.txt: unexpected EOF"},
		{errors.New("plain"), ZH, "plain"},
		{nil, ZH, ""},
		// A bilingual error inside another is said in the reader's language too.
		{Errorf(T("--scenario: %v", "--scenario:%v"), base), ZH, "--scenario:无法读取 a.txt:unexpected EOF"},
	}
	for _, c := range cases {
		if got := Localize(c.err, c.l); got != c.want {
			t.Errorf("Localize(%v, %s) = %q, want %q", c.err, c.l, got, c.want)
		}
	}
}

func TestTfTextArguments(t *testing.T) {
	got := Tf(T("%d requests (%s), %s", "%d 个请求(%s),%s"), 5, T("closed", "闭合模型"), T("ok", "好"))
	if got.EN != "5 requests (closed), ok" || got.ZH != "5 个请求(闭合模型),好" {
		t.Fatalf("%+v", got)
	}
}

// The OS's own error texts are said as glibc says them in zh_CN, wherever
// they sit: a bare *PathError or inside a bilingual message.
func TestLocalizeSystemErrors(t *testing.T) {
	_, err := os.Open("/nonexistent/tuneloop")
	if got := Localize(err, ZH); got != "open /nonexistent/tuneloop: 没有那个文件或目录" {
		t.Errorf("path error: %q", got)
	}
	if got := Localize(err, EN); got != err.Error() {
		t.Errorf("English changed: %q", got)
	}
	wrapped := fmt.Errorf("reading dumps: %w", Errorf(T("cannot read %s: %v", "无法读取 %s：%v"), "x.txt", err))
	if got := Localize(wrapped, ZH); got != "reading dumps: 无法读取 x.txt：open /nonexistent/tuneloop: 没有那个文件或目录" {
		t.Errorf("wrapped: %q", got)
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	if got := Localize(refused, ZH); !strings.HasSuffix(got, "connect: 拒绝连接") {
		t.Errorf("refused: %q", got)
	}
}
