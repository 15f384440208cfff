package sysinfo

// Kernel identity and boot parameters:
//
//	/proc/sys/kernel/osrelease: 5.10.0-182.0.0.95.oe2203sp3.aarch64
//	/proc/version: Linux version 6.18.44-fc-v595 (builder@sandboxing) (gcc (GCC) 15.3.0, ...) #1 SMP PREEMPT_DYNAMIC @0
//	/proc/sys/kernel/arch: x86_64
//	/proc/cmdline: BOOT_IMAGE=/vmlinuz-5.10.0 root=/dev/mapper/root ro crashkernel=512M quiet audit=0

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

func collectKernel(h hostfs.FS) Kernel {
	k := Kernel{
		Release: readField(h, h.ProcPath("sys/kernel/osrelease"), parseText),
		Version: readField(h, h.ProcPath("version"), parseText),
		Arch:    readField(h, h.ProcPath("sys/kernel/arch"), parseArch),
		Cmdline: readField(h, h.ProcPath("cmdline"), parseCmdlineText),
	}
	if !k.Arch.OK && k.Release.OK {
		// Before 5.x there is no kernel/arch; distro releases end in the arch.
		if a := archFromRelease(k.Release.Value); a != "" {
			k.Arch = Got(a, "derived: "+k.Release.Source)
		}
	}
	if k.Cmdline.OK {
		k.Args = parseCmdlineArgs(k.Cmdline.Value)
	}
	return k
}

// parseArch accepts the architectures tuneloop audits, normalised; any
// other value (or junk) is unavailable: rules are written for these two.
func parseArch(s string) (string, error) {
	s, err := parseText(s)
	if err != nil {
		return "", err
	}
	switch s {
	case "x86_64", "amd64":
		return "x86_64", nil
	case "aarch64", "arm64":
		return "aarch64", nil
	}
	return "", finding.Errorf(finding.T("unsupported architecture %q (tuneloop audits x86_64 and aarch64)", "不支持的架构 %q（tuneloop 审计 x86_64 与 aarch64）"), finding.Clip(s, 40))
}

// archFromRelease infers the arch from a release like
// "4.19.90-2112.8.0.0131.oe1.aarch64" or "3.10.0-1160.el7.x86_64".
func archFromRelease(rel string) string {
	switch {
	case strings.HasSuffix(rel, "x86_64"):
		return "x86_64"
	case strings.HasSuffix(rel, "aarch64"):
		return "aarch64"
	}
	return ""
}

// parseCmdlineText accepts /proc/cmdline; an empty command line is valid
// (some containers and VMs boot with none).
func parseCmdlineText(s string) (string, error) {
	s = strings.TrimSpace(s)
	if err := checkText(s); err != nil {
		return "", err
	}
	if strings.ContainsAny(s, "\n\r") {
		return "", finding.Errorf(finding.T("expected one line, got %q", "应为一行，实际为 %q"), finding.Clip(s, 40))
	}
	return s, nil
}

// parseCmdlineArgs splits a kernel command line into key -> value ("" for
// bare flags). Double quotes group a value with spaces; everything after
// "--" is for init and skipped; later duplicates win.
func parseCmdlineArgs(s string) map[string]string {
	args := map[string]string{}
	var cur strings.Builder
	quoted := false
	flush := func() bool {
		w := cur.String()
		cur.Reset()
		if w == "" {
			return true
		}
		if w == "--" {
			return false
		}
		k, v, _ := strings.Cut(w, "=")
		args[k] = v
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
		case (c == ' ' || c == '\t' || c == '\n') && !quoted:
			if !flush() {
				return args
			}
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return args
}
