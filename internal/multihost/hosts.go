// Package multihost is a run over several hosts: which hosts and their
// roles (--host flags or a hosts file), the folder layout (hosts.json and
// one record folder per host under hosts/), each host's clock offset, and
// the loading of such a folder with every host's series moved onto the
// local timeline; plus the one cross-host reading (a saturated db host
// while the app threads wait in socket reads).
package multihost

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Roles a host can have.
const (
	RoleApp   = "app"
	RoleDB    = "db"
	RoleLB    = "lb"
	RoleOther = "other"
)

func validRole(r string) bool {
	return r == RoleApp || r == RoleDB || r == RoleLB || r == RoleOther
}

// Host is one host of the run as the user named it.
type Host struct {
	Name    string `yaml:"name" json:"name"`
	Role    string `yaml:"role" json:"role"`
	Address string `yaml:"address" json:"address"` // [user@]host[:port] or a ~/.ssh/config alias
}

// FromFlags reads repeated --host values: [ROLE=][user@]host[:port]; a
// value without a role is the app host when it comes first, else "other".
// Names are the host part, made unique.
func FromFlags(specs []string) ([]Host, error) {
	var hs []Host
	for i, s := range specs {
		h := Host{Address: s}
		if r, rest, ok := strings.Cut(s, "="); ok {
			if !validRole(r) {
				return nil, finding.Errorf(finding.T("--host %q: unknown role %q (app, db, lb or other)", "--host %q：未知角色 %q（应为 app、db、lb 或 other）"), finding.SafeLine(s), finding.SafeLine(r))
			}
			h.Role, h.Address = r, rest
		} else if i == 0 {
			h.Role = RoleApp
		} else {
			h.Role = RoleOther
		}
		h.Name = nameOf(h.Address)
		hs = append(hs, h)
	}
	return uniqueNames(hs), validate(hs)
}

// nameOf is the folder name of an address: the host part, safe as a path
// element.
func nameOf(addr string) string {
	s := addr
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if j := strings.IndexByte(s, ']'); j > 0 {
			s = s[1:j]
		}
	} else if strings.Count(s, ":") == 1 {
		s = s[:strings.IndexByte(s, ':')]
	}
	return safeName(s)
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	s = strings.Trim(string(b), ".")
	if s == "" {
		s = "host"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// uniqueNames suffixes -2, -3 to a repeated name (two ports of one host).
func uniqueNames(hs []Host) []Host {
	seen := map[string]int{}
	for i := range hs {
		n := hs[i].Name
		seen[n]++
		if seen[n] > 1 {
			hs[i].Name = n + "-" + strconv.Itoa(seen[n])
		}
	}
	return hs
}

func validate(hs []Host) error {
	if len(hs) == 0 {
		return finding.Errorf(finding.T("no host given", "未指定主机"))
	}
	names := map[string]bool{}
	apps := 0
	for _, h := range hs {
		if h.Address == "" {
			return finding.Errorf(finding.T("host %q has no address", "主机 %q 没有地址"), finding.SafeLine(h.Name))
		}
		if names[h.Name] {
			return finding.Errorf(finding.T("host name %q is given twice", "主机名 %q 重复"), finding.SafeLine(h.Name))
		}
		names[h.Name] = true
		if h.Role == RoleApp {
			apps++
		}
	}
	if apps > 1 {
		return finding.Errorf(finding.T("%d hosts have the role app: one app host is recorded with the JVM and feeds the verdict", "有 %d 台主机的角色是 app：只能有一台 app 主机（记录其 JVM 并用于结论）"), apps)
	}
	return nil
}

// ParseFile reads a hosts file, YAML:
//
//	hosts:
//	  - {name: app1, role: app, address: deploy@10.0.0.5}
//	  - {name: db1, role: db, address: db1.prod:2222}
//
// or one host a line, "role name [user@]host[:port]" ('#' starts a comment):
//
//	app app1 deploy@10.0.0.5
//	db  db1  db1.prod:2222
func ParseFile(r io.Reader) ([]Host, error) {
	b, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return nil, err
	}
	var hs []Host
	if isYAML(b) {
		var doc struct {
			Hosts []Host `yaml:"hosts"`
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, finding.Errorf(finding.T("hosts file: %v", "主机文件：%v"), err)
		}
		hs = doc.Hosts
	} else {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for n := 1; sc.Scan(); n++ {
			line, _, _ := strings.Cut(sc.Text(), "#")
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if len(f) != 3 {
				return nil, finding.Errorf(finding.T("hosts file line %d: want \"role name [user@]host[:port]\"", "主机文件第 %d 行：格式应为 \"role name [user@]host[:port]\""), n)
			}
			hs = append(hs, Host{Role: f[0], Name: f[1], Address: f[2]})
		}
	}
	for i, h := range hs {
		if h.Role == "" {
			hs[i].Role = RoleOther
		} else if !validRole(h.Role) {
			return nil, finding.Errorf(finding.T("hosts file: host %q: unknown role %q (app, db, lb or other)", "主机文件：主机 %q：未知角色 %q（应为 app、db、lb 或 other）"), finding.SafeLine(h.Name), finding.SafeLine(h.Role))
		}
		if h.Name == "" {
			hs[i].Name = nameOf(h.Address)
		} else if safeName(h.Name) != h.Name {
			return nil, finding.Errorf(finding.T("hosts file: host name %q: use letters, digits, '.', '-' and '_' only (it names a folder)", "主机文件：主机名 %q 只能包含字母、数字、'.'、'-' 与 '_'（用作目录名）"), finding.SafeLine(h.Name))
		}
	}
	return hs, validate(hs)
}

// isYAML: the first meaningful line is "hosts:".
func isYAML(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") || l == "---" {
			continue
		}
		return strings.HasPrefix(l, "hosts:")
	}
	return false
}

// App is the index of the app host (-1: none).
func App(hs []Host) int {
	for i, h := range hs {
		if h.Role == RoleApp {
			return i
		}
	}
	return -1
}
