// Package sshdtest starts a real OpenSSH server for tests (imported by
// tests only): a free port on 127.0.0.1, a throwaway host key, one user key
// authorised, and a known_hosts file that trusts the host key.
package sshdtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/tuneloop/tuneloop/internal/sample"
)

// SSHD is a real OpenSSH server on 127.0.0.1 with a throwaway host key and
// one authorised user key.
type SSHD struct {
	Dir      string
	Port     int
	Cmd      *exec.Cmd
	HostPub  ssh.PublicKey
	UserKey  string // private key file
	Known    string // known_hosts holding the host key
	UserName string
}

// WriteKey writes a new ed25519 private key to path and returns its public key.
func WriteKey(t *testing.T, path string) ssh.PublicKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// Start runs sshd for the test (skipping it, with the reason, when sshd
// cannot run here) and stops it at the end.
func Start(t *testing.T) *SSHD {
	t.Helper()
	return StartEnv(t)
}

// StartEnv is Start with NAME=VALUE set in every session's environment
// (sshd's SetEnv): a "host" that differs from this one, e.g. its clock
// skewed for the clock probe's tests.
func StartEnv(t *testing.T, env ...string) *SSHD {
	t.Helper()
	return StartWith(t, Config{Env: env})
}

// Config is how the test's sshd differs from a plain one.
type Config struct {
	// Env is NAME=VALUE set in every session's environment (SetEnv).
	Env []string
	// TmpSize, if set (a tmpfs size such as "2m"), runs sshd in a private
	// mount namespace whose /tmp is a tmpfs of that size: a target whose
	// /tmp fills up, this machine's /tmp untouched. It needs root and
	// unshare; the test is skipped, with the reason, without them.
	TmpSize string
}

// StartWith runs sshd as c says (see Start).
func StartWith(t *testing.T, c Config) *SSHD {
	t.Helper()
	env := c.Env
	bin := "/usr/sbin/sshd"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("no OpenSSH server (apt-get install -y openssh-server; .ci/run does): " + err.Error())
	}
	u, err := user.Current()
	if err != nil {
		t.Skip("no current user: " + err.Error())
	}
	if os.Geteuid() == 0 {
		os.MkdirAll("/run/sshd", 0o755) // the privilege separation folder sshd insists on
	}
	d := &SSHD{Dir: t.TempDir(), UserName: u.Username}
	d.HostPub = WriteKey(t, filepath.Join(d.Dir, "host_key"))
	d.UserKey = filepath.Join(d.Dir, "user_key")
	userPub := WriteKey(t, d.UserKey)
	if err := os.WriteFile(filepath.Join(d.Dir, "authorized_keys"), ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/host_key
AuthorizedKeysFile %s/authorized_keys
PidFile %s/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
LogLevel VERBOSE
`, d.Port, d.Dir, d.Dir, d.Dir)
	if len(env) > 0 {
		cfg += "SetEnv " + strings.Join(env, " ") + "\n"
	}
	cfgPath := filepath.Join(d.Dir, "sshd_config")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	d.Cmd = exec.Command(bin, "-D", "-e", "-f", cfgPath)
	if c.TmpSize != "" {
		d.Cmd = tinyTmp(t, c.TmpSize, d.Dir, bin, cfgPath)
	}
	d.Cmd.Stderr = &log
	if err := d.Cmd.Start(); err != nil {
		t.Skip("sshd cannot start: " + err.Error())
	}
	t.Cleanup(func() { d.Cmd.Process.Kill(); d.Cmd.Wait() })
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(d.Port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if i > 50 {
			d.Cmd.Process.Kill()
			d.Cmd.Wait() // its log is whole
			t.Skipf("sshd did not start listening: %s", log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.Known = filepath.Join(d.Dir, "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize("127.0.0.1:" + strconv.Itoa(d.Port))}, d.HostPub)
	if err := os.WriteFile(d.Known, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

// tinyTmp is the command running sshd in a new mount namespace whose /tmp
// is a tmpfs of size. The sshd's own folder is under this machine's /tmp:
// the tmpfs is mounted on a folder in it first, the folder bound at the
// same path inside the tmpfs, and the tmpfs then moved onto /tmp, so its
// config, keys and pid file stay where sshd and the test look for them.
// Every mount is in the namespace: this machine's /tmp is untouched.
func tinyTmp(t *testing.T, size, dir, bin, cfg string) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a tiny /tmp needs root (mount in a private mount namespace)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("a tiny /tmp needs unshare (util-linux): " + err.Error())
	}
	if b, err := exec.Command(unshare, "-m", "--propagation", "private", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -m does not work here: %v %s", err, b)
	}
	if err := os.Mkdir(filepath.Join(dir, "newtmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `set -e
mount -t tmpfs -o size="$2",mode=1777 tuneloop-test-tmp "$1/newtmp"
case "$1" in /tmp/*)
	mkdir -p "$1/newtmp${1#/tmp}"
	mount --bind "$1" "$1/newtmp${1#/tmp}";;
esac
mount --move "$1/newtmp" /tmp
exec "$3" -D -e -f "$4"`
	return exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, size, bin, cfg)
}

// Spec is user@127.0.0.1:port.
func (d *SSHD) Spec() string { return d.UserName + "@127.0.0.1:" + strconv.Itoa(d.Port) }

// Children are the per-connection sshd processes.
func (d *SSHD) Children(t *testing.T) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if st, err := sample.ParsePidStat(b); err == nil && st.PPID == uint64(d.Cmd.Process.Pid) {
			out = append(out, pid)
		}
	}
	return out
}
