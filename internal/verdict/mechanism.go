package verdict

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// saturatedBusy: at this mean CPU busy % the CPUs are the limit; a queue
// behind a lock is then read against where the CPU samples are.
const saturatedBusy = 85

// Evidence gathers what the mechanism catalogue reads from a run's
// layers: the threads' time from the dumps (and JFR's events when the
// recording holds them), the GC's causes, the host's saturation.
func Evidence(L *Layers) *mechanism.Evidence {
	e := &mechanism.Evidence{Events: map[string]int{}, Frameworks: map[string]bool{}}
	e.BusyPct, e.UserPct, e.SysPct = L.Stats.Busy, L.Stats.User, L.Stats.System
	if L.Folder != nil && L.Folder.Manifest.Facts != nil {
		if c := L.Folder.Manifest.Facts.CPU.Online; c.OK {
			e.CPUs = len(c.Value)
		}
	}
	e.Saturated = L.Stats.Ticks > 0 && L.Stats.Busy >= saturatedBusy
	for _, f := range L.Recorded {
		if f.Severity >= finding.Warning && strings.HasPrefix(f.ID, "run.") {
			e.HostFindings = append(e.HostFindings, f.ID)
		}
	}
	// The delayed-ACK finding is the verdict's own (from the load and the
	// TCP counters), not a recorded one.
	if f := delayedACK(L); f != nil && !slices.Contains(e.HostFindings, f.ID) {
		e.HostFindings = append(e.HostFindings, f.ID)
	}
	if othersTakeCPU(L, e) {
		e.HostFindings = append(e.HostFindings, IDCPUOthers)
	}
	for i, d := range L.Dumps {
		if i < len(L.Reports) {
			e.Slices = append(e.Slices, dumpSlices(d, L.Reports[i])...)
			e.Dumps++
			if len(L.Reports[i].Deadlocks) > 0 {
				e.Deadlock = true
			}
		}
	}
	gcFacts(L, e)
	frameworks(e)
	return e
}

// gcFacts copies the GC log's causes.
func gcFacts(L *Layers, e *mechanism.Evidence) {
	e.GC.PausePct, e.GC.LiveAfterFullPct = -1, -1
	if L.GC == nil {
		return
	}
	s := &L.GC.Summary
	e.GC.Collector, e.GC.Pauses = s.CollectorName, s.Pauses
	if s.ThroughputPct >= 0 {
		e.GC.PausePct = 100 - s.ThroughputPct
	}
	e.GC.Full, e.GC.Humongous, e.GC.ToSpaceExhausted = s.FullGCs, s.HumongousGCs, s.ToSpaceExhausted
	e.GC.Explicit, e.GC.Metadata, e.GC.PromotionFailed, e.GC.ConcurrentFailure = s.ExplicitGCs, s.MetadataGCs, s.PromotionFailed, s.ConcModeFailures
	if s.AllocRateMBs > 0 {
		e.GC.AllocMBs = s.AllocRateMBs
	}
	if s.HeapMaxKB > 0 {
		e.GC.HeapMaxMB = float64(s.HeapMaxKB) / 1024
		// The heap still used after old/full collections (the trend's
		// fitted end), as a share of the heap: what a larger heap must hold.
		if h := s.HeapAfter; h.Basis == "old" && h.Points >= minLivePoints && h.LastKB > 0 {
			e.GC.LiveAfterFullPct = min(100, 100*h.LastKB/float64(s.HeapMaxKB))
		}
	}
	for _, f := range L.GC.Findings {
		if f.Severity >= finding.Warning {
			e.GC.Findings = append(e.GC.Findings, f.ID)
		}
	}
}

// minLivePoints: old collections the live-after-full trend needs.
const minLivePoints = 3

// IDCPUOthers is the host fact the verdict derives for the catalogue (not
// a finding of its own: run.cpu.saturated says it in words): the CPUs are
// saturated and the service used under diagnose.OthersShare of the busy
// cores, or the hypervisor steals them.
const IDCPUOthers = "run.cpu.others"

func othersTakeCPU(L *Layers, e *mechanism.Evidence) bool {
	for _, h := range e.HostFindings {
		if h == diagnose.IDSteal {
			return true
		}
	}
	if !e.Saturated || e.CPUs == 0 || L.Stats.ProcCPU < 0 {
		return false
	}
	busyCores := L.Stats.Busy / 100 * float64(e.CPUs)
	return L.Stats.ProcCPU/100 < diagnose.OthersShare*busyCores
}

// frameworkFrames name a framework by a frame prefix of any thread.
var frameworkFrames = []struct{ prefix, name string }{
	{"ch.qos.logback.", "logback"}, {"org.apache.logging.log4j.", "log4j2"}, {"org.apache.log4j.", "log4j1"},
	{"java.util.logging.", "jul"}, {"org.apache.catalina.", "tomcat"}, {"org.apache.tomcat.", "tomcat"},
	{"org.eclipse.jetty.", "jetty"}, {"io.undertow.", "undertow"}, {"io.netty.", "netty"}, {"io.vertx.", "vertx"},
	{"org.springframework.", "spring"}, {"com.zaxxer.hikari.", "hikari"}, {"org.apache.commons.dbcp2.", "dbcp2"},
	{"com.mchange.v2.c3p0.", "c3p0"}, {"com.alibaba.druid.", "druid"}, {"sun.net.httpserver.", "jdk-httpserver"},
	{"reactor.", "reactor"}, {"io.grpc.", "grpc"}, {"okhttp3.", "okhttp"}, {"org.apache.http.", "httpclient"}, {"org.apache.hc.client5.", "httpclient"},
}

func frameworks(e *mechanism.Evidence) {
	for i := range e.Slices {
		for _, f := range e.Slices[i].Stack {
			for _, fw := range frameworkFrames {
				if strings.HasPrefix(f.Method, fw.prefix) {
					e.Frameworks[fw.name] = true
				}
			}
		}
	}
}

// dumpSlices is every thread of one dump as a slice of weight 1.
func dumpSlices(d *threaddump.Dump, r *threaddump.Report) []mechanism.Slice {
	owners := map[string]*threaddump.Thread{}
	for _, t := range d.Threads {
		for _, l := range t.Locked {
			owners[l.Key()] = t
		}
		for _, l := range t.OwnableSynchronizers {
			owners[l.Key()] = t
		}
	}
	out := make([]mechanism.Slice, 0, len(d.Threads))
	for _, t := range d.Threads {
		st := frames(t.Stack())
		role, pool := roleOf(t.Name, st)
		s := mechanism.Slice{Thread: t.Name, Role: role, Pool: pool, Stack: st, Weight: 1, Source: mechanism.FromDumps}
		s.State = stateOf(t)
		if r.IsIdle(t) {
			s.State = mechanism.Idle
		}
		var wait []threaddump.LockRef
		switch {
		case len(t.WaitingToLock) > 0:
			wait = t.WaitingToLock
		case len(t.Parking) > 0:
			wait = t.Parking
		case len(t.WaitingOn) > 0:
			wait = t.WaitingOn
		}
		if len(wait) > 0 {
			s.Lock = wait[0].Class
			if h := owners[wait[0].Key()]; h != nil && h != t {
				s.Holder = frames(h.Stack())
			}
		}
		out = append(out, s)
	}
	return out
}

func stateOf(t *threaddump.Thread) mechanism.State {
	switch threaddump.ActivityOf(t) {
	case threaddump.ActFsync, threaddump.ActFileRead, threaddump.ActFileWrite, threaddump.ActFileIO:
		return mechanism.File
	case threaddump.ActSocketRead, threaddump.ActSocketWrite:
		return mechanism.Socket
	case threaddump.ActSleep:
		return mechanism.Sleeping
	case threaddump.ActBlocked:
		return mechanism.Blocked
	case threaddump.ActWaiting:
		if len(t.Parking) > 0 || slices.ContainsFunc(t.Stack(), func(f threaddump.Frame) bool {
			return strings.HasPrefix(f.Method, "jdk.internal.misc.Unsafe.park") || strings.HasPrefix(f.Method, "sun.misc.Unsafe.park")
		}) {
			return mechanism.Parked
		}
		return mechanism.Waiting
	case threaddump.ActRunning:
		return mechanism.Running
	}
	return mechanism.Idle
}

// frames converts a dump's stack (leaf first) with line numbers.
func frames(fs []threaddump.Frame) []mechanism.Frame {
	out := make([]mechanism.Frame, len(fs))
	for i, f := range fs {
		out[i] = mechanism.Frame{Method: f.Method, Line: lineOf(f.Source)}
	}
	return out
}

// lineOf reads the line of "Foo.java:123" (0: none).
func lineOf(src string) int {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil {
		return 0
	}
	return n
}
