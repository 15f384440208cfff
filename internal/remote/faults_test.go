package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/remote/sshdtest"
)

// remoteTmp lists the tuneloop folders in the target's /tmp (the target's
// own view: a namespaced sshd's /tmp is not this machine's).
func remoteTmp(t *testing.T, c *Client) []string {
	t.Helper()
	out, err := c.output("ls -d /tmp/tuneloop.* 2>/dev/null; true")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}

// TestNoSudo: --sudo against a host without sudo, or whose sudo refuses
// the user (before or after the password), is said in both languages,
// naming the user and the host, and nothing is left there.
func TestNoSudo(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ran := filepath.Join(t.TempDir(), "ran")
	bin := script(t, `echo "$(dirname "$0")" > `+ran+`
echo "privileged work"
`)
	host := c.Target.Addr()
	before := remoteTmp(t, c)
	pw := func(string) (string, error) { return "s3cret", nil }
	cases := []struct {
		name   string
		sudo   string
		fetch  bool
		en, zh string
	}{
		{"not installed", filepath.Join(t.TempDir(), "sudo"), true,
			"sudo is not installed on " + host, host + " 上没有安装 sudo"},
		// sudo -n says so at once (a sudoers entry that denies).
		{"refused at once", script(t, `echo "Sorry, user `+d.UserName+` may not run sudo on testhost." >&2; exit 1
`), true, d.UserName + " may not run sudo on " + host + " (sudo said: Sorry, user " + d.UserName + " may not run sudo on testhost.)",
			d.UserName + " 无权在 " + host + " 上使用 sudo"},
		// Real sudo asks a user with no sudoers entry for the password
		// first, then refuses: on the PTY.
		{"refused after the password", script(t, `if [ "$1" = -n ]; then echo "sudo: a password is required" >&2; exit 1; fi
[ "$1" = -p ] && { prompt="$2"; shift 2; }
printf '%s' "$prompt" > /dev/tty
read pw < /dev/tty
echo "`+d.UserName+` is not in the sudoers file.  This incident will be reported."
exit 1
`), false, d.UserName + " may not run sudo on " + host, "无权在 " + host + " 上使用 sudo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(ran)
			j := Job{Binary: bin, Args: []string{"check"}, Sudo: true, SudoCmd: tc.sudo, Password: pw}
			if tc.fetch {
				j.Args, j.Fetch, j.Into, j.FailOnExit = []string{"record", "--out", FetchDir}, true, t.TempDir(), true
			}
			_, err := c.Exec(context.Background(), j)
			if err == nil {
				t.Fatal("ran with --sudo")
			}
			if en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH); !strings.Contains(en, tc.en) || !strings.Contains(zh, tc.zh) {
				t.Errorf("messages:\n%s\n%s", en, zh)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Error("the binary ran")
			}
			if after := remoteTmp(t, c); len(after) != len(before) {
				t.Errorf("left on the target: %v (before %v)", after, before)
			}
		})
	}
}

// hostTmpSize is the size of this machine's /tmp.
func hostTmpSize(t *testing.T) uint64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/tmp", &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * uint64(st.Bsize)
}

// TestDiskFull runs against a target whose /tmp is a 2 MiB tmpfs (a
// private mount namespace: this machine's /tmp is untouched). A binary
// that does not fit and a run folder that fills /tmp are each said as no
// space left on /tmp there, naming the host; what arrived is kept here and
// nothing is left there.
func TestDiskFull(t *testing.T) {
	size := hostTmpSize(t)
	d := sshdtest.StartWith(t, sshdtest.Config{TmpSize: "2m"})
	if got := hostTmpSize(t); got != size || got <= 2<<20 {
		t.Fatalf("this machine's /tmp changed size: %d, was %d", got, size)
	}
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if out, err := c.output("df -Pk /tmp | tail -1"); err != nil || !strings.HasPrefix(string(out), "tuneloop-test-tmp ") {
		t.Fatalf("the target's /tmp is not the tiny tmpfs: %q %v", out, err)
	}
	host := c.Target.Addr()

	// The binary does not fit: 3 MiB into 2.
	big := script(t, "exit 0\n#"+strings.Repeat("x", 3<<20)+"\n")
	into := filepath.Join(t.TempDir(), "run")
	os.MkdirAll(into, 0o755)
	_, err = c.Exec(context.Background(), Job{Binary: big, Args: []string{"record", "--out", FetchDir}, Fetch: true, Into: into, FailOnExit: true})
	en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH)
	if err == nil || !strings.Contains(en, host+": no space left on /tmp there: tuneloop needs 4 MiB") || !strings.Contains(en, "No space left on device") ||
		!strings.Contains(en, "tuneloop-test-tmp") || !strings.Contains(zh, host+"：该主机 /tmp 空间不足") {
		t.Errorf("binary too big:\n%s\n%s", en, zh)
	}
	t.Logf("binary too big:\n%s\n%s", en, zh)
	if left := remoteTmp(t, c); len(left) != 0 {
		t.Errorf("left on the target: %v", left)
	}

	// The clock probe copies the binary too: the same message.
	if _, err := c.StartClock(context.Background(), big, time.Minute); err == nil || !strings.Contains(err.Error(), host+": no space left on /tmp there") {
		t.Errorf("clock probe: %v", err)
	}
	if left := remoteTmp(t, c); len(left) != 0 {
		t.Errorf("left on the target: %v", left)
	}

	// The binary fits, its run folder does not: the manifest arrives, the
	// remote error is said.
	bin := script(t, `mkdir -p "$3/raw" && echo '{"status":"recording"}' > "$3/manifest.json" || exit 9
dd if=/dev/zero of="$3/raw/samples.jsonl.gz" bs=64k count=64 2>/dev/null || { echo "tuneloop: write $3/raw/samples.jsonl.gz: no space left on device" >&2; exit 1; }
`)
	res, err := c.Exec(context.Background(), Job{Binary: bin, Args: []string{"record", "--out", FetchDir}, Fetch: true, Into: into, FailOnExit: true})
	var xe *ExitedError
	if !errors.As(err, &xe) || xe.Code != 1 {
		t.Fatalf("run folder too big: %v", err)
	}
	en, zh = finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH)
	if !strings.Contains(en, host+": no space left on /tmp there for the run folder (tuneloop: write /tmp/tuneloop.") ||
		!strings.Contains(en, "files arrived, kept in "+into) || !strings.Contains(zh, "该主机 /tmp 空间不足，无法写入运行目录") {
		t.Errorf("run folder too big:\n%s\n%s", en, zh)
	}
	t.Logf("run folder too big:\n%s\n%s", en, zh)
	if b, err := os.ReadFile(filepath.Join(into, "manifest.json")); err != nil || !strings.Contains(string(b), "recording") || len(res.Files) == 0 {
		t.Errorf("what arrived: %q %v, files %v", b, err, res.Files)
	}
	if left := remoteTmp(t, c); len(left) != 0 {
		t.Errorf("left on the target: %v", left)
	}
}

// TestFailOnExit: a fetching job whose remote tuneloop fails is an error
// with its last stderr line and what arrived; without FailOnExit the code
// is only the result's (check's and jvm's own exit codes).
func TestFailOnExit(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bin := script(t, `mkdir -p "$3" && echo '{}' > "$3/manifest.json"
echo "tuneloop: --pid 99999: no such process" >&2
exit 2
`)
	into := t.TempDir()
	j := Job{Binary: bin, Args: []string{"record", "--out", FetchDir}, Fetch: true, Into: into, FailOnExit: true}
	res, err := c.Exec(context.Background(), j)
	var xe *ExitedError
	if !errors.As(err, &xe) || res.ExitCode != 2 {
		t.Fatalf("%v %+v", err, res)
	}
	if en, zh := finding.Localize(err, finding.EN), finding.Localize(err, finding.ZH); !strings.Contains(en, c.Target.Addr()+": the remote tuneloop ended with exit code 2 (tuneloop: --pid 99999: no such process); 1 files arrived") ||
		!strings.Contains(zh, "远端 tuneloop 以退出码 2 结束") {
		t.Errorf("messages:\n%s\n%s", en, zh)
	}
	j.FailOnExit, j.Into = false, t.TempDir()
	if res, err := c.Exec(context.Background(), j); err != nil || res.ExitCode != 2 {
		t.Errorf("without FailOnExit: %v %+v", err, res)
	}
}
