package sysinfo

// /proc/cpuinfo, x86:
//
//	processor	: 0
//	vendor_id	: AuthenticAMD
//	model name	: AMD EPYC
//	flags		: fpu vme de pse tsc msr ... hypervisor lahf_lm ...
//
// and arm64 (no model name; the core is named by implementer + part):
//
//	processor	: 0
//	Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics ...
//	CPU implementer	: 0x48
//	CPU part	: 0xd01
//
// procfs.CPUInfo is not used: it picks its parser by runtime.GOARCH, so an
// arm64 fixture would be misread on an amd64 build machine.

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// cpuInfo is what tuneloop needs from /proc/cpuinfo (first processor's
// identity, count of processors).
type cpuInfo struct {
	processors  int
	vendorID    string // x86 vendor_id
	modelName   string // x86 "model name" (also some arm kernels)
	implementer string // arm "CPU implementer", lower-case "0x48"
	part        string // arm "CPU part", lower-case "0xd01"
	flags       []string
	arch        string // "x86_64" or "aarch64" as inferred from the keys
}

// parseCPUInfo parses /proc/cpuinfo. Identity comes from the first
// processor block; a file with no "processor" line is an error.
func parseCPUInfo(s string) (cpuInfo, error) {
	var ci cpuInfo
	if err := checkText(s); err != nil {
		return ci, err
	}
	for i, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			// Old ARM kernels print a bare "Hardware" tail; tolerate other
			// colon-less lines only after a processor was seen.
			if ci.processors == 0 {
				return ci, lineErr(i+1, finding.T("no ':' in %q", "%q 中没有 ':'"), finding.Clip(line, 40))
			}
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "processor" {
			ci.processors++
			continue
		}
		if ci.processors > 1 {
			continue // identity from the first processor only
		}
		switch k {
		case "vendor_id":
			ci.vendorID = v
			ci.arch = "x86_64"
		case "model name":
			ci.modelName = v
		case "flags":
			ci.flags = strings.Fields(v)
			ci.arch = "x86_64"
		case "Features":
			ci.flags = strings.Fields(v)
			ci.arch = "aarch64"
		case "CPU implementer":
			ci.implementer = strings.ToLower(v)
			ci.arch = "aarch64"
		case "CPU part":
			ci.part = strings.ToLower(v)
		}
	}
	if ci.processors == 0 {
		return ci, finding.Errorf(finding.T("no processor entries", "没有 processor 条目"))
	}
	return ci, nil
}

func collectCPU(h hostfs.FS) (CPU, cpuInfo) {
	var c CPU
	p := h.ProcPath("cpuinfo")
	src := h.Display(p)
	s, err := h.ReadString(p)
	if err != nil {
		c.Vendor, c.Model, c.Logical = Missing[string](err), Missing[string](err), Missing[int](err)
		return c, cpuInfo{}
	}
	ci, err := parseCPUInfo(s)
	if err != nil {
		err = fileErr(h, p, err)
		c.Vendor, c.Model, c.Logical = Missing[string](err), Missing[string](err), Missing[int](err)
		return c, cpuInfo{}
	}
	c.Logical = Got(ci.processors, src)
	c.Flags = ci.flags
	c.Implementer, c.Part = ci.implementer, ci.part
	switch {
	case ci.vendorID != "":
		c.Vendor = Got(ci.vendorID, src)
	case ci.implementer != "":
		c.Vendor = Got(armVendor(ci.implementer), src)
	default:
		c.Vendor = Missing[string](finding.Errorf(finding.T("%s: no vendor_id or CPU implementer", "%s: 没有 vendor_id 或 CPU implementer"), src))
	}
	switch {
	case ci.implementer != "":
		c.Model = Got(armCoreName(ci.implementer, ci.part), src)
		c.Kunpeng = isKunpeng(ci.implementer, ci.part)
	case ci.modelName != "":
		c.Model = Got(ci.modelName, src)
	default:
		c.Model = Missing[string](finding.Errorf(finding.T("%s: no model name or CPU part", "%s: 没有 model name 或 CPU part"), src))
	}
	return c, ci
}
