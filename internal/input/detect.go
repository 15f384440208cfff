package input

// Detection by content, whatever the file is called:
//
//	Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing):   -> hotspot
//	"http-nio-8080-exec-1" - Thread t@42                                          -> visualvm
//	"main" prio=10 tid=000000000046a600 nid=1 lwp_id=4128946 waiting on condition -> hpux
//	0SECTION       TITLE subcomponent dump routine                                -> javacore
//	{ "threadDump": { "processId": "1234", ...                                    -> hotspot-json
//	[0.002s][info][gc] Using G1 / 2.167: [GC (Allocation Failure) ...             -> gclog
//	<verbosegc xmlns="http://www.ibm.com/j9/verbosegc" version="...">             -> openj9-gc
//	[memory ] 0.457-0.458: GC 1048576K->1040K (1048576K), 0.928 ms                -> jrockit-gc
//	<configuration> ... ch.qos.logback ...                                        -> logconf
//	FLR\0 ...                                                                     -> jfr
//	[main tid=1];java/lang/Thread.run_[j];com/acme/Svc.handle_[j] 42               -> collapsed

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/logconf"
)

// Format names what an input holds.
type Format string

// The formats Detect tells apart. Kind says which reader takes each.
const (
	Unknown     Format = "unknown" // text of no known format
	Empty       Format = "empty"
	Binary      Format = "binary"
	HotSpot     Format = "hotspot" // jstack, jcmd Thread.print, SIGQUIT (also inside logs), ThreadInfo, dump_to_file plain
	HotSpotJSON Format = "hotspot-json"
	VisualVM    Format = "visualvm" // VisualVM / JMX remote: "name" - Thread t@332
	HPUX        Format = "hpux"     // HP-UX JDK: tid= without 0x, lwp_id=
	Javacore    Format = "javacore" // OpenJ9 / IBM J9 javacore
	GCLog       Format = "gclog"    // HotSpot GC logs (JDK 8 and unified), and what gclog.Detect knows
	OpenJ9GC    Format = "openj9-gc"
	JRockitGC   Format = "jrockit-gc"
	LogConfig   Format = "logconf" // log4j 1/2, logback configurations
	JFR         Format = "jfr"
	Collapsed   Format = "collapsed" // async-profiler / FlameGraph collapsed stacks
	HeapDump    Format = "hprof"
	HsErr       Format = "hs_err" // a JVM crash log
	Histogram   Format = "histogram"
)

// Kind is which reader takes a format.
type Kind int

const (
	KindNone       Kind = iota // nothing reads it: the command says what it is
	KindThreadDump             // threaddump.Parse
	KindGCLog                  // gclog
	KindLogConfig              // logconf
	KindProfile                // stacks: a JFR recording or collapsed stacks
)

type formatInfo struct {
	kind  Kind
	label finding.Text
}

type formatEntry struct {
	f Format
	formatInfo
}

// formats lists every Format with its reader and what it is called; the
// order is the order of `--format` in the help.
func formats() []formatEntry {
	return []formatEntry{
		{HotSpot, formatInfo{KindThreadDump, finding.T("a HotSpot thread dump", "HotSpot 线程转储")}},
		{HotSpotJSON, formatInfo{KindThreadDump, finding.T("a HotSpot JSON thread dump", "HotSpot JSON 线程转储")}},
		{VisualVM, formatInfo{KindThreadDump, finding.T("a VisualVM/JMX thread dump", "VisualVM/JMX 线程转储")}},
		{HPUX, formatInfo{KindThreadDump, finding.T("an HP-UX JDK thread dump", "HP-UX JDK 线程转储")}},
		{Javacore, formatInfo{KindThreadDump, finding.T("an OpenJ9/IBM javacore", "OpenJ9/IBM javacore")}},
		{GCLog, formatInfo{KindGCLog, finding.T("a GC log", "GC 日志")}},
		{LogConfig, formatInfo{KindLogConfig, finding.T("a logging configuration", "日志配置")}},
		{OpenJ9GC, formatInfo{KindNone, finding.T("an OpenJ9/IBM verbose GC log (XML): not supported yet", "OpenJ9/IBM verbose GC 日志（XML）：暂不支持")}},
		{JRockitGC, formatInfo{KindNone, finding.T("a JRockit GC log: not supported", "JRockit GC 日志：不支持")}},
		{JFR, formatInfo{KindProfile, finding.T("a JFR recording", "JFR 记录")}},
		{Collapsed, formatInfo{KindProfile, finding.T("collapsed stacks (async-profiler, FlameGraph)", "折叠调用栈（async-profiler、FlameGraph）")}},
		{HeapDump, formatInfo{KindNone, finding.T("a heap dump (HPROF): not analysed by tuneloop (open it with Eclipse MAT)", "堆转储（HPROF）：tuneloop 不分析（可用 Eclipse MAT 打开）")}},
		{HsErr, formatInfo{KindNone, finding.T("a JVM crash log (hs_err): not analysed by tuneloop", "JVM 崩溃日志（hs_err）：tuneloop 不分析")}},
		{Histogram, formatInfo{KindNone, finding.T("a class histogram (jmap -histo / GC.class_histogram): not analysed by tuneloop", "类直方图（jmap -histo / GC.class_histogram）：tuneloop 不分析")}},
		{Empty, formatInfo{KindNone, finding.T("empty", "空文件")}},
		{Binary, formatInfo{KindNone, finding.T("binary data, not text", "二进制数据，不是文本")}},
		{Unknown, formatInfo{KindNone, finding.T("text of no known format", "未知格式的文本")}},
	}
}

func (f Format) info() formatInfo {
	for _, x := range formats() {
		if x.f == f {
			return x.formatInfo
		}
	}
	return formatInfo{KindNone, finding.T("unknown", "未知")}
}

// Kind is the reader that takes f.
func (f Format) Kind() Kind { return f.info().kind }

// Label says what f is, for a message ("a JRockit GC log: not supported").
func (f Format) Label() finding.Text { return f.info().label }

// Forcible lists the formats `--format` accepts (those something reads).
func Forcible() []Format {
	var out []Format
	for _, x := range formats() {
		if x.kind != KindNone {
			out = append(out, x.f)
		}
	}
	return out
}

// ParseFormat reads a --format value; ok is false for a name not in Forcible.
func ParseFormat(s string) (Format, bool) {
	for _, f := range Forcible() {
		if string(f) == strings.ToLower(strings.TrimSpace(s)) {
			return f, true
		}
	}
	return "", false
}

// Describe says what a file of format f holds, with its first line when
// nothing knew it, so a refusal tells the user what they gave.
func Describe(f Format, head []byte) finding.Text {
	if f != Unknown {
		return f.Label()
	}
	line := firstLine(head)
	if line == "" {
		return f.Label()
	}
	return finding.Tf(finding.T("text of no known format (first line: %q)", "未知格式的文本（第一行：%q）"), line)
}

func firstLine(head []byte) string {
	for len(head) > 0 {
		var l []byte
		l, head, _ = bytes.Cut(head, []byte{'\n'})
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if len(l) > 80 {
			l = l[:80]
			for len(l) > 0 && !utf8.Valid(l) {
				l = l[:len(l)-1]
			}
		}
		return finding.SafeLine(string(l))
	}
	return ""
}

// detectLines is how many lines of the head are looked at line by line.
const detectLines = 5000

// Detect names the format of an input from its first bytes (Head); name
// only breaks ties between logging configurations.
func Detect(head []byte, name string) Format {
	body := bytes.TrimLeft(head, " \t\r\n\x00")
	if len(body) == 0 {
		if len(head) > 0 && bytes.IndexByte(head, 0) >= 0 {
			return Binary
		}
		return Empty
	}
	switch {
	case bytes.HasPrefix(head, []byte("FLR\x00")):
		return JFR
	case bytes.HasPrefix(head, []byte("JAVA PROFILE 1.0")):
		return HeapDump
	}
	if body[0] == '{' && bytes.Contains(body[:min(len(body), 4096)], []byte(`"threadDump"`)) {
		return HotSpotJSON
	}
	var (
		hotspot, visualvm, hpux, javacore, gc, j9gc, jrockit, hserr, histo bool
	)
	rest := head
	for n := 0; len(rest) > 0 && n < detectLines; n++ {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte{'\n'})
		t := bytes.TrimLeft(l, " \t\x00")
		if len(t) == 0 {
			continue
		}
		switch {
		case bytes.HasPrefix(t, []byte("[gcpause]")) || bytes.HasPrefix(t, []byte("[INFO ][gcpause]")):
			// JRockit -Xverbose:gcpause names the threads a GC held
			// (`Thread "x" id=22 idx=0x4c tid=20366 was in TLA-fetch ...`):
			// a GC log line, not a thread dump's header.
			jrockit = true
		case bytes.HasPrefix(t, []byte("0SECTION")) || bytes.HasPrefix(t, []byte("1XMTHDINFO")) || bytes.HasPrefix(t, []byte("3XMTHREADINFO")) || bytes.HasPrefix(t, []byte("1TISIGINFO")):
			javacore = true
		case bytes.Contains(t, []byte(`" - Thread t@`)):
			visualvm = true
		case bytes.Contains(t, []byte("Full thread dump")):
			hotspot = true
		case bytes.IndexByte(t, '"') >= 0 && isHPUXHeader(t):
			hpux = true
		case bytes.IndexByte(t, '"') >= 0 && isHotSpotHeader(t):
			hotspot = true
		case bytes.HasPrefix(t, []byte("<verbosegc")) || bytes.HasPrefix(t, []byte("<af type=")) || bytes.HasPrefix(t, []byte("<gc-start ")) || bytes.HasPrefix(t, []byte("<exclusive-start ")) || bytes.HasPrefix(t, []byte("<cycle-start ")):
			j9gc = true
		case bytes.Contains(t, []byte("[memory ]")) || bytes.Contains(t, []byte("[memory ][")):
			jrockit = true
		case bytes.HasPrefix(t, []byte("# A fatal error has been detected by the Java Runtime Environment")):
			hserr = true
		case bytes.HasPrefix(t, []byte("num     #instances")) || bytes.HasPrefix(t, []byte("num   #instances")):
			histo = true
		}
		if !gc && gclog.Detect(t) != gclog.FormatUnknown {
			gc = true
		}
		if javacore {
			break // a javacore quotes GC and thread lines of its own
		}
	}
	switch {
	case javacore:
		return Javacore
	case visualvm:
		return VisualVM
	case hpux:
		return HPUX
	case hotspot:
		return HotSpot
	case gc: // what gclog reads (it also knows OpenJ9 XML and JRockit)
		return GCLog
	case j9gc:
		return OpenJ9GC
	case jrockit:
		return JRockitGC
	case hserr:
		return HsErr
	case histo:
		return Histogram
	}
	if k, err := logconf.Detect(name, bytes.NewReader(head)); err == nil && k != logconf.KindUnknown {
		return LogConfig
	}
	if isCollapsed(head) {
		return Collapsed
	}
	if looksBinary(head) {
		return Binary
	}
	return Unknown
}

// isHotSpotHeader: a thread header of jstack/jcmd (`"x" #1 prio=5 ... tid=0x.. nid=..`),
// ThreadInfo.toString (`"x" Id=12 BLOCKED`), JMX style (`"x" id=3 in RUNNABLE`)
// or dump_to_file plain (`#22 "x" virtual WAITING`).
func isHotSpotHeader(t []byte) bool {
	if t[0] == '#' {
		i := 1
		for i < len(t) && isDigitB(t[i]) {
			i++
		}
		return i > 1 && i+1 < len(t) && t[i] == ' ' && t[i+1] == '"'
	}
	if t[0] != '"' {
		// A log prefix before the quote: only the strong shapes count.
		i := bytes.IndexByte(t, '"')
		t = t[i:]
	}
	last := bytes.LastIndexByte(t, '"')
	if last <= 0 {
		return false
	}
	rest := t[last+1:]
	switch {
	case bytes.Contains(rest, []byte(" prio=")) && (bytes.Contains(rest, []byte(" tid=")) || bytes.Contains(rest, []byte(" nid="))):
		return true
	case bytes.HasPrefix(rest, []byte(" #")) && bytes.Contains(rest, []byte(" nid=")):
		return true
	case hasIDWord(rest, " Id="):
		return true // ThreadInfo.toString
	case hasIDWord(rest, " id="):
		return bytes.Contains(rest, []byte(" in ")) // JMX style
	}
	return false
}

// isHPUXHeader: `"main" prio=10 tid=000000000046a600 nid=1 lwp_id=4128946 ...`.
func isHPUXHeader(t []byte) bool {
	i := bytes.Index(t, []byte(" tid="))
	if i < 0 {
		return false
	}
	if bytes.Contains(t, []byte(" lwp_id=")) {
		return true
	}
	v := t[i+5:]
	return !bytes.HasPrefix(v, []byte("0x")) && len(v) >= 8 && isHex(v[:8])
}

func hasIDWord(b []byte, w string) bool {
	i := bytes.Index(b, []byte(w))
	if i < 0 {
		return false
	}
	j := i + len(w)
	return j < len(b) && isDigitB(b[j])
}

func isDigitB(c byte) bool { return c >= '0' && c <= '9' }

func isHex(b []byte) bool {
	for _, c := range b {
		if !(isDigitB(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// looksBinary: a NUL byte, invalid UTF-8 or many control bytes early on.
func looksBinary(head []byte) bool {
	b := head[:min(len(head), 8192)]
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	ctl := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			ctl++
		}
	}
	if ctl*20 > len(b) {
		return true
	}
	bad := 0
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 && len(b) >= utf8.UTFMax {
			bad++
		}
		b = b[n:]
	}
	return bad*10 > len(head[:min(len(head), 8192)])
}
