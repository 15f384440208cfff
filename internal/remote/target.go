// Package remote runs tuneloop on another Linux host over SSH, installing
// nothing there: it connects natively (golang.org/x/crypto/ssh; host keys
// checked against known_hosts, strictly by default; ssh-agent and key
// files; ~/.ssh/config aliases and a ProxyJump host), copies tuneloop's own
// static binary for the host's architecture into a temporary folder, runs
// it bounded, streams its output (or its run folder, as a tar) back and
// removes what it copied, even when the connection is lost (the remote
// shell's EXIT trap).
package remote

import (
	"bufio"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Target is one host to reach: what the user typed, resolved through
// ~/.ssh/config.
type Target struct {
	Alias string // as typed (the Host of ~/.ssh/config)
	User  string
	Host  string // HostName
	Port  int
	// IdentityFiles from the config (tilde expanded), tried before the
	// default keys.
	IdentityFiles []string
	// ProxyJump is the jump host ("" = none), itself [user@]host[:port].
	ProxyJump string
}

// Addr is host:port for dialing and for known_hosts.
func (t Target) Addr() string {
	h := t.Host
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(t.Port)
}

// ParseTarget reads [user@]host[:port] (an IPv6 address in brackets).
func ParseTarget(s string) (Target, error) {
	t := Target{Alias: s}
	bad := func() (Target, error) {
		return Target{}, finding.Errorf(finding.T("--host %q: want [user@]host[:port]", "--host %q：格式应为 [user@]host[:port]"), s)
	}
	if s == "" || strings.ContainsAny(s, " \t\n/") {
		return bad()
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		t.User, s = s[:i], s[i+1:]
		if t.User == "" {
			return bad()
		}
	}
	host, port := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		j := strings.IndexByte(s, ']')
		if j < 0 {
			return bad()
		}
		host, port = s[1:j], strings.TrimPrefix(s[j+1:], ":")
		if s[j+1:] != "" && !strings.HasPrefix(s[j+1:], ":") {
			return bad()
		}
	case strings.Count(s, ":") == 1:
		i := strings.IndexByte(s, ':')
		host, port = s[:i], s[i+1:]
	}
	if host == "" {
		return bad()
	}
	t.Host, t.Alias = host, host
	if port != "" {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			return bad()
		}
		t.Port = p
	}
	return t, nil
}

// Resolve fills what the user did not type from the ssh config (read from
// r; nil = none): HostName, User, Port, IdentityFile, ProxyJump of the
// first matching Host blocks, first value wins as in ssh(1). Defaults: the
// local user name from user, port 22.
func (t Target) Resolve(r io.Reader, home, user string) Target {
	if r != nil {
		c := parseConfig(r)
		host, u, port, ids, jump := c.lookup(t.Alias)
		if host != "" {
			t.Host = host
		}
		if t.User == "" {
			t.User = u
		}
		if t.Port == 0 && port != "" {
			t.Port, _ = strconv.Atoi(port)
		}
		for _, id := range ids {
			t.IdentityFiles = append(t.IdentityFiles, expandHome(id, home))
		}
		if !strings.EqualFold(jump, "none") {
			t.ProxyJump = jump
		}
	}
	if t.User == "" {
		t.User = user
	}
	if t.Port == 0 {
		t.Port = 22
	}
	return t
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// config is ~/.ssh/config: Host blocks in order.
//
//	Host app1 app1.prod
//	    HostName 10.0.0.5
//	    User deploy
//	    Port 2222
//	    IdentityFile ~/.ssh/prod_ed25519
//	    ProxyJump bastion
type config struct {
	blocks []configBlock
}

type configBlock struct {
	patterns []string
	kv       [][2]string // keys lower-cased, in order
}

func parseConfig(r io.Reader) *config {
	c := &config{}
	cur := &configBlock{patterns: []string{"*"}} // lines before any Host apply to all
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			k, v, ok = strings.Cut(line, "=")
		}
		if !ok {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "=")), `"`)
		if k == "host" {
			c.blocks = append(c.blocks, *cur)
			cur = &configBlock{patterns: strings.Fields(v)}
			continue
		}
		cur.kv = append(cur.kv, [2]string{k, v})
	}
	c.blocks = append(c.blocks, *cur)
	return c
}

func (b *configBlock) matches(host string) bool {
	hit := false
	for _, p := range b.patterns {
		neg := strings.HasPrefix(p, "!")
		if ok, _ := path.Match(strings.TrimPrefix(p, "!"), host); ok {
			if neg {
				return false
			}
			hit = true
		}
	}
	return hit
}

func (c *config) lookup(alias string) (host, user, port string, ids []string, jump string) {
	for _, b := range c.blocks {
		if !b.matches(alias) {
			continue
		}
		for _, kv := range b.kv {
			switch kv[0] {
			case "hostname":
				if host == "" {
					host = strings.ReplaceAll(kv[1], "%h", alias)
				}
			case "user":
				if user == "" {
					user = kv[1]
				}
			case "port":
				if port == "" {
					port = kv[1]
				}
			case "identityfile":
				ids = append(ids, kv[1])
			case "proxyjump":
				if jump == "" {
					jump = kv[1]
				}
			}
		}
	}
	return host, user, port, ids, jump
}

// ReadConfig opens ~/.ssh/config; nil when there is none.
func ReadConfig(home string) io.ReadCloser {
	f, err := os.Open(filepath.Join(home, ".ssh", "config"))
	if err != nil {
		return nil
	}
	return f
}
