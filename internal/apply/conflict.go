package apply

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// Sample lines of the files read here:
//
//	/etc/sysctl.d/99-sysctl.conf:  net.core.somaxconn = 1024
//	                               -net.ipv4.tcp_keepalive_time=300
//	/etc/tuned/active_profile:     virtual-guest

// conflicts says, before anything is written, who else sets the sysctls of
// a group: a sysctl.conf/sysctl.d line with another value puts it back at
// the next boot or `sysctl --system`; an active TuneD profile may too.
func conflicts(roots hostfs.FS, steps []Step) []finding.Text {
	want := map[string]string{}
	for _, s := range steps {
		if s.Kind == finding.ChangeSysctl {
			want[s.Key] = normalize(s.Key, s.Want)
		}
	}
	if len(want) == 0 || roots.Etc == "" {
		return nil
	}
	files, _ := filepath.Glob(roots.EtcPath("sysctl.d", "*.conf"))
	sort.Strings(files)
	files = append([]string{roots.EtcPath("sysctl.conf")}, files...)
	var out []finding.Text
	for _, f := range files {
		if roots.Display(f) == PersistFile {
			continue // ours: apply --persist rewrites it
		}
		for key, val := range sysctlConf(f) {
			if w, ok := want[key]; ok && normalize(key, val) != w {
				out = append(out, finding.Tf(finding.T("%s sets %s = %s: the next boot or `sysctl --system` puts that back",
					"%s 将 %s 设为 %s：下次开机或执行 `sysctl --system` 时会改回该值"), roots.Display(f), key, finding.SafeLine(val)))
			}
		}
	}
	if b, err := os.ReadFile(roots.EtcPath("tuned", "active_profile")); err == nil {
		if p := strings.TrimSpace(string(b)); p != "" {
			out = append(out, finding.Tf(finding.T("the TuneD profile %s is active: it may set these keys again (check with tuned-adm verify)",
				"TuneD 配置档 %s 处于启用状态：它可能再次设置这些参数（用 tuned-adm verify 检查）"), finding.SafeLine(p)))
		}
	}
	return out
}

// sysctlConf reads the key = value lines of one sysctl.conf-format file
// (keys with / are the same keys written as paths; a leading - only
// silences errors).
func sysctlConf(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(k), "-"), "/", ".")
		m[k] = strings.TrimSpace(v)
	}
	return m
}
