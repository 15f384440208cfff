package verdict

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
)

// Link demotes symptoms when their cause was found, saying which, so the
// cause ranks first and the symptom points at it: hot CPU <- softirq
// concentration or a serial thread; run queue and context switches <- CPU
// saturation; softirq- or steal-bound saturation <- softirq concentration
// or steal; iowait <- a saturated disk or memory pressure; system-wide NUMA
// misses <- the target's remote memory.
func Link(fs []finding.Finding) {
	by := map[string]*finding.Finding{}
	for i := range fs {
		if fs[i].Status == finding.Fail {
			by[fs[i].ID] = &fs[i]
		}
	}
	demote := func(symptom, cause string, same func(s, c *finding.Finding) bool) {
		s, c := by[symptom], by[cause]
		if s == nil || c == nil || (same != nil && !same(s, c)) {
			return
		}
		s.Severity = finding.Info
		s.Confidence = min(s.Confidence, c.Confidence*0.5)
		note := finding.Tf(finding.T("Symptom of %s (%s): fix that first.", "这是 %s（%s）的表象：先处理它。"), c.ID, c.Subject)
		s.Observed = finding.Text{EN: s.Observed.EN + " " + note.EN, ZH: s.Observed.ZH + " " + note.ZH}
		s.Evidence = append(s.Evidence, finding.Evidence{Key: "caused_by", Value: c.Key()})
	}
	sameCPU := func(s, c *finding.Finding) bool {
		return c.Subject == s.Subject || strings.HasSuffix(c.Subject, "/"+s.Subject)
	}
	demote(diagnose.IDHotCPU, diagnose.IDSoftirqConcentrated, sameCPU)
	if c := by[diagnose.IDSoftirqConcentrated]; c != nil {
		if s := by[diagnose.IDCPUSaturated]; s != nil && strings.Contains(s.Title.EN, "softirq/irq-bound") {
			demote(diagnose.IDCPUSaturated, diagnose.IDSoftirqConcentrated, nil)
		}
	}
	if s := by[diagnose.IDCPUSaturated]; s != nil && strings.Contains(s.Title.EN, "steal-bound") {
		demote(diagnose.IDCPUSaturated, diagnose.IDSteal, nil)
	}
	demote(diagnose.IDNUMARemote, diagnose.IDNUMATarget, nil)
	demote(diagnose.IDRunQueue, diagnose.IDCPUSaturated, nil)
	demote(diagnose.IDCtxSwitch, diagnose.IDCPUSaturated, nil)
	demote(diagnose.IDHotCPU, diagnose.IDSerialThread, nil)
	demote(diagnose.IDIowait, diagnose.IDDiskSaturated, nil)
	demote(diagnose.IDIowait, diagnose.IDMemPressure, nil)
	// A serial thread while the host is saturated: the target's other
	// threads are idle, so the thread is its bottleneck and the saturation
	// (other processes, or this thread) is the context: rank the thread first.
	if s, c := by[diagnose.IDSerialThread], by[diagnose.IDCPUSaturated]; s != nil && c != nil {
		c.Confidence = min(c.Confidence, s.Confidence-0.05)
		c.Evidence = append(c.Evidence, finding.Evidence{Key: "see_also", Value: s.Key()})
	}
	if by[diagnose.IDSerialThread] != nil && by[diagnose.IDIdleUnderLoad] != nil {
		demote(diagnose.IDIdleUnderLoad, diagnose.IDSerialThread, nil)
	}
}
