package gclog

// Telling JVMs apart. Files given together are one JVM's rotated parts
// (gc.log, gc.log.0 ... or JDK 8's gc.log.0 ... gc.log.N.current) unless
// something in them says otherwise:
//
//	[0.004s][info][gc] Using G1                  vs  [0.005s][info][gc] Using Parallel     collector
//	[2026-11-21T23:55:52.111+0000][2.1s] ...     vs  [2026-11-22T08:01:00.000+0000][2.0s]  JVM start (time - uptime)
//	[...][6662][6670][info][gc] ...              vs  [...][7001][7010][info][gc] ...       pid (pid and tid decorators)
//	gc-pid6662.log                               vs  gc-pid7001.log                        pid in the name (-Xloggc:gc-%p.log)
//	Heap Max Capacity: 128M / -XX:MaxHeapSize    vs  a different one                        heap size
//	uptime 0.004-3.3 s                           vs  uptime 0.005-3.5 s                     overlapping uptimes (two starts)

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// fileID is what one file says about the JVM that wrote it.
type fileID struct {
	src         Source
	collector   Collector
	start       time.Time // JVM start on the wall clock; zero if unknown
	pid         int64     // 0 if unknown
	heapKB      int64     // max heap; 0 if unknown
	first, last float64   // uptime range; valid when uptime
	uptime      bool
}

// startSlack: wall time minus uptime of one JVM varies by the rounding of
// both decorators (milliseconds) and clock adjustments; two JVMs started
// by a script within a second of each other are still told apart by pid,
// collector or overlapping uptimes.
const startSlack = time.Second

// overlapSlack: rotated parts of one JVM cover disjoint uptimes; a line
// finishing an event may carry a time a little before the next file's first.
const overlapSlack = 0.5

var pidInName = regexp.MustCompile(`pid(\d+)`)

// conflict names the first attribute in which a and b differ (EN and ZH),
// empty when they can be one JVM.
func (a *fileID) conflict(b *fileID) finding.Text {
	switch {
	case a.pid != 0 && b.pid != 0 && a.pid != b.pid:
		return finding.T("pid", "进程号")
	case a.collector != CollectorUnknown && b.collector != CollectorUnknown && a.collector != b.collector &&
		!(a.collector == ZGC && b.collector == ZGCGenerational || a.collector == ZGCGenerational && b.collector == ZGC):
		return finding.T("collector", "收集器")
	case !a.start.IsZero() && !b.start.IsZero() && absDur(a.start.Sub(b.start)) > startSlack:
		return finding.T("JVM start time", "JVM 启动时间")
	case a.heapKB > 0 && b.heapKB > 0 && a.heapKB != b.heapKB:
		return finding.T("heap size", "堆大小")
	case a.uptime && b.uptime && max(a.first, b.first) < min(a.last, b.last)-overlapSlack:
		return finding.T("overlapping uptimes", "运行时间重叠（各自独立启动）")
	}
	return finding.Text{}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func (a *fileID) describe() string {
	var p []string
	if a.collector != CollectorUnknown {
		p = append(p, a.collector.String())
	}
	if a.pid != 0 {
		p = append(p, "pid "+strconv.FormatInt(a.pid, 10))
	}
	if !a.start.IsZero() {
		p = append(p, "started "+a.start.UTC().Format("2006-01-02 15:04:05Z"))
	}
	if a.heapKB > 0 {
		p = append(p, mb(float64(a.heapKB))+" heap")
	}
	if a.uptime {
		p = append(p, fmt.Sprintf("uptime %.1f-%.1f s", a.first, a.last))
	}
	if len(p) == 0 {
		return a.src.Name
	}
	return a.src.Name + " (" + strings.Join(p, ", ") + ")"
}

// jvmSet is the files of one JVM, in the order given.
type jvmSet struct {
	files []*fileID
	why   finding.Text // how it differs from the first set (empty for the first)
}

func (s *jvmSet) srcs() []Source {
	out := make([]Source, len(s.files))
	for i, f := range s.files {
		out[i] = f.src
	}
	return out
}

func (s *jvmSet) names() string {
	n := make([]string, len(s.files))
	for i, f := range s.files {
		n[i] = f.src.Name
	}
	return strings.Join(n, ", ")
}

// identify reads each file once (bounded, cancellable) for its identity.
func identify(ctx context.Context, src Source) (*fileID, error) {
	rc, err := src.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	defer rc.Close()
	st, err := ParseContext(ctx, rc, src.Name, DefaultLimits(), nil)
	if err != nil {
		return nil, err
	}
	id := &fileID{src: src, collector: st.Collector, start: st.JVMStart, pid: st.PID, heapKB: st.MaxHeapKB,
		first: st.FirstTime, last: st.LastTime, uptime: st.HasTime && st.Uptime}
	if id.pid == 0 {
		if m := pidInName.FindStringSubmatch(filepath.Base(src.Name)); m != nil {
			id.pid, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	return id, nil
}

// groupByJVM puts each file into the first set it does not conflict with.
func groupByJVM(ctx context.Context, srcs []Source) ([]*jvmSet, error) {
	var sets []*jvmSet
	for _, src := range srcs {
		id, err := identify(ctx, src)
		if err != nil {
			return nil, err
		}
		placed := false
		var why finding.Text
		for _, s := range sets {
			var c finding.Text
			for _, f := range s.files {
				if c = id.conflict(f); c.EN != "" {
					break
				}
			}
			if c.EN == "" {
				s.files = append(s.files, id)
				placed = true
				break
			}
			if why.EN == "" {
				why = c
			}
		}
		if !placed {
			sets = append(sets, &jvmSet{files: []*fileID{id}, why: why})
		}
	}
	return sets, nil
}

// MixedJVMsError is returned by Analyze for files of different JVMs, whose
// blend would be one analysis of no JVM. Text is the bilingual message.
type MixedJVMsError struct {
	Sets [][]string // file names per JVM
	Text finding.Text
}

func (e *MixedJVMsError) Error() string { return e.Text.EN }

func mixedError(sets []*jvmSet) *MixedJVMsError {
	e := &MixedJVMsError{}
	var en, zh []string
	for i, s := range sets {
		var names []string
		var desc []string
		for _, f := range s.files {
			names = append(names, f.src.Name)
			desc = append(desc, f.describe())
		}
		e.Sets = append(e.Sets, names)
		d := strings.Join(desc, "; ")
		if i == 0 {
			en = append(en, fmt.Sprintf("JVM 1: %s", d))
			zh = append(zh, fmt.Sprintf("JVM 1：%s", d))
			continue
		}
		en = append(en, fmt.Sprintf("JVM %d: %s (differs in %s)", i+1, d, s.why.EN))
		zh = append(zh, fmt.Sprintf("JVM %d：%s（%s不同）", i+1, d, s.why.ZH))
	}
	e.Text = finding.T(
		fmt.Sprintf("these GC logs come from %d different JVMs and would blend into one meaningless analysis: %s; analyse each JVM's files on their own", len(sets), strings.Join(en, "; ")),
		fmt.Sprintf("这些 GC 日志来自 %d 个不同的 JVM，合并分析将毫无意义：%s；请分别分析每个 JVM 的文件", len(sets), strings.Join(zh, "；")))
	return e
}

// separateFinding tells the reader of one JVM's report that the files given
// were split, and which other files are another JVM (rule gc.separate-jvms).
func separateFinding(set *jvmSet, all []*jvmSet) []finding.Finding {
	var others []string
	for _, s := range all {
		if s != set {
			others = append(others, s.names())
		}
	}
	return finding.Evaluate(groupingRules(), &Input{Subject: set.names(), Separate: &Separation{Others: others}})
}
