package sysinfo

// Idle states:
//
//	/sys/devices/system/cpu/cpuidle/current_driver:   intel_idle
//	/sys/devices/system/cpu/cpuidle/current_governor: menu
//	/sys/devices/system/cpu/cpu0/cpuidle/state2/name:    C6
//	/sys/devices/system/cpu/cpu0/cpuidle/state2/latency: 170
//	/sys/devices/system/cpu/cpu0/cpuidle/state2/disable: 0

import (
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

func collectCpuidle(h hostfs.FS) Field[Cpuidle] {
	base := h.SysPath("devices/system/cpu/cpuidle")
	drv := readField(h, base+"/current_driver", parseText)
	if !drv.OK {
		return Missing[Cpuidle](drv.AsErr())
	}
	ci := Cpuidle{Driver: drv.Value, States: []IdleState{}}
	gov := readField(h, base+"/current_governor", parseText)
	if !gov.OK {
		gov = readField(h, base+"/current_governor_ro", parseText)
	}
	if gov.OK {
		ci.Governor = gov.Value
	}
	sdir := h.SysPath("devices/system/cpu/cpu0/cpuidle")
	states, _ := h.ReadDir(sdir)
	for _, s := range states {
		n, ok := strings.CutPrefix(s, "state")
		if _, err := strconv.Atoi(n); !ok || err != nil {
			continue
		}
		name := readField(h, sdir+"/"+s+"/name", parseText)
		lat := readField(h, sdir+"/"+s+"/latency", parseInt)
		if !name.OK || !lat.OK {
			continue
		}
		dis := readField(h, sdir+"/"+s+"/disable", parseBool01)
		ci.States = append(ci.States, IdleState{Name: name.Value, LatencyUS: lat.Value, Disabled: dis.OK && dis.Value})
	}
	return Got(ci, h.Display(base))
}

func collectVulnerabilities(h hostfs.FS) Field[map[string]string] {
	dir := h.SysPath("devices/system/cpu/vulnerabilities")
	names, err := h.ReadDir(dir)
	if err != nil {
		return Missing[map[string]string](err)
	}
	m := map[string]string{}
	var firstErr error
	for _, n := range names {
		f := readField(h, dir+"/"+n, parseText)
		if f.OK {
			m[n] = f.Value
		} else if firstErr == nil {
			firstErr = f.AsErr()
		}
	}
	if len(m) == 0 {
		if firstErr == nil {
			firstErr = fileErr(h, dir, errEmpty)
		}
		return Missing[map[string]string](firstErr)
	}
	return Got(m, h.Display(dir))
}
