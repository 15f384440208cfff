package verdict

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/mechanism"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/rules"
)

// IDProbeRefused marks a probe in the run folder that is not of the run's
// host: its figures are not cited.
const IDProbeRefused = "run.probe-other-host"

// loadProbe keeps the run folder's probe (probe.RunFile) when it is of the
// run's host (the manifest's hostname, kernel and CPU model, and machine ID
// when both know it).
func (L *Layers) loadProbe(b []byte) {
	r, err := probe.Decode(bytes.NewReader(b), probe.RunFile)
	if err != nil {
		L.problem(probe.RunFile, err)
		return
	}
	if ok, why := probe.SameHost(r.Host, probe.Identity(L.Folder.Manifest.Facts)); !ok {
		u := &Unused{File: probe.RunFile, Why: finding.Tf(finding.T("%s: %s", "%s：%s"), probe.RunFile, why)}
		L.Problems = append(L.Problems, verdictRules[IDProbeRefused].Evaluate(&Input{L: L, OtherHost: u})...)
		return
	}
	L.Probe = r
}

// fileFrames are the holder's frames that write or force a file (not a
// socket): the disk's latency is behind the lock's hold time.
var fileFrames = []string{"FileChannelImpl.", "FileDispatcherImpl.", "java.io.FileOutputStream.", "java.io.RandomAccessFile.",
	"java.io.FileDescriptor.sync", "MappedByteBuffer.force", "MappedMemoryUtils.force"}

// diskBound says whether the mechanism's threads wait on the disk: their
// own fsync, a lock whose holder was seen writing or forcing a file (more
// often than a socket) in the evidence's slices, or a logging appender's
// lock (its holder writes the log file).
func diskBound(ev *mechanism.Evidence, n *mechanism.Named) bool {
	switch id := n.Entry.ID; {
	case id == "mech.io.fsync":
		return true
	case id == "mech.lock.io-under-lock":
		if ev == nil {
			return false
		}
		file, sock := 0, 0
		for i := range ev.Slices {
			s := &ev.Slices[i]
			if s.Lock != n.Match.Lock || len(s.Holder) == 0 {
				continue
			}
			if slices.ContainsFunc(s.Holder, func(f mechanism.Frame) bool { return hasAny(f.Method, fileFrames) }) {
				file++
			} else if slices.ContainsFunc(s.Holder, func(f mechanism.Frame) bool { return hasAny(f.Method, socketFrames) }) {
				sock++
			}
		}
		return file > 0 && file >= sock
	case strings.HasPrefix(id, "mech.logging.") && id != "mech.logging.console" && id != "mech.logging.caller-data":
		return true
	}
	return false
}

var socketFrames = []string{"SocketDispatcher.", "NioSocketImpl.", "SocketInputStream.", "SocketOutputStream."}

func hasAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(x string) bool { return strings.Contains(s, x) })
}

// probeCost adds, when the verdict's mechanism waits on the disk and the
// run holds a probe of its host with the fsync figures, what the disk
// costs here and what that bounds: one lock lets at most 1/latency
// forced writes through per second.
func probeCost(L *Layers, ev *mechanism.Evidence, v *finding.Finding, n *mechanism.Named) {
	if L.Probe == nil || n == nil || !diskBound(ev, n) {
		return
	}
	med, p99 := L.Probe.Figure("disk.fsync"), L.Probe.Figure("disk.fsync_p99")
	if med == nil || med.Unit != "us" || len(med.Rounds) == 0 || !(med.Median > 0) {
		return
	}
	where := probeWhere(L)
	cite := []finding.Evidence{{Key: "probe disk.fsync", Value: figure(med), Source: where}}
	p99s := "?"
	if p99 != nil && p99.Unit == "us" && len(p99.Rounds) > 0 && p99.Median > 0 {
		cite = append(cite, finding.Evidence{Key: "probe disk.fsync_p99", Value: figure(p99), Source: where})
		p99s = fmt.Sprintf("%.4g", p99.Median/1000)
	}
	perSec := 1e6 / med.Median
	fs := L.Probe.DiskFS
	if fs == "" {
		fs = "?"
	}
	dir := finding.SafeLine(L.Probe.Dir)
	v.Observed = finding.Text{
		EN: v.Observed.EN + fmt.Sprintf("\nDisk (tuneloop probe of this host, %s on %s): an fsync takes %.4g ms median, %s ms at p99: one lock lets at most about %.0f forced writes through per second, however many threads wait.",
			dir, fs, med.Median/1000, p99s, perSec),
		ZH: v.Observed.ZH + fmt.Sprintf("\n磁盘（本机 tuneloop probe，%s，%s）：一次 fsync 中位数 %.4g ms，P99 %s ms：无论多少线程在等，一把锁每秒最多放行约 %.0f 次强制写盘。",
			dir, fs, med.Median/1000, p99s, perSec),
	}
	v.Evidence = append(slices.Clip(v.Evidence), cite...)
	v.Evidence = append(v.Evidence, finding.Evidence{Key: "fsync-bound writes per second under one lock", Value: fmt.Sprintf("%.0f (1 / %.4g ms)", perSec, med.Median/1000), Source: where})
}

// probeWhere names the probe: the run's copy, the folder it came from and
// when it was taken.
func probeWhere(L *Layers) string {
	s := probe.RunFile
	if L.Probe.Origin != "" {
		s += ", from " + finding.SafeLine(L.Probe.Origin)
	}
	return s + " (tuneloop probe, " + L.Probe.Start.UTC().Format(time.RFC3339) + ")"
}

func figure(f *probe.Figure) string {
	if f.Unit == "us" && f.Median >= 1000 {
		return rules.FigureString(f.Median/1000, f.Lo/1000, f.Hi/1000, "ms", len(f.Rounds), f.OK)
	}
	return rules.FigureString(f.Median, f.Lo, f.Hi, finding.SafeLine(f.Unit), len(f.Rounds), f.OK)
}
