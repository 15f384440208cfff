package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// sudoPrompt is the prompt tuneloop asks sudo to print, to find it in the
// PTY's output and answer it (and never show it as remote output).
const sudoPrompt = "[tuneloop-sudo-password] "

// ErrNoPassword is returned when sudo wants a password and none can be asked.
var errNoPassword = errors.New("sudo needs a password")

// sudoMode finds out whether sudo is needed with a password: "" when the
// job is not run with sudo, "-n " when password-less sudo works (the job
// stays one shell without a PTY), "pty" when it asks for a password. A host
// without sudo, or whose sudo refuses the user outright, is an error before
// anything is copied there.
func (c *Client) sudoMode(j *Job) (string, error) {
	if !j.Sudo {
		return "", nil
	}
	out, err := c.combined("command -v " + j.sudo() + " >/dev/null 2>&1 || exit 127\n" + j.sudo() + " -n true")
	var ee *ssh.ExitError
	switch {
	case err == nil:
		return "-n ", nil
	case errors.As(err, &ee) && ee.ExitStatus() == 127:
		return "", finding.Errorf(finding.T("sudo is not installed on %s: run without --sudo (what needs root is then unavailable), or install sudo there",
			"%s 上没有安装 sudo：请去掉 --sudo（需要 root 的数据将不可用），或在该主机上安装 sudo"), c.Target.Addr())
	case errors.As(err, &ee):
		if said, ok := sudoRefused(string(out)); ok {
			return "", c.notSudoer(said)
		}
		return "pty", nil
	}
	return "", c.lost(err, time.Now(), nil, "")
}

// sudoRefused finds in sudo's output the line saying the user may not use
// it at all (as sudo words it: not in sudoers, may not run sudo, not
// allowed to execute), as opposed to asking for a password.
func sudoRefused(out string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "not in the sudoers") || strings.Contains(l, "may not run sudo") || strings.Contains(l, "is not allowed to execute") {
			return strings.TrimSpace(line), true
		}
	}
	return "", false
}

// notSudoer is the error of a user sudo refuses, with what sudo said.
func (c *Client) notSudoer(said string) error {
	return finding.Errorf(finding.T("%s may not run sudo on %s (sudo said: %s): ask for a sudoers entry there, or run without --sudo",
		"%s 无权在 %s 上使用 sudo（sudo 提示：%s）：请在该主机的 sudoers 中为其授权，或去掉 --sudo"),
		finding.SafeLine(c.Target.User), c.Target.Addr(), finding.SafeLine(said))
}

func (j *Job) sudo() string {
	if j.SudoCmd != "" {
		return j.SudoCmd
	}
	return "sudo"
}

// runSudoPTY runs a job whose sudo asks for a password: the binary is
// copied in a first session, then run in a second one on a PTY (sudo reads
// passwords from a terminal only), where the prompt is answered with
// j.Password's answer; echo is off on that PTY. The second shell's trap
// removes the copy. Its stdout and stderr arrive merged (one terminal).
func (c *Client) runSudoPTY(ctx context.Context, j Job, size int64, bin io.Reader) (*Result, error) {
	if j.Fetch {
		return nil, finding.Errorf(finding.T("%s: sudo asks for a password there; fetching a run folder needs password-less sudo (NOPASSWD) for now",
			"%s：该主机的 sudo 需要密码；目前取回运行目录需要免密 sudo（NOPASSWD）"), c.Target.Addr())
	}
	if j.Password == nil {
		return nil, finding.Errorf(finding.T("%s: sudo asks for a password and there is no terminal to ask it on", "%s：sudo 需要密码，但没有终端可以询问"), c.Target.Addr())
	}
	s, err := c.ssh.NewSession()
	if err != nil {
		return nil, c.lost(err, time.Now(), nil, "")
	}
	s.Stdin = bin
	n := strconv.FormatInt(size, 10)
	var errb bytes.Buffer
	s.Stderr = &errb
	out, err := s.Output(`d=$(mktemp -d /tmp/tuneloop.XXXXXX 2>&1) || { echo "` + errMarker + `$d" >&2; exit 120; }
` + copyBinary(n) + ` && chmod 755 "$d" "$d/tuneloop" || { rm -rf "$d"; exit 121; }
echo "$d"`)
	s.Close()
	dir := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(dir, "/tmp/tuneloop.") {
		_, detail, _ := strings.Cut(errb.String(), errMarker)
		detail, _, _ = strings.Cut(detail, "\n")
		return nil, c.copyError(size, detail)
	}
	s, err = c.ssh.NewSession()
	if err != nil {
		c.output("rm -rf " + shellQuote(dir))
		return nil, c.lost(err, time.Now(), nil, "")
	}
	defer s.Close()
	if err := s.RequestPty("dumb", 50, 200, ssh.TerminalModes{ssh.ECHO: 0, ssh.ONLCR: 0}); err != nil {
		c.output("rm -rf " + shellQuote(dir))
		return nil, finding.Errorf(finding.T("%s: no terminal for sudo's password prompt: %v", "%s：无法为 sudo 的密码提示分配终端：%v"), c.Target.Addr(), err)
	}
	stdin, err := s.StdinPipe()
	if err != nil {
		return nil, err
	}
	run := j.sudo() + " -p " + shellQuote(sudoPrompt) + " " + j.command(`"$d"`)
	script := "d=" + shellQuote(dir) + "\ntrap 'rm -rf \"$d\"' EXIT HUP INT TERM PIPE\n" + run + "\n"
	w := &promptWriter{out: newSafeWriter(j.Stdout), answer: func() {
		pw, err := j.Password(finding.Tf(finding.T("sudo password for %s: ", "%s 的 sudo 密码："), c.Target.User+"@"+c.Target.Host).EN)
		if err != nil {
			stdin.Close()
			return
		}
		io.WriteString(stdin, pw+"\n")
	}}
	s.Stdout, s.Stderr = w, w
	start := time.Now()
	if err := s.Start("sh -c " + shellQuote(script)); err != nil {
		return nil, c.lost(err, start, nil, "")
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- s.Wait() }()
	select {
	case err = <-waitErr:
	case <-ctx.Done():
		s.Close()
		err = <-waitErr
	}
	w.finish()
	res := &Result{}
	var ee *ssh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitStatus()
		if res.ExitCode == 1 && w.refused != "" {
			return res, c.notSudoer(w.refused)
		}
		if w.asked > 0 && res.ExitCode == 1 && w.sorry {
			return res, finding.Errorf(finding.T("%s: sudo refused the password", "%s：sudo 拒绝了该密码"), c.Target.Addr())
		}
	case ctx.Err() != nil:
		return res, ctx.Err()
	default:
		return res, c.lost(err, start, nil, "")
	}
	return res, nil
}

// finish writes what was held back and flushes.
func (p *promptWriter) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.Write(p.pen)
	p.pen = nil
	p.out.Flush()
}

// promptWriter passes the PTY's output on, answering sudo's prompt each
// time it appears and dropping it (and the terminal's \r) from the output.
type promptWriter struct {
	mu     sync.Mutex
	out    *safeWriter
	answer func()
	pen    []byte
	asked  int
	sorry  bool
	// refused is sudo's line saying the user may not use it (after the
	// password, as sudo checks sudoers only then).
	refused string
}

func (p *promptWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pen = append(p.pen, bytes.ReplaceAll(b, []byte("\r"), nil)...)
	for {
		if i := bytes.Index(p.pen, []byte(sudoPrompt)); i >= 0 {
			p.out.Write(p.pen[:i])
			p.pen = p.pen[i+len(sudoPrompt):]
			p.asked++
			if p.asked > 3 {
				return len(b), errNoPassword
			}
			p.answer()
			continue
		}
		// Keep a tail that may be the start of a prompt cut in two.
		keep := min(len(p.pen), len(sudoPrompt)-1)
		if bytes.Contains(p.pen, []byte("Sorry, try again")) || bytes.Contains(p.pen, []byte("incorrect password")) {
			p.sorry = true
		}
		if said, ok := sudoRefused(string(p.pen)); ok && p.refused == "" {
			p.refused = said
		}
		p.out.Write(p.pen[:len(p.pen)-keep])
		p.pen = p.pen[len(p.pen)-keep:]
		return len(b), nil
	}
}
