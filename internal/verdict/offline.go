package verdict

import (
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// Offline is what a user who has only files brings to `analyze`: a set of
// thread dumps, a GC log's analysis, a JFR recording (any may be nil).
type Offline struct {
	Dumps *threaddump.Set
	GC    *gclog.Report
	JFR   []byte
}

// OfflineEvidence builds the mechanism catalogue's evidence from loose
// files, the same way a run folder's layers are read: the same catalogue
// then names the same mechanism. There is no host series: saturation is
// unknown, so no queue is read as the CPU's symptom.
func OfflineEvidence(o Offline) *mechanism.Evidence {
	L := &Layers{GC: o.GC}
	if o.Dumps != nil {
		L.DumpSet, L.Dumps, L.Reports = o.Dumps, o.Dumps.Dumps, o.Dumps.Reports
	}
	if len(o.JFR) > 0 {
		if ss, rd, _ := jfrSlices(o.JFR); len(ss) > 0 {
			L.Threads, L.ThreadRead = ss, rd
		}
	}
	return Evidence(L)
}

// NameOffline is the catalogue's findings over loose files, best first:
// each mechanism whose signature holds, the first the one an engineer
// would name (Name's ranking).
func NameOffline(o Offline) []finding.Finding {
	ns := mechanism.Name(OfflineEvidence(o))
	out := make([]finding.Finding, 0, len(ns))
	for i, n := range ns {
		f := n.Finding
		if i == 0 {
			f.Title = finding.Text{EN: "Mechanism: " + f.Title.EN, ZH: "机制：" + f.Title.ZH}
		} else {
			// Ranked behind the first: said, at info level, so a list
			// sorted by severity still puts the named one first.
			f.Severity = finding.Info
			f.Title = finding.Tf(finding.T("Also matched, ranked lower: %s", "同样匹配但排名较后：%s"), f.Title)
		}
		out = append(out, f)
	}
	return out
}
