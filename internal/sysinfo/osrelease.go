package sysinfo

// /etc/os-release (also the format of a JDK's release file):
//
//	NAME="openEuler"
//	VERSION="22.03 (LTS-SP3)"
//	ID="openEuler"
//	VERSION_ID="22.03"
//	PRETTY_NAME="openEuler 22.03 (LTS-SP3)"

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

func collectOS(h hostfs.FS) OS {
	p := h.EtcPath("os-release")
	b, err := h.ReadFile(p)
	if err != nil {
		// Some minimal images only ship /usr/lib/os-release.
		if alt := h.EtcPath("../usr/lib/os-release"); h.Exists(alt) {
			if b2, err2 := h.ReadFile(alt); err2 == nil {
				b, p, err = b2, alt, nil
			}
		}
	}
	var o OS
	if err != nil {
		o.ID, o.VersionID, o.PrettyName = Missing[string](err), Missing[string](err), Missing[string](err)
		return o
	}
	kv, err := parseKeyValues(string(b))
	if err != nil {
		err = fileErr(h, p, err)
		o.ID, o.VersionID, o.PrettyName = Missing[string](err), Missing[string](err), Missing[string](err)
		return o
	}
	src := h.Display(p)
	get := func(k string) Field[string] {
		if v, ok := kv[k]; ok && v != "" {
			return Got(v, src)
		}
		return Missing[string](finding.Errorf(finding.T("%s: no %s", "%s: 没有 %s"), src, k))
	}
	return OS{ID: get("ID"), VersionID: get("VERSION_ID"), PrettyName: get("PRETTY_NAME")}
}

// parseKeyValues parses shell-style KEY=value lines, unquoting single or
// double quotes. Comments and blank lines are skipped; a line without "="
// or a file with no keys at all is an error.
func parseKeyValues(s string) (map[string]string, error) {
	if err := checkText(s); err != nil {
		return nil, err
	}
	kv := map[string]string{}
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"'") {
			return nil, lineErr(i+1, finding.T("not KEY=value: %q", "不是 KEY=value：%q"), finding.Clip(line, 40))
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
			v = strings.ReplaceAll(v, `\"`, `"`)
		}
		kv[k] = v
	}
	if len(kv) == 0 {
		return nil, errEmpty
	}
	return kv, nil
}
