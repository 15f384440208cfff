package sysinfo

// Kernel time source (JVM nanoTime/currentTimeMillis go through it):
//
//	/sys/devices/system/clocksource/clocksource0/current_clocksource:   tsc
//	/sys/devices/system/clocksource/clocksource0/available_clocksource: tsc kvm-clock

import "github.com/tuneloop/tuneloop/internal/hostfs"

func collectClocksource(h hostfs.FS) Clocksource {
	dir := h.SysPath("devices/system/clocksource/clocksource0")
	return Clocksource{
		Current:   readField(h, dir+"/current_clocksource", parseText),
		Available: readField(h, dir+"/available_clocksource", parseWords),
	}
}
