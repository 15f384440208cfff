package cli

import (
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/rules"
)

// The flags several commands share, each defined once here (as
// output.go's --output, --lang and --fail-on), and the checks of their
// values.

// profileOpt parses the workload --profile ("" is java-web).
func profileOpt(s string) (rules.Profile, error) {
	p, err := rules.ParseProfile(orDefaultStr(s, string(rules.JavaWeb)))
	if err != nil {
		return "", usageErr(finding.T("--profile: %v", "--profile：%v"), err)
	}
	return p, nil
}

// catalogOfRuns is what --catalog is to the commands that add runs to it.
var catalogOfRuns = finding.T("catalog of runs", "运行记录目录")

// catalogOfSets is what --catalog is to compare: where earlier sets of the
// service measure how far a whole set shifts.
var catalogOfSets = finding.T("catalog whose earlier 'run --repeat' sets of the same service on this host measure how far a whole set shifts from one to the next; the gate widens its interval for two sets taken apart by that", "运行记录目录：其中同一主机上同一服务之前的 'run --repeat' 运行组用于测量整组运行之间的偏移；对分开采集的两组运行，门禁按此加宽区间")

// catalogFlag defines --catalog; what says what the command does with it.
func catalogFlag(f *pflag.FlagSet, p *string, what finding.Text) {
	f.StringVar(p, "catalog", "", helpText(finding.T(what.EN+" (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)",
		what.ZH+"（默认 $XDG_DATA_HOME/tuneloop/runs.db 或 ~/.local/share/tuneloop/runs.db）")))
}

// journalFlag defines --journal, where apply, revert and experiment keep
// what they changed.
func journalFlag(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "journal", "", helpText(finding.T("journal directory (default /var/lib/tuneloop/journal, or $XDG_STATE_HOME/tuneloop/journal when not root)",
		"日志目录（默认 /var/lib/tuneloop/journal；非 root 用户为 $XDG_STATE_HOME/tuneloop/journal）")))
}

// outFileFlag defines --out FILE of the commands that print one report.
func outFileFlag(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "out", "", helpText(finding.T("write the report to this file instead of standard output", "把报告写入该文件，而不是标准输出")))
}

// hostRoots are where a host's /proc, /sys and /etc are read: the live
// host, or a captured tree (tests, an offline audit).
type hostRoots struct {
	Proc, Sys, Etc, Root *string
}

// flags defines --proc-root, --sys-root, --etc-root and --root.
func (r hostRoots) flags(f *pflag.FlagSet) {
	f.StringVar(r.Proc, "proc-root", "/proc", helpText(finding.T("where /proc is mounted (a captured tree in tests)", "/proc 的挂载位置（测试中为采集下来的目录树）")))
	f.StringVar(r.Sys, "sys-root", "/sys", helpText(finding.T("where /sys is mounted", "/sys 的挂载位置")))
	f.StringVar(r.Etc, "etc-root", "/etc", helpText(finding.T("where /etc is", "/etc 所在位置")))
	f.StringVar(r.Root, "root", "", helpText(finding.T("a captured host tree holding proc/, sys/ and etc/ (overrides the three roots)", "采集下来的主机目录树，内含 proc/、sys/ 和 etc/（覆盖上面三个根目录）")))
}

// fs is the host the flags name.
func (r hostRoots) fs() hostfs.FS {
	if *r.Root != "" {
		return hostfs.Under(*r.Root)
	}
	return hostfs.FS{Proc: *r.Proc, Sys: *r.Sys, Etc: *r.Etc}
}

// check refuses a root that is not a directory (exit 2), so a typo is
// not audited as a host where nothing is present.
func (r hostRoots) check() error {
	isDir := func(p string) (bool, error) {
		st, err := os.Stat(p)
		if err != nil {
			return false, err
		}
		return st.IsDir(), nil
	}
	if *r.Root != "" {
		dir, err := isDir(*r.Root)
		switch {
		case err != nil:
			return usageErr(finding.T("--root: %v", "--root：%v"), err)
		case !dir:
			return usageErr(finding.T("--root %s: not a directory (a captured host tree holding proc/, sys/ and etc/)",
				"--root %s：不是目录（应为内含 proc/、sys/ 和 etc/ 的主机目录树）"), *r.Root)
		}
		n := 0
		for _, sub := range []string{"proc", "sys", "etc"} {
			if ok, _ := isDir(filepath.Join(*r.Root, sub)); ok {
				n++
			}
		}
		if n == 0 {
			return usageErr(finding.T("--root %s: holds none of proc/, sys/ and etc/: not a captured host tree",
				"--root %s：不含 proc/、sys/、etc/ 中的任何一个：不是采集下来的主机目录树"), *r.Root)
		}
		return nil
	}
	for _, d := range []struct{ flag, path string }{{"--proc-root", *r.Proc}, {"--sys-root", *r.Sys}, {"--etc-root", *r.Etc}} {
		if d.path == "" {
			continue // not given (options built in code, not from flags)
		}
		dir, err := isDir(d.path)
		switch {
		case err != nil:
			return usageErr(finding.T("%s: %v", "%s：%v"), d.flag, err)
		case !dir:
			return usageErr(finding.T("%s %s: not a directory", "%s %s：不是目录"), d.flag, d.path)
		}
	}
	return nil
}
