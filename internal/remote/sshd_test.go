package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/remote/sshdtest"
)

func startSSHD(t *testing.T) *sshdtest.SSHD { return sshdtest.Start(t) }

func opts(d *sshdtest.SSHD) Options {
	return Options{Home: d.Dir, KnownHosts: d.Known, Identities: []string{d.UserKey}, NoAgent: true, NoConfig: true,
		Timeout: 5 * time.Second, KeepAlive: time.Second}
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-tuneloop")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunOverSSH(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	arch, err := c.Arch()
	if err != nil || arch != runtime.GOARCH {
		t.Fatalf("arch %q %v, want %s", arch, err, runtime.GOARCH)
	}
	where := filepath.Join(t.TempDir(), "where")
	bin := script(t, `echo "$(dirname "$0")" > `+where+`
echo "args: $*"
printf 'evil \033]0;title\007 end\n'
echo "to stderr" >&2
exit 3
`)
	var out, errb bytes.Buffer
	res, err := c.Exec(context.Background(), Job{Binary: bin, Args: []string{"check", "--lang", "it's"}, Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 {
		t.Errorf("exit code %d, want the remote one, 3", res.ExitCode)
	}
	if !strings.Contains(out.String(), "args: check --lang it's\n") || !strings.Contains(errb.String(), "to stderr") {
		t.Errorf("stdout %q stderr %q", out.String(), errb.String())
	}
	if strings.Contains(errb.String(), dirMarker) {
		t.Errorf("the folder marker was shown: %q", errb.String())
	}
	if strings.ContainsRune(out.String(), 0x1b) || strings.ContainsRune(out.String(), 0x07) {
		t.Errorf("the host's escape sequences reached the terminal: %q", out.String())
	}
	b, _ := os.ReadFile(where)
	tmp := strings.TrimSpace(string(b))
	if !strings.HasPrefix(tmp, "/tmp/tuneloop.") {
		t.Fatalf("ran from %q", tmp)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copied binary's folder %s is still there (%v)", tmp, err)
	}
}

func TestRunFetchesRunFolder(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bin := script(t, `[ "$1" = record ] && [ "$2" = --out ] || exit 9
mkdir -p "$3/raw" && echo '{"status":"complete"}' > "$3/manifest.json" && echo sample > "$3/raw/samples.jsonl.gz"
echo "report on stdout"
echo "a warning" >&2
`)
	into := filepath.Join(t.TempDir(), "run")
	var errb bytes.Buffer
	res, err := c.Exec(context.Background(), Job{Binary: bin, Args: []string{"record", "--out", FetchDir}, Limit: 30 * time.Second,
		Fetch: true, Into: into, Stderr: &errb})
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(into, "manifest.json"))
	if err != nil || !strings.Contains(string(b), "complete") {
		t.Fatalf("manifest: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(into, "raw", "samples.jsonl.gz")); err != nil {
		t.Error(err)
	}
	if len(res.Files) != 2 || !strings.Contains(errb.String(), "a warning") || strings.Contains(errb.String(), "report") {
		t.Errorf("files %v, stderr %q", res.Files, errb.String())
	}
}

func TestUnknownHostKeyRefused(t *testing.T) {
	d := startSSHD(t)
	o := opts(d)
	o.KnownHosts = filepath.Join(d.Dir, "empty_known_hosts")
	_, err := Dial(context.Background(), d.Spec(), o)
	if err == nil {
		t.Fatal("connected to a host whose key is not known")
	}
	fp := ssh.FingerprintSHA256(d.HostPub)
	for _, want := range []string{"not known", fp, "ssh-keyscan -t ed25519 -p " + strconv.Itoa(d.Port) + " 127.0.0.1 >> " + o.KnownHosts} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}
	if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, "主机密钥未知") || !strings.Contains(zh, fp) {
		t.Errorf("Chinese: %s", zh)
	}

	// A known host whose key changed is refused too.
	other := sshdtest.WriteKey(t, filepath.Join(d.Dir, "other_key"))
	changed := filepath.Join(d.Dir, "changed_known_hosts")
	os.WriteFile(changed, []byte(knownhosts.Line([]string{knownhosts.Normalize("127.0.0.1:" + strconv.Itoa(d.Port))}, other)+"\n"), 0o600)
	o.KnownHosts = changed
	if _, err := Dial(context.Background(), d.Spec(), o); err == nil || !strings.Contains(err.Error(), "CHANGED") || !strings.Contains(err.Error(), fp) {
		t.Errorf("changed key: %v", err)
	}
}

func TestWrongKeyRefused(t *testing.T) {
	d := startSSHD(t)
	o := opts(d)
	wrong := filepath.Join(d.Dir, "wrong_key")
	sshdtest.WriteKey(t, wrong)
	o.Identities = []string{wrong}
	_, err := Dial(context.Background(), d.Spec(), o)
	if err == nil {
		t.Fatal("logged in with a key that is not authorised")
	}
	if !strings.Contains(err.Error(), "refused every key offered") || !strings.Contains(err.Error(), wrong) {
		t.Errorf("message: %v", err)
	}
	if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, "拒绝了提供的所有密钥") {
		t.Errorf("Chinese: %s", zh)
	}
}

// TestConnectionCut kills the sshd process serving the connection while the
// remote job runs: the local side says so in both languages at once, and
// the remote side ends by itself at its limit, removing what was copied.
func TestConnectionCut(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	where := filepath.Join(t.TempDir(), "where")
	bin := script(t, `echo "$(dirname "$0")" > `+where+`
mkdir -p "$3"; echo partial > "$3/manifest.json"
sleep 60
`)
	go func() {
		for i := 0; i < 100; i++ {
			if b, _ := os.ReadFile(where); len(b) > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, pid := range d.Children(t) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	into := filepath.Join(t.TempDir(), "run")
	start := time.Now()
	_, err = c.Exec(context.Background(), Job{Binary: bin, Args: []string{"record", "--out", FetchDir}, Limit: 3 * time.Second,
		Fetch: true, Into: into})
	var le *LostError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a lost connection", err)
	}
	// At once: well before the remote limit's end plus the 10 s kill
	// grace (8 s leaves room for a machine with a load of 25).
	if time.Since(start) > 8*time.Second {
		t.Errorf("the loss took %s to notice and salvage", time.Since(start))
	}
	if en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH); !strings.Contains(en, "connection to 127.0.0.1") ||
		!strings.Contains(en, "1 files arrived, kept in "+into) || !strings.Contains(en, "partial run") ||
		!strings.Contains(zh, "连接在") || !strings.Contains(zh, "已收到 1 个文件") {
		t.Errorf("messages:\n%s\n%s", en, zh)
	}
	// What the remote run had written when the connection was cut came back.
	if b, err := os.ReadFile(filepath.Join(into, "manifest.json")); err != nil || string(b) != "partial\n" {
		t.Errorf("what arrived: %q %v", b, err)
	}
	b, _ := os.ReadFile(where)
	tmp := strings.TrimSpace(string(b))
	for i := 0; ; i++ {
		if _, err := os.Stat(tmp); errors.Is(err, os.ErrNotExist) {
			break
		}
		if i > 150 {
			t.Fatalf("%s still on the target 15 s after the connection was cut (limit 3 s)", tmp)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestBinaryFor(t *testing.T) {
	self := filepath.Join(t.TempDir(), "tuneloop")
	if p, err := BinaryFor(runtime.GOARCH, self); err != nil || p != self {
		t.Errorf("same arch: %q %v", p, err)
	}
	other := "arm64"
	if runtime.GOARCH == "arm64" {
		other = "amd64"
	}
	if _, err := BinaryFor(other, self); err == nil || !strings.Contains(err.Error(), "make cross") {
		t.Errorf("missing cross binary: %v", err)
	}
	os.WriteFile(filepath.Join(filepath.Dir(self), "tuneloop-linux-"+other), []byte("x"), 0o755)
	if p, err := BinaryFor(other, self); err != nil || filepath.Base(p) != "tuneloop-linux-"+other {
		t.Errorf("cross binary: %q %v", p, err)
	}
}

// TestConfigAliasAndJump reaches the sshd through a ~/.ssh/config alias
// whose ProxyJump is the same sshd (a forwarded TCP channel through it).
func TestConfigAliasAndJump(t *testing.T) {
	d := startSSHD(t)
	os.MkdirAll(filepath.Join(d.Dir, ".ssh"), 0o700)
	cfg := fmt.Sprintf("Host app1\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s\n  ProxyJump bastion\n\nHost bastion\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s\n",
		d.Port, d.UserName, d.UserKey, d.Port, d.UserName, d.UserKey)
	if err := os.WriteFile(filepath.Join(d.Dir, ".ssh", "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	o := opts(d)
	o.NoConfig, o.Identities = false, nil
	c, err := Dial(context.Background(), "app1", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.jump == nil || c.Target.ProxyJump != "bastion" || c.Target.Port != d.Port {
		t.Errorf("target %+v, jump %v", c.Target, c.jump != nil)
	}
	if arch, err := c.Arch(); err != nil || arch != runtime.GOARCH {
		t.Errorf("through the jump host: %q %v", arch, err)
	}
}

func TestJumpCycleEnds(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host a\n  ProxyJump b\nHost b\n  ProxyJump a\n"), 0o600)
	_, err := Dial(context.Background(), "a", Options{Home: home, NoAgent: true, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "ProxyJump cycle") {
		t.Errorf("cycle: %v", err)
	}
}

// fakeSudo stands in for sudo (this machine has none, and a test must not
// add users): with a password it prompts on the terminal as sudo does.
func fakeSudo(t *testing.T, password string) string {
	body := `[ "$1" = -n ] && shift && exec "$@"
exit 1
`
	if password != "" {
		body = `if [ "$1" = -n ]; then echo "sudo: a password is required" >&2; exit 1; fi
[ "$1" = -p ] && { prompt="$2"; shift 2; }
[ -t 0 ] || { echo "sudo: a terminal is required" >&2; exit 1; }
printf '%s' "$prompt" > /dev/tty
read pw < /dev/tty
[ "$pw" = ` + password + ` ] || { echo "Sorry, try again."; exit 1; }
exec "$@"
`
	} else {
		body = `[ "$1" = -n ] && shift
echo SUDO-RAN >&2
exec "$@"
`
	}
	return script(t, body)
}

func TestSudo(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	where := filepath.Join(t.TempDir(), "where")
	bin := script(t, `echo "$(dirname "$0")" > `+where+`
echo "privileged work $*"
`)
	gone := func() {
		t.Helper()
		b, _ := os.ReadFile(where)
		if tmp := strings.TrimSpace(string(b)); tmp == "" {
			t.Error("the binary did not run")
		} else if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left on the target", tmp)
		}
		os.Remove(where)
	}

	// Password-less sudo: one shell, no PTY, no prompt.
	var out, errb bytes.Buffer
	asked := 0
	pw := func(string) (string, error) { asked++; return "s3cret", nil }
	if _, err := c.Exec(context.Background(), Job{Binary: bin, Args: []string{"check"}, Sudo: true, SudoCmd: fakeSudo(t, ""), Password: pw,
		Stdout: &out, Stderr: &errb}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "SUDO-RAN") || !strings.Contains(out.String(), "privileged work check") || asked != 0 {
		t.Errorf("NOPASSWD: out %q err %q asked %d", out.String(), errb.String(), asked)
	}
	gone()

	// sudo that asks: answered on a PTY, the prompt and password never shown.
	out.Reset()
	withPW := fakeSudo(t, "s3cret")
	res, err := c.Exec(context.Background(), Job{Binary: bin, Args: []string{"check", "--all"}, Sudo: true, SudoCmd: withPW, Password: pw, Stdout: &out})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%v %+v (out %q)", err, res, out.String())
	}
	if asked != 1 || out.String() != "privileged work check --all\n" {
		t.Errorf("asked %d times, output %q", asked, out.String())
	}
	gone()

	// A wrong password is said so.
	out.Reset()
	_, err = c.Exec(context.Background(), Job{Binary: bin, Args: []string{"check"}, Sudo: true, SudoCmd: withPW,
		Password: func(string) (string, error) { return "wrong", nil }, Stdout: &out})
	if err == nil || !strings.Contains(err.Error(), "sudo refused the password") || strings.Contains(out.String(), "wrong") {
		t.Errorf("wrong password: %v, output %q", err, out.String())
	}

	// Fetching a run folder with a password-asking sudo is refused up front.
	_, err = c.Exec(context.Background(), Job{Binary: bin, Args: []string{"record"}, Sudo: true, SudoCmd: withPW, Password: pw, Fetch: true, Into: t.TempDir()})
	if err == nil || !strings.Contains(finding.Localize(err, finding.ZH), "免密 sudo") {
		t.Errorf("fetch with password sudo: %v", err)
	}
}
