package remote

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Arch is the target's Go architecture from `uname -m`.
func (c *Client) Arch() (string, error) {
	out, err := c.output("uname -m")
	if err != nil {
		return "", finding.Errorf(finding.T("%s: uname -m: %v", "%s：uname -m：%v"), c.Target.Addr(), err)
	}
	m := strings.TrimSpace(string(out))
	switch m {
	case "x86_64", "amd64":
		return "amd64", nil
	case "aarch64", "arm64":
		return "arm64", nil
	}
	return "", finding.Errorf(finding.T("%s is %s: tuneloop is built for x86_64 and aarch64 only", "%s 的架构是 %s：tuneloop 只有 x86_64 与 aarch64 的版本"),
		c.Target.Addr(), finding.SafeLine(m))
}

func (c *Client) output(cmd string) ([]byte, error) {
	s, err := c.ssh.NewSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Output(cmd)
}

// combined runs cmd there and returns its stdout and stderr together.
func (c *Client) combined(cmd string) ([]byte, error) {
	s, err := c.ssh.NewSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.CombinedOutput(cmd)
}

// BinaryFor finds the tuneloop binary to copy to a goarch host: the running
// one when the architecture matches, else bin/tuneloop-linux-<arch> (built
// by `make cross`) next to it or under ./bin.
func BinaryFor(goarch, self string) (string, error) {
	if goarch == runtime.GOARCH && self != "" {
		return self, nil
	}
	name := "tuneloop-linux-" + goarch
	var looked []string
	for _, d := range []string{filepath.Dir(self), "bin"} {
		p := filepath.Join(d, name)
		looked = append(looked, p)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", finding.Errorf(finding.T("no tuneloop binary for %s (looked for %s): build it with `make cross`", "没有 %s 版本的 tuneloop（查找了 %s）：请用 `make cross` 构建"),
		goarch, strings.Join(looked, ", "))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Job is one run of tuneloop on the target.
type Job struct {
	Binary string   // local file copied to the target
	Args   []string // tuneloop's arguments there
	// Limit bounds the remote run (timeout -k 10s): the remote side ends by
	// itself when the connection is lost. 0 = no bound (check).
	Limit time.Duration
	// Fetch names a folder the remote tuneloop writes under its temporary
	// folder (e.g. "run", passed as --out in Args by the caller through
	// FetchDir) that is sent back as a tar and unpacked into Into.
	Fetch bool
	Into  string
	// KeepStdout, with Fetch, keeps the remote stdout as this file of the
	// fetched folder (a report printed there, read here).
	KeepStdout string
	// Sudo runs the binary through sudo: password-less when that works
	// (sudo -n), else on a PTY answering its prompt with Password.
	Sudo     bool
	Password func(prompt string) (string, error)
	SudoCmd  string // "" = sudo (tests give a stand-in)
	// Started, if set, is called once the binary is copied and starts
	// there (a multi-host run starts its load when every recorder has).
	Started func()
	// Gate, if set, holds the binary back after its copy until the channel
	// is closed: several hosts, whatever their copy took, start together.
	Gate <-chan struct{}
	// Stdout and Stderr receive the remote output, made terminal-safe
	// (with Fetch, the remote stdout is dropped: the stream is the tar).
	Stdout, Stderr io.Writer
	// FailOnExit makes a non-zero exit of the remote tuneloop an
	// *ExitedError (a record whose run folder could not be written); else
	// the code is only Result.ExitCode (check's and jvm's own codes).
	FailOnExit bool
}

// ExitedError is a remote tuneloop that ended with a non-zero code: its
// last line on stderr says why; what arrived is kept.
type ExitedError struct {
	Host    string
	Code    int
	Said    string // the last line it wrote on stderr
	Arrived []string
	Into    string
}

func (e *ExitedError) Error() string { return e.Localize(finding.EN) }

// Localize says how it ended and what was kept; a full disk is said so.
func (e *ExitedError) Localize(l finding.Lang) string {
	kept := ""
	if e.Into != "" {
		kept = finding.Tf(finding.T("; %d files arrived, kept in %s", "；已收到 %d 个文件，保存在 %s"), len(e.Arrived), finding.SafeLine(e.Into)).In(l)
	}
	if strings.Contains(strings.ToLower(e.Said), "no space left") {
		return finding.Tf(finding.T("%s: no space left on /tmp there for the run folder (%s)%s; the remote temporary folder is removed",
			"%s：该主机 /tmp 空间不足，无法写入运行目录（%s）%s；远端临时目录已删除"), e.Host, finding.SafeLine(e.Said), kept).In(l)
	}
	said := finding.SafeLine(e.Said)
	if said == "" {
		said = finding.T("it printed no error", "它没有输出错误信息").In(l)
	}
	return finding.Tf(finding.T("%s: the remote tuneloop ended with exit code %d (%s)%s", "%s：远端 tuneloop 以退出码 %d 结束（%s）%s"),
		e.Host, e.Code, said, kept).In(l)
}

// FetchDir is the placeholder for the remote run folder in Job.Args.
const FetchDir = "@RUNDIR@"

// Result is what came back from a Job.
type Result struct {
	ExitCode int
	Files    []string // unpacked into Into, relative
}

// LostError is a connection lost while a job ran: what arrived is kept.
type LostError struct {
	Host    string
	After   time.Duration
	Arrived []string
	Into    string
	Err     error
	// Salvaged is set when a new connection fetched what the remote run
	// had written when the first was lost.
	Salvaged bool
}

func (e *LostError) Error() string { return e.Localize(finding.EN) }
func (e *LostError) Unwrap() error { return e.Err }

// Localize says what was lost and what was kept.
func (e *LostError) Localize(l finding.Lang) string {
	where := ""
	if e.Into != "" {
		where = finding.Tf(finding.T("; %d files arrived, kept in %s", "；已收到 %d 个文件，保存在 %s"), len(e.Arrived), finding.SafeLine(e.Into)).In(l)
		if e.Salvaged {
			where += finding.T(" (fetched over a new connection as they were then: a partial run)", "（通过新连接取回当时的状态：不完整的运行）").In(l)
		}
	}
	return finding.Tf(finding.T("connection to %s lost after %s (%v): the remote tuneloop stops by itself at its time limit and its temporary folder is removed%s",
		"与 %s 的连接在 %s 后中断（%v）：远端 tuneloop 会在其时限到达时自行结束并删除临时目录%s"),
		e.Host, e.After.Round(time.Second), e.Err, where).In(l)
}

// Exec copies the binary to a temporary folder on the target, runs it and
// removes the folder, all in one remote shell whose EXIT trap cleans up
// even when the connection is gone. The binary goes over stdin (head -c),
// so nothing but sh, mktemp, head, chmod (and timeout, tar when asked) is
// needed there.
func (c *Client) Exec(ctx context.Context, j Job) (*Result, error) {
	f, err := os.Open(j.Binary)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	s, err := c.ssh.NewSession()
	if err != nil {
		return nil, c.lost(err, time.Now(), nil, j.Into)
	}
	defer s.Close()

	run := j.command(`"$d"`)
	mode, err := c.sudoMode(&j)
	if err != nil {
		return nil, err
	}
	if mode == "pty" {
		s.Close()
		return c.runSudoPTY(ctx, j, st.Size(), f)
	} else if mode != "" {
		run = j.sudo() + " " + mode + run
	}
	script := j.script(run, st.Size())
	stderr := newSafeWriter(j.Stderr)
	said := &remoteSaid{started: j.Started}
	stderr.intercept = said.intercept
	s.Stderr = stderr
	var stdout *safeWriter
	var tarR *io.PipeReader
	var tarW *io.PipeWriter
	if j.Fetch {
		tarR, tarW = io.Pipe()
		s.Stdout = tarW
	} else {
		stdout = newSafeWriter(j.Stdout)
		s.Stdout = stdout
	}
	s.Stdin = f
	if j.Gate != nil {
		s.Stdin = io.MultiReader(f, &gateReader{gate: j.Gate})
	}
	start := time.Now()
	if err := s.Start("sh -c " + shellQuote(script)); err != nil {
		return nil, c.lost(err, start, nil, j.Into)
	}
	res := &Result{}
	var untarErr error
	untarDone := make(chan struct{})
	if j.Fetch {
		go func() {
			defer close(untarDone)
			untarErr = untar(tarR, j.Into, &res.Files)
			io.Copy(io.Discard, tarR)
		}()
	} else {
		close(untarDone)
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- s.Wait() }()
	select {
	case err = <-waitErr:
	case <-ctx.Done():
		s.Signal(ssh.SIGTERM)
		s.Close()
		err = <-waitErr
		if err == nil {
			err = ctx.Err()
		}
	}
	if tarW != nil {
		tarW.Close()
	}
	<-untarDone
	stderr.Flush()
	if stdout != nil {
		stdout.Flush()
	}
	if err := c.outcome(ctx, &j, res, err, start, st.Size(), said); err != nil {
		return res, err
	}
	if untarErr != nil {
		return res, finding.Errorf(finding.T("%s: the run folder did not arrive whole: %v", "%s：运行目录未完整传回：%v"), c.Target.Addr(), untarErr)
	}
	return res, nil
}

// script is the remote shell script: copy the binary, wait for the gate
// when there is one, run, and stream the run folder back as a tar when
// fetched.
func (j *Job) script(run string, size int64) string {
	script := copyScript(size, j.sudoClean())
	if j.Gate != nil {
		script += "read -r _ || exit 122\n"
	}
	if j.Fetch {
		// Its report is rendered here from the folder: stdout is the tar.
		out := "/dev/null"
		if j.KeepStdout != "" {
			out = `"$d/stdout"`
		}
		script += run + ` >` + out + `
rc=$?
`
		if j.KeepStdout != "" {
			script += `mkdir -p "$d/run" && mv "$d/stdout" "$d/run/"` + shellQuote(filepath.Base(j.KeepStdout)) + "\n"
		}
		script += `[ -d "$d/run" ] && tar -C "$d" -cf - run
exit $rc
`
	} else {
		script += run + "\n"
	}
	return script
}

// remoteSaid is what the remote script says on stderr beside the run's
// own lines: its folder, a copy error, that it started; last is the run's
// last line.
type remoteSaid struct {
	dir, copyErr, last string
	started            func()
}

// intercept takes the script's marker lines out of stderr.
func (r *remoteSaid) intercept(line string) bool {
	if d, ok := strings.CutPrefix(line, dirMarker); ok && r.dir == "" {
		r.dir = d
		return true
	}
	if e, ok := strings.CutPrefix(line, errMarker); ok && r.copyErr == "" {
		r.copyErr = e
		return true
	}
	if line == startedMarker {
		if r.started != nil {
			r.started()
		}
		return true
	}
	if strings.TrimSpace(line) != "" {
		r.last = line
	}
	return false
}

// outcome turns how the remote shell ended into the run's error (nil: it
// ran): a copy that failed, an overrun limit, a failing exit when that
// counts, a lost connection (what the run had written is fetched again).
func (c *Client) outcome(ctx context.Context, j *Job, res *Result, err error, start time.Time, size int64, said *remoteSaid) error {
	var ee *ssh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitStatus()
		switch res.ExitCode {
		case 120, 121:
			return c.copyError(size, said.copyErr)
		case 124, 137:
			if j.Limit > 0 {
				return finding.Errorf(finding.T("%s: the remote tuneloop overran its limit of %s and was stopped", "%s：远端 tuneloop 超过时限 %s，已被终止"), c.Target.Addr(), j.Limit)
			}
		}
		if j.FailOnExit && res.ExitCode != 0 {
			return &ExitedError{Host: c.Target.Addr(), Code: res.ExitCode, Said: said.last, Arrived: res.Files, Into: j.Into}
		}
	default:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		le := c.lost(err, start, res.Files, j.Into)
		if j.Fetch && strings.HasPrefix(said.dir, "/tmp/tuneloop.") {
			// The remote run goes on until its limit: what it has written
			// so far (samples are flushed every tick) is fetched again over
			// a new connection, if one can be made.
			le.Arrived, le.Salvaged = c.salvage(ctx, said.dir, j.Into, res.Files), true
			res.Files = le.Arrived
		}
		return le
	}
	return nil
}

// command is the remote command line of the job, dir the shell expression
// of its temporary folder.
func (j *Job) command(dir string) string {
	args := make([]string, len(j.Args))
	for i, a := range j.Args {
		if a == FetchDir {
			args[i] = dir[:len(dir)-1] + `/run"`
		} else {
			args[i] = shellQuote(a)
		}
	}
	run := dir[:len(dir)-1] + `/tuneloop" ` + strings.Join(args, " ")
	if j.Limit > 0 {
		run = "timeout -k 10 " + strconv.Itoa(int(j.Limit.Seconds())+1) + " " + run
	}
	return run
}

// sudoClean removes, as root, what a job run with sudo left there.
func (j *Job) sudoClean() string {
	if !j.Sudo {
		return ""
	}
	return ` || ` + j.sudo() + ` -n rm -rf "$d"`
}

// copyScript is the start of every remote shell: a temporary folder
// (named on stderr), removed on exit, holding the binary read from stdin
// (size bytes, checked) and marked started on stderr.
func copyScript(size int64, sudoClean string) string {
	n := strconv.FormatInt(size, 10)
	return `d=$(mktemp -d /tmp/tuneloop.XXXXXX 2>&1) || { echo "` + errMarker + `$d" >&2; exit 120; }
echo "` + dirMarker + `$d" >&2
trap 'rm -rf "$d" 2>/dev/null` + sudoClean + `' EXIT HUP INT TERM PIPE
` + copyBinary(n) + ` || exit 121
chmod 700 "$d/tuneloop" || exit 121
echo "` + startedMarker + `" >&2
`
}

// copyBinary reads n bytes of stdin into "$d/tuneloop"; a failed or short
// copy says why on stderr (errMarker: the writer's error and df's line for
// /tmp) and is false.
func copyBinary(n string) string {
	return `e=$(head -c ` + n + ` 2>&1 >"$d/tuneloop") && [ "$(wc -c < "$d/tuneloop")" -eq ` + n + ` ] || {
echo "` + errMarker + `$(echo "$e" | tail -1) [$(df -Pk /tmp 2>/dev/null | tail -1 | tr -s " ")]" >&2; false; }`
}

// errMarker prefixes, on stderr, why the copy failed (taken out of what is
// shown, put in the error).
const errMarker = "@@tuneloop-error "

// copyError is the error of a copy into /tmp there that failed; detail is
// the remote side's reason (the writer's error and df's line for /tmp).
// A full /tmp is said as such, with the space the copy needed.
func (c *Client) copyError(size int64, detail string) error {
	detail = strings.TrimSpace(detail)
	if strings.Contains(strings.ToLower(detail), "no space left") {
		return finding.Errorf(finding.T("%s: no space left on /tmp there: tuneloop needs %d MiB to be copied (%s); nothing was left there",
			"%s：该主机 /tmp 空间不足：复制 tuneloop 需要 %d MiB（%s）；未在该主机留下任何文件"), c.Target.Addr(), (size+1<<20-1)>>20, finding.SafeLine(detail))
	}
	if detail == "" {
		detail = "full, read-only or noexec?"
	}
	return finding.Errorf(finding.T("%s: cannot copy tuneloop into /tmp there (%s)", "%s：无法把 tuneloop 复制到该主机的 /tmp（%s）"), c.Target.Addr(), finding.SafeLine(detail))
}

// startedMarker says on stderr that the copy is done (taken out of what is
// shown).
const startedMarker = "@@tuneloop-started"

// dirMarker prefixes the remote temporary folder's name on stderr (taken
// out of what is shown).
const dirMarker = "@@tuneloop-dir "

// salvage dials again and fetches dir/run as it stands into into; it
// returns every file that arrived (had plus the new ones).
func (c *Client) salvage(ctx context.Context, dir, into string, had []string) []string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	o := c.opts
	o.Timeout = 10 * time.Second
	nc, err := Dial(ctx, c.spec, o)
	if err != nil {
		return had
	}
	defer nc.Close()
	s, err := nc.ssh.NewSession()
	if err != nil {
		return had
	}
	defer s.Close()
	r, w := io.Pipe()
	s.Stdout = w
	if err := s.Start("tar -C " + shellQuote(dir) + " -cf - run 2>/dev/null"); err != nil {
		return had
	}
	files := append([]string(nil), had...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		untar(r, into, &files)
		io.Copy(io.Discard, r)
	}()
	werr := make(chan error, 1)
	go func() { werr <- s.Wait() }()
	select {
	case <-werr:
	case <-ctx.Done():
		s.Close()
		<-werr
	}
	w.Close()
	<-done
	return files
}

func (c *Client) lost(err error, start time.Time, arrived []string, into string) *LostError {
	return &LostError{Host: c.Target.Addr(), After: time.Since(start), Arrived: arrived, Into: into, Err: err}
}

// untar unpacks the remote "run/" folder into dir: regular files and
// folders only, no path leaving dir, at most 4 GiB in all.
func untar(r io.Reader, dir string, files *[]string) error {
	tr := tar.NewReader(r)
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		rel, ok := strings.CutPrefix(name, "run"+string(filepath.Separator))
		if name == "run" {
			continue
		}
		if !ok || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("refusing tar entry %q", finding.SafeLine(h.Name))
		}
		p := filepath.Join(dir, rel)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > 4<<30 {
				return errors.New("run folder larger than 4 GiB")
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			w, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, tr)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			// The host's time: a thread dump's mtime says when it was taken.
			os.Chtimes(p, h.ModTime, h.ModTime)
			*files = append(*files, rel)
		}
	}
}

// safeWriter passes the remote output through finding.Safe line by line:
// the host is not trusted to send only text.
type safeWriter struct {
	w   io.Writer
	buf *bufio.Writer
	pen []byte
	// intercept, if set, sees each whole line first and keeps it from the
	// output by returning true.
	intercept func(line string) bool
}

func newSafeWriter(w io.Writer) *safeWriter {
	if w == nil {
		w = io.Discard
	}
	return &safeWriter{w: w, buf: bufio.NewWriter(w)}
}

func (s *safeWriter) Write(p []byte) (int, error) {
	s.pen = append(s.pen, p...)
	for {
		i := strings.IndexByte(string(s.pen), '\n')
		if i < 0 {
			break
		}
		line := string(s.pen[:i])
		s.pen = s.pen[i+1:]
		if s.intercept != nil && s.intercept(line) {
			continue
		}
		s.buf.WriteString(finding.Safe(line) + "\n")
	}
	if len(s.pen) > 64<<10 { // a line that never ends
		s.buf.WriteString(finding.Safe(string(s.pen)))
		s.pen = s.pen[:0]
	}
	return len(p), s.buf.Flush()
}

// Flush writes a last line without its newline.
func (s *safeWriter) Flush() {
	if len(s.pen) > 0 {
		s.buf.WriteString(finding.Safe(string(s.pen)))
		s.pen = nil
	}
	s.buf.Flush()
}

// gateReader blocks until its gate is closed, then reads one newline: the
// go of a Job's Gate on the remote shell's stdin.
type gateReader struct {
	gate <-chan struct{}
	sent bool
}

func (g *gateReader) Read(p []byte) (int, error) {
	if g.sent {
		return 0, io.EOF
	}
	<-g.gate
	g.sent = true
	return copy(p, "\n"), nil
}
