package remote

import (
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	for _, c := range []struct {
		in         string
		user, host string
		port       int
		bad        bool
	}{
		{in: "app1", host: "app1"},
		{in: "deploy@app1:2222", user: "deploy", host: "app1", port: 2222},
		{in: "[::1]:22", host: "::1", port: 22},
		{in: "root@10.0.0.5", user: "root", host: "10.0.0.5"},
		{in: "app1:0", bad: true},
		{in: "app1:x", bad: true},
		{in: "@app1", bad: true},
		{in: "", bad: true},
		{in: "a b", bad: true},
	} {
		got, err := ParseTarget(c.in)
		if c.bad != (err != nil) {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		if !c.bad && (got.User != c.user || got.Host != c.host || got.Port != c.port) {
			t.Errorf("%q: got %+v", c.in, got)
		}
	}
}

func TestResolveConfig(t *testing.T) {
	cfg := `# comment
Host app1 app1.prod
    HostName 10.0.0.5
    User deploy
    Port 2222
    IdentityFile ~/.ssh/prod_ed25519
    ProxyJump bastion

Host db*
    User dba

Host *
    User fallback
    Port 22
    IdentityFile ~/.ssh/id_default
`
	tg, _ := ParseTarget("app1")
	got := tg.Resolve(strings.NewReader(cfg), "/home/me", "me")
	if got.Host != "10.0.0.5" || got.User != "deploy" || got.Port != 2222 || got.ProxyJump != "bastion" ||
		len(got.IdentityFiles) != 2 || got.IdentityFiles[0] != "/home/me/.ssh/prod_ed25519" || got.Addr() != "10.0.0.5:2222" {
		t.Errorf("app1: %+v", got)
	}
	tg, _ = ParseTarget("root@db7:2200")
	got = tg.Resolve(strings.NewReader(cfg), "/home/me", "me")
	if got.Host != "db7" || got.User != "root" || got.Port != 2200 {
		t.Errorf("typed user and port win: %+v", got)
	}
	tg, _ = ParseTarget("db7")
	if got = tg.Resolve(strings.NewReader(cfg), "/home/me", "me"); got.User != "dba" || got.Port != 22 {
		t.Errorf("first match wins: %+v", got)
	}
	tg, _ = ParseTarget("web")
	if got = tg.Resolve(nil, "/home/me", "me"); got.User != "me" || got.Port != 22 || got.Addr() != "web:22" {
		t.Errorf("no config: %+v", got)
	}
}
