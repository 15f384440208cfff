package sysinfo

// Virtualisation evidence, strongest first:
//
//	/sys/hypervisor/type:              xen
//	/sys/class/dmi/id/sys_vendor:      QEMU            (VMware, Inc. / Microsoft Corporation / OpenStack Foundation)
//	/sys/class/dmi/id/product_name:    Standard PC (Q35 + ICH9, 2009)
//	/sys/firmware/acpi/tables/DSDT:    "DSDT....wFIRECKFCVMDSDT" (OEM ID at byte 10: Firecracker has no DMI)
//	/proc/cpuinfo flags:               ... hypervisor ...

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// hvEvidence is what detectHypervisor decides from; empty strings are
// files that were absent or unreadable.
type hvEvidence struct {
	xenType            string // /sys/hypervisor/type
	dmiVendor, dmiProd string
	acpiOEM            string // OEM ID of the DSDT header
	cmdline            string
	cpuinfoKnown       bool // /proc/cpuinfo parsed
	hypervisorFlag     bool // x86 "hypervisor" cpuid flag
	x86                bool
	clocksources       string // available_clocksource, to tell KVM
	srcs               map[string]string
}

// detectHypervisor returns the hypervisor name ("" for bare metal) and the
// file that decided it, or an error when nothing conclusive was readable.
func detectHypervisor(e hvEvidence) (name, source string, err error) {
	src := func(k string) string { return e.srcs[k] }
	if e.xenType != "" {
		if strings.EqualFold(e.xenType, "xen") {
			return "Xen", src("xen"), nil
		}
		return e.xenType, src("xen"), nil
	}
	if n := dmiHypervisor(e.dmiVendor, e.dmiProd); n != "" {
		return n, src("dmi"), nil
	}
	switch {
	case strings.HasPrefix(e.acpiOEM, "FIRECK"):
		return "Firecracker", src("acpi"), nil
	case strings.HasPrefix(e.acpiOEM, "BOCHS"):
		return "KVM", src("acpi"), nil
	case strings.HasPrefix(e.acpiOEM, "VRTUAL"):
		return "Microsoft", src("acpi"), nil
	case strings.HasPrefix(e.acpiOEM, "VBOX"):
		return "VirtualBox", src("acpi"), nil
	case strings.HasPrefix(e.acpiOEM, "Xen"):
		return "Xen", src("acpi"), nil
	}
	if strings.Contains(e.cmdline, "firecracker") {
		return "Firecracker", src("cmdline"), nil
	}
	if e.hypervisorFlag {
		if strings.Contains(e.clocksources, "kvm-clock") {
			return "KVM", src("cpuinfo"), nil
		}
		if strings.Contains(e.clocksources, "hyperv") {
			return "Microsoft", src("cpuinfo"), nil
		}
		return "unknown", src("cpuinfo"), nil
	}
	// No flag on x86 is proof of bare metal; ARM has no such flag, so only
	// a readable, non-virtual DMI vendor says so.
	if e.cpuinfoKnown && e.x86 {
		return "", src("cpuinfo"), nil
	}
	if e.dmiVendor != "" {
		return "", src("dmi"), nil
	}
	return "", "", finding.Errorf(finding.T("cannot tell: no hypervisor flag, DMI or ACPI evidence readable", "无法判断：没有可读的 hypervisor 标志、DMI 或 ACPI 证据"))
}

// dmiHypervisor maps DMI vendor/product strings of virtual machines.
func dmiHypervisor(vendor, product string) string {
	v, p := strings.ToLower(vendor), strings.ToLower(product)
	switch {
	case v == "":
		return ""
	case strings.Contains(v, "vmware"):
		return "VMware"
	case strings.Contains(v, "microsoft") && strings.Contains(p, "virtual"):
		return "Microsoft"
	case strings.Contains(v, "xen"):
		return "Xen"
	case strings.Contains(v, "innotek") || strings.Contains(p, "virtualbox"):
		return "VirtualBox"
	case strings.Contains(v, "parallels"):
		return "Parallels"
	case strings.Contains(p, "firecracker"):
		return "Firecracker"
	case strings.Contains(v, "amazon ec2"):
		if strings.Contains(p, "metal") {
			return ""
		}
		return "KVM"
	case v == "qemu", strings.Contains(p, "kvm"), strings.Contains(v, "openstack"),
		strings.Contains(p, "openstack"), strings.Contains(p, "google compute engine"),
		strings.Contains(v, "alibaba cloud"), strings.Contains(v, "tencent cloud"),
		strings.Contains(v, "huawei cloud"), strings.Contains(p, "cloud server"), v == "bochs":
		return "KVM"
	}
	return ""
}

// acpiOEMID returns the 6-byte OEM ID of an ACPI table header.
func acpiOEMID(b []byte) (string, error) {
	if len(b) < 16 || string(b[:4]) != "DSDT" {
		return "", finding.Errorf(finding.T("not an ACPI DSDT header", "不是 ACPI DSDT 头"))
	}
	id := strings.TrimRight(string(b[10:16]), " \x00")
	if id == "" || checkText(id) != nil {
		return "", finding.Errorf(finding.T("bad ACPI OEM ID", "ACPI OEM ID 无效"))
	}
	return id, nil
}

func collectHypervisor(h hostfs.FS, ci cpuInfo, cmdline Field[string]) Field[string] {
	e := hvEvidence{srcs: map[string]string{}}
	if f := readField(h, h.SysPath("hypervisor/type"), parseText); f.OK {
		e.xenType, e.srcs["xen"] = f.Value, f.Source
	}
	if f := readField(h, h.SysPath("class/dmi/id/sys_vendor"), parseText); f.OK {
		e.dmiVendor, e.srcs["dmi"] = f.Value, f.Source
		if p := readField(h, h.SysPath("class/dmi/id/product_name"), parseText); p.OK {
			e.dmiProd = p.Value
			e.srcs["dmi"] += ", " + p.Source
		}
	}
	dsdt := h.SysPath("firmware/acpi/tables/DSDT")
	if b, err := h.ReadFile(dsdt); err == nil {
		if id, err := acpiOEMID(b); err == nil {
			e.acpiOEM, e.srcs["acpi"] = id, h.Display(dsdt)+" (OEM ID "+id+")"
		}
	}
	if cmdline.OK {
		e.cmdline, e.srcs["cmdline"] = strings.ToLower(cmdline.Value), cmdline.Source
	}
	if ci.processors > 0 {
		e.cpuinfoKnown = true
		e.x86 = ci.arch == "x86_64"
		for _, fl := range ci.flags {
			if fl == "hypervisor" {
				e.hypervisorFlag = true
			}
		}
		e.srcs["cpuinfo"] = h.Display(h.ProcPath("cpuinfo"))
	}
	if f := readField(h, h.SysPath("devices/system/clocksource/clocksource0/available_clocksource"), parseText); f.OK {
		e.clocksources = f.Value
	}
	name, src, err := detectHypervisor(e)
	if err != nil {
		return Missing[string](err)
	}
	return Got(name, src)
}
