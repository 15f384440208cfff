package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Options say how to reach a host. The zero value reads the user's own
// ~/.ssh (config, known_hosts, default keys) and ssh-agent.
type Options struct {
	Home       string // "" = $HOME
	LocalUser  string // "" = $USER
	KnownHosts string // "" = ~/.ssh/known_hosts
	// Identities are key files tried first (--identity), then the
	// config's IdentityFile, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa.
	Identities []string
	NoAgent    bool // do not ask ssh-agent ($SSH_AUTH_SOCK)
	NoConfig   bool // do not read ~/.ssh/config
	Timeout    time.Duration
	// KeepAlive is how often the connection is probed (0 = 10 s): a peer
	// gone without a FIN is noticed within about twice this.
	KeepAlive time.Duration
	Getenv    func(string) string // "" = os.Getenv
	hops      int                 // jump hosts already crossed (a cycle in the config ends)
}

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

func (o *Options) home() string {
	if o.Home != "" {
		return o.Home
	}
	if h := o.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Client is one SSH connection to a target.
type Client struct {
	Target Target
	ssh    *ssh.Client
	jump   *ssh.Client
	done   chan struct{}
	// spec and opts dial again after a lost connection (to fetch what a
	// remote run had written by then).
	spec string
	opts Options
}

// Dial connects to spec ([user@]host[:port] or a ~/.ssh/config alias) and
// authenticates, refusing a host whose key known_hosts does not hold.
func Dial(ctx context.Context, spec string, o Options) (*Client, error) {
	t, err := ParseTarget(spec)
	if err != nil {
		return nil, err
	}
	home := o.home()
	user := o.LocalUser
	if user == "" {
		user = o.getenv("USER")
	}
	if !o.NoConfig {
		if rc := ReadConfig(home); rc != nil {
			t = t.Resolve(rc, home, user)
			rc.Close()
		}
	}
	t = t.Resolve(nil, home, user)
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	c := &Client{Target: t, done: make(chan struct{}), spec: spec, opts: o}
	var conn net.Conn
	if t.ProxyJump != "" {
		// The first hop of a list; its own config (a further jump) applies.
		if o.hops >= 4 {
			return nil, finding.Errorf(finding.T("%s: more than 4 jump hosts (a ProxyJump cycle in ~/.ssh/config?)", "%s：跳板机超过 4 层（~/.ssh/config 中的 ProxyJump 是否成环？）"), finding.SafeLine(spec))
		}
		jo := o
		jo.hops++
		jc, err := Dial(ctx, strings.Split(t.ProxyJump, ",")[0], jo)
		if err != nil {
			return nil, finding.Errorf(finding.T("jump host %s: %v", "跳板机 %s：%v"), finding.SafeLine(t.ProxyJump), err)
		}
		c.jump = jc.ssh
		conn, err = jc.ssh.Dial("tcp", t.Addr())
		if err != nil {
			jc.Close()
			return nil, finding.Errorf(finding.T("%s via jump host %s: %v", "经跳板机 %[2]s 连接 %[1]s：%[3]v"), t.Addr(), finding.SafeLine(t.ProxyJump), err)
		}
	} else {
		d := net.Dialer{Timeout: timeout}
		conn, err = d.DialContext(ctx, "tcp", t.Addr())
		if err != nil {
			return nil, finding.Errorf(finding.T("cannot reach %s: %v", "无法连接 %s：%v"), t.Addr(), err)
		}
	}
	cfg := &ssh.ClientConfig{User: t.User, Timeout: timeout}
	var tried []string
	cfg.Auth, tried = authMethods(t, &o, home)
	cfg.HostKeyCallback, err = hostKeyCallback(o.knownHosts(home), t)
	if err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(timeout))
	cc, chans, reqs, err := ssh.NewClientConn(conn, t.Addr(), cfg)
	if err != nil {
		conn.Close()
		if c.jump != nil {
			c.jump.Close()
		}
		var le *finding.Error
		if errors.As(err, &le) { // the host key check's own message
			return nil, le
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, finding.Errorf(finding.T("%s@%s refused every key offered (%s): add your public key to ~%s/.ssh/authorized_keys there, or name the key with --identity or IdentityFile in ~/.ssh/config",
				"%s@%s 拒绝了提供的所有密钥（%s）：请把你的公钥加入该主机 ~%s/.ssh/authorized_keys，或用 --identity 或 ~/.ssh/config 的 IdentityFile 指定密钥"),
				finding.SafeLine(t.User), t.Addr(), strings.Join(tried, ", "), finding.SafeLine(t.User))
		}
		return nil, finding.Errorf(finding.T("SSH to %s: %v", "SSH 连接 %s：%v"), t.Addr(), err)
	}
	conn.SetDeadline(time.Time{})
	c.ssh = ssh.NewClient(cc, chans, reqs)
	go c.keepAlive(o.KeepAlive)
	return c, nil
}

func (o *Options) knownHosts(home string) string {
	if o.KnownHosts != "" {
		return o.KnownHosts
	}
	return filepath.Join(home, ".ssh", "known_hosts")
}

// keepAlive closes the connection when the peer stops answering, so a
// session waiting on it returns instead of hanging on a dead network.
func (c *Client) keepAlive(every time.Duration) {
	if every <= 0 {
		every = 10 * time.Second
	}
	tk := time.NewTicker(every)
	defer tk.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-tk.C:
		}
		res := make(chan error, 1)
		go func() {
			_, _, err := c.ssh.SendRequest("keepalive@openssh.com", true, nil)
			res <- err
		}()
		select {
		case err := <-res:
			if err != nil {
				c.ssh.Close()
				return
			}
		case <-time.After(2 * every):
			c.ssh.Close()
			return
		case <-c.done:
			return
		}
	}
}

// Close ends the connection (and the jump host's).
func (c *Client) Close() error {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	err := c.ssh.Close()
	if c.jump != nil {
		c.jump.Close()
	}
	return err
}

// authMethods offers the agent's keys and the key files in one public-key
// method (every key is tried); it returns what it offers, for the message
// when all are refused.
func authMethods(t Target, o *Options, home string) ([]ssh.AuthMethod, []string) {
	var signers []ssh.Signer
	var tried []string
	if !o.NoAgent {
		if sock := o.getenv("SSH_AUTH_SOCK"); sock != "" {
			if conn, err := net.Dial("unix", sock); err == nil {
				if ss, err := agent.NewClient(conn).Signers(); err == nil && len(ss) > 0 {
					signers = append(signers, ss...)
					tried = append(tried, "ssh-agent ("+strconv.Itoa(len(ss))+")")
				}
			}
		}
	}
	files := append(append([]string{}, o.Identities...), t.IdentityFiles...)
	if len(o.Identities) == 0 && len(t.IdentityFiles) == 0 {
		for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			files = append(files, filepath.Join(home, ".ssh", n))
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s, err := ssh.ParsePrivateKey(b)
		var pm *ssh.PassphraseMissingError
		switch {
		case errors.As(err, &pm):
			tried = append(tried, f+" (passphrase: load it into ssh-agent)")
			continue
		case err != nil:
			tried = append(tried, f+" (unreadable)")
			continue
		}
		signers = append(signers, s)
		tried = append(tried, f)
	}
	if len(tried) == 0 {
		tried = []string{"no key found"}
	}
	return []ssh.AuthMethod{ssh.PublicKeys(signers...)}, tried
}

// hostKeyCallback checks the host key against known_hosts: an unknown key
// or a changed one is refused, with the fingerprint and what to do.
func hostKeyCallback(file string, t Target) (ssh.HostKeyCallback, error) {
	check, err := knownhosts.New(file)
	if errors.Is(err, os.ErrNotExist) {
		check = func(string, net.Addr, ssh.PublicKey) error { return &knownhosts.KeyError{} }
	} else if err != nil {
		return nil, finding.Errorf(finding.T("known hosts file %s: %v", "known_hosts 文件 %s：%v"), file, err)
	}
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := check(hostname, remote, key)
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &re):
			return finding.Errorf(finding.T("the host key of %s (%s) is revoked in %s: refused", "%s 的主机密钥（%s）已在 %s 中吊销：拒绝连接"), t.Addr(), ssh.FingerprintSHA256(key), file)
		case errors.As(err, &ke) && len(ke.Want) == 0:
			keyscan := "ssh-keyscan -t " + keyType(key) + " "
			if t.Port != 22 {
				keyscan += "-p " + strconv.Itoa(t.Port) + " "
			}
			keyscan += t.Host + " >> " + file
			return finding.Errorf(finding.T("the host key of %s is not known: refused (%s %s). If this is the host's key (on the host: ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub shows the same SHA256), trust it with: %s",
				"%s 的主机密钥未知：拒绝连接（%s %s）。若这确是该主机的密钥（在该主机上运行 ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub 应显示相同的 SHA256），用以下命令信任它：%s"),
				t.Addr(), key.Type(), ssh.FingerprintSHA256(key), keyType(key), keyscan)
		case errors.As(err, &ke):
			return finding.Errorf(finding.T("the host key of %s CHANGED (now %s, known_hosts line %s:%d has another): refused; someone may be intercepting the connection, or the host was reinstalled (then: ssh-keygen -R %s -f %s)",
				"%s 的主机密钥已改变（现为 %s，known_hosts 第 %s:%d 行记录的是另一个）：拒绝连接；可能有人在截获连接，或主机已重装（此时运行：ssh-keygen -R %s -f %s）"),
				t.Addr(), ssh.FingerprintSHA256(key), ke.Want[0].Filename, ke.Want[0].Line, knownhosts.Normalize(t.Addr()), file)
		}
		return fmt.Errorf("host key of %s: %w", t.Addr(), err)
	}, nil
}

// keyType is the ssh-keyscan -t and ssh_host_*_key name of a key.
func keyType(k ssh.PublicKey) string {
	switch k.Type() {
	case ssh.KeyAlgoED25519:
		return "ed25519"
	case ssh.KeyAlgoRSA:
		return "rsa"
	}
	if strings.HasPrefix(k.Type(), "ecdsa") {
		return "ecdsa"
	}
	return k.Type()
}
