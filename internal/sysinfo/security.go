package sysinfo

// SELinux and audit:
//
//	/sys/fs/selinux/enforce: 1
//	/proc/cmdline: ... selinux=0 ... enforcing=0 ... audit=0
//	/etc/selinux/config: SELINUX=disabled

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// selinuxIn is what the SELinux mode is decided from.
type selinuxIn struct {
	enforce      string // /sys/fs/selinux/enforce content, "" when unreadable
	fsPresent    bool   // /sys/fs/selinux exists (selinuxfs mounted)
	cmdlineKnown bool
	args         map[string]string // kernel command line
	config       string            // SELINUX= of /etc/selinux/config, "" when unreadable
}

// selinuxMode: selinux=0 on the cmdline or SELINUX=disabled disable it;
// otherwise the live enforce flag decides; no selinuxfs at all is "absent".
func selinuxMode(in selinuxIn) (string, error) {
	if in.cmdlineKnown && in.args["selinux"] == "0" {
		return "disabled", nil
	}
	switch in.enforce {
	case "1":
		return "enforcing", nil
	case "0":
		return "permissive", nil
	}
	if !in.fsPresent {
		if strings.EqualFold(in.config, "disabled") {
			return "disabled", nil
		}
		if in.cmdlineKnown {
			return "absent", nil
		}
	}
	return "", finding.Errorf(finding.T("cannot tell: /sys/fs/selinux/enforce unreadable", "无法判断：/sys/fs/selinux/enforce 不可读"))
}

func collectSecurity(h hostfs.FS, k Kernel, ps procScan) Security {
	var s Security
	enf := h.SysPath("fs/selinux/enforce")
	in := selinuxIn{fsPresent: h.Exists(h.SysPath("fs/selinux")), cmdlineKnown: k.Cmdline.OK, args: k.Args}
	val, err := h.ReadString(enf)
	if err == nil {
		in.enforce = val
	}
	cfg := h.EtcPath("selinux/config")
	if c, cerr := h.ReadString(cfg); cerr == nil {
		if kv, perr := parseKeyValues(c); perr == nil {
			in.config = kv["SELINUX"]
		}
	}
	switch mode, merr := selinuxMode(in); {
	case err == nil && val != "0" && val != "1":
		s.SELinux = Missing[string](fileErr(h, enf, finding.Errorf(finding.T("want 0 or 1, got %s", "应为 0 或 1，实际为 %s"), quote(val))))
	case merr != nil:
		if err != nil {
			merr = err
		}
		s.SELinux = Missing[string](merr)
	case k.Args["selinux"] == "0":
		s.SELinux = Got(mode, k.Cmdline.Source)
	case in.enforce != "":
		s.SELinux = Got(mode, h.Display(enf))
	case mode == "disabled":
		s.SELinux = Got(mode, "derived: "+h.Display(h.SysPath("fs/selinux"))+" absent, SELINUX=disabled in "+h.Display(cfg))
	default:
		s.SELinux = Got(mode, "derived: "+h.Display(h.SysPath("fs/selinux"))+" absent, "+k.Cmdline.Source)
	}
	s.AuditdRunning = ps.running("auditd")
	s.Audit = auditState(k, s.AuditdRunning)
	return s
}

// auditState: audit=0/1 on the cmdline decides; without it the kernel
// audits once auditd enables it, so a running auditd means "on".
func auditState(k Kernel, auditd Field[bool]) Field[string] {
	if !k.Cmdline.OK {
		return Missing[string](k.Cmdline.AsErr())
	}
	switch k.Args["audit"] {
	case "0", "off":
		return Got("off", k.Cmdline.Source)
	case "1", "on":
		return Got("on", k.Cmdline.Source)
	}
	if !auditd.OK {
		return Missing[string](finding.Errorf(finding.T("no audit= on the kernel command line and %v", "内核命令行中没有 audit=，且 %v"), auditd.AsErr()))
	}
	src := "derived: no audit= in " + k.Cmdline.Source + ", auditd "
	if auditd.Value {
		return Got("on", src+"running")
	}
	return Got("off", src+"not running")
}

func quote(s string) string { return `"` + finding.Clip(s, 40) + `"` }
