package sysinfo

// Frequency scaling, one value per file:
//
//	/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver:             intel_pstate
//	/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor:           powersave
//	/sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors: performance powersave
//	/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference: balance_performance
//	/sys/devices/system/cpu/intel_pstate/no_turbo:                   0

import (
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// parseWords splits a space-separated list file; at least one word.
func parseWords(s string) ([]string, error) {
	s, err := parseText(s)
	if err != nil {
		return nil, err
	}
	return strings.Fields(s), nil
}

func collectCpufreq(h hostfs.FS) Field[Cpufreq] {
	base := h.SysPath("devices/system/cpu")
	cpu0 := base + "/cpu0/cpufreq"
	if !h.Exists(cpu0) {
		return Missing[Cpufreq](finding.Errorf(finding.T("%s: not present (no frequency scaling exposed: VM or firmware-owned P-states)", "%s: 不存在（未暴露调频接口：虚拟机，或 P-state 由固件管理）"), h.Display(cpu0)))
	}
	drv := readField(h, cpu0+"/scaling_driver", parseText)
	if !drv.OK {
		return Missing[Cpufreq](drv.AsErr())
	}
	cf := Cpufreq{Driver: drv.Value, Governors: map[string]int{}}
	if av := readField(h, cpu0+"/scaling_available_governors", parseWords); av.OK {
		cf.Available = av.Value
	}
	ids, _ := cpuDirs(h)
	for _, id := range ids {
		g := readField(h, base+"/cpu"+strconv.Itoa(id)+"/cpufreq/scaling_governor", parseText)
		if g.OK {
			cf.Governors[g.Value]++
		}
	}
	if nt := readField(h, base+"/intel_pstate/no_turbo", parseBool01); nt.OK {
		b := !nt.Value
		cf.Boost = &b
	} else if bo := readField(h, base+"/cpufreq/boost", parseBool01); bo.OK {
		b := bo.Value
		cf.Boost = &b
	}
	if pols, err := h.ReadDir(base + "/cpufreq"); err == nil {
		for _, p := range pols {
			if !strings.HasPrefix(p, "policy") {
				continue
			}
			e := readField(h, base+"/cpufreq/"+p+"/energy_performance_preference", parseText)
			if e.OK {
				if cf.EPP == nil {
					cf.EPP = map[string]int{}
				}
				cf.EPP[e.Value]++
			}
		}
	}
	if mp := readField(h, base+"/intel_pstate/min_perf_pct", parseInt); mp.OK {
		v := mp.Value
		cf.MinPerfPct = &v
	}
	return Got(cf, h.Display(cpu0))
}
