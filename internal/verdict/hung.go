package verdict

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// Why a service that stopped answering is hung, besides what its thread
// dumps show (a deadlock, a lock or pool every worker waits on): it ran out
// of memory (its log says so; an OutOfMemoryError that ends a thread such
// as an HTTP dispatcher leaves a live JVM that answers nothing), or it was
// collecting garbage back to back when its GC log ends.

// Finding IDs of a hung service's causes read outside the thread dumps.
const (
	IDServiceOOM  = "run.service-oom"
	IDServiceInGC = "run.service-in-gc"
)

// oomMarks are what a JVM writes when it runs out of memory.
var oomMarks = []string{"OutOfMemoryError", "Java heap space", "GC overhead limit exceeded"}

// maxLogLine bounds a quoted log line.
const maxLogLine = 200

// outOfMemory is the out-of-memory error in the last lines of the service's
// log (the manifest keeps them when the service stopped answering), nil
// when they show none.
func outOfMemory(se *runfolder.ServiceEnd) *finding.Finding {
	return (&Input{L: &Layers{}, Service: se}).cause(IDServiceOOM)
}

func evalServiceOOM(in *Input) []finding.Outcome {
	se := in.Service
	if se == nil {
		return nil
	}
	var line string
	n := 0
	for _, l := range se.LastLog {
		for _, m := range oomMarks {
			if strings.Contains(l, m) {
				if line == "" {
					line = strings.TrimSpace(finding.SafeLine(l))
				}
				n++
				break
			}
		}
	}
	if n == 0 {
		return nil
	}
	if len(line) > maxLogLine {
		line = line[:maxLogLine] + "..."
	}
	return []finding.Outcome{{Status: finding.Fail, Confidence: 0.9, Subject: "heap",
		Observed: finding.Tf(finding.T("%d of its last %d lines report an OutOfMemoryError, first: %s",
			"最后 %[2]d 行中有 %[1]d 行报告 OutOfMemoryError，第一条：%[3]s"), n, len(se.LastLog), line),
		Evidence: []finding.Evidence{{Key: "oom_log_line", Value: line, Source: runfolder.ManifestFile + " service.last_log"},
			{Key: "oom_log_lines", Value: fmt.Sprintf("%d of %d", n, len(se.LastLog)), Source: runfolder.ManifestFile + " service.last_log"}}}}
}

// gcOutOfMemory is the GC log's own out-of-memory finding (ZGC's "Out Of
// Memory", JRockit's "Throwing OutOfMemory"), nil when it has none.
func gcOutOfMemory(L *Layers) *finding.Finding {
	if L.GC == nil {
		return nil
	}
	return find(L.GC.Findings, func(f *finding.Finding) bool { return f.ID == "gc.out-of-memory" })
}

// A GC log that ends in a burst of pauses (each within burstGap of the
// previous one's end) with at least minFullBurst full GCs, and full GCs at
// least half of the burst, shows a JVM collecting back to back.
const (
	burstGapS    = 1.0
	minFullBurst = 3
)

// gcAtEnd is a GC log ending in back-to-back full GCs (judged on its last
// gcLastKept pauses), nil when it does not.
func gcAtEnd(L *Layers) *finding.Finding { return one(IDServiceInGC, L) }

func evalServiceInGC(in *Input) []finding.Outcome {
	L := in.L
	p := L.GCLast
	if len(p) == 0 {
		return nil
	}
	first := len(p) - 1
	for first > 0 && p[first].UptimeS-(p[first-1].UptimeS+p[first-1].MS/1000) <= burstGapS {
		first--
	}
	burst := p[first:]
	full, ms := 0, 0.0
	for _, q := range burst {
		if q.Kind == "full" || q.Kind == "degenerated" {
			full++
		}
		ms += q.MS
	}
	if full < minFullBurst || 2*full < len(burst) {
		return nil
	}
	last := burst[len(burst)-1]
	spanMS := (last.UptimeS-burst[0].UptimeS)*1000 + last.MS
	share := 100.0
	if spanMS > 0 {
		share = min(100, 100*ms/spanMS)
	}
	src := GCLogGlob
	if len(L.GCFiles) == 1 {
		src = "raw/" + filepath.Base(L.GCFiles[0])
	}
	return []finding.Outcome{{Status: finding.Fail, Confidence: 0.8, Subject: "gc",
		Observed: finding.Tf(finding.T("the last %d pauses came back to back over %.0f ms (%.0f%% of that time paused), %d of them full GCs, the last at %.1f s of the JVM's uptime",
			"最后 %d 次停顿背靠背发生在 %.0f ms 内（%.0f%% 的时间处于停顿），其中 %d 次是 Full GC，最后一次在 JVM 启动后第 %.1f 秒"),
			len(burst), spanMS, share, full, last.UptimeS),
		Evidence: []finding.Evidence{{Key: "full_gcs_at_end", Value: fmt.Sprintf("%d of %d pauses", full, len(burst)), Source: src},
			{Key: "paused_share_at_end_pct", Value: fmt.Sprintf("%.0f", share), Source: src},
			{Key: "last_pause_uptime_s", Value: fmt.Sprintf("%.3f", last.UptimeS), Source: src}}}}
}

// gcAtEndLine is the GC log's end as an evidence line, for a hung service
// whose cause is named elsewhere (its log's OutOfMemoryError).
func (e evidence) gcAtEndLine() (finding.Text, bool) {
	g := gcAtEnd(e.L)
	if g == nil {
		return finding.Text{}, false
	}
	return finding.Tf(finding.T("GC log: %s.", "GC 日志：%s。"), g.Observed), true
}
