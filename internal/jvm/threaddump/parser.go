package threaddump

// HotSpot text thread dumps: jstack, jstack -l -e, jcmd Thread.print, SIGQUIT
// (also inside an application log whose writer prefixes every line), JDK 6 to 25.
//
//	Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):
//	"main" #1 prio=5 os_prio=0 cpu=394.05ms elapsed=8.68s tid=0x00007f190c019a40 nid=0x4154 waiting on condition  [0x00007f19119de000]
//	"http-nio-8080-exec-1" #26 [18445] prio=5 os_prio=0 cpu=45.06ms elapsed=6.42s allocated=975K defined_classes=0 tid=0x00007ff94c0bc6e0 nid=18445 waiting for monitor entry  [0x00007ff951721000]
//	   java.lang.Thread.State: BLOCKED (on object monitor)
//		- waiting to lock <0x00000000f01df578> (a java.lang.Object)
//
// Also ThreadInfo.toString() as applications log it, the JMX style some tools
// write (TDA's test logs), and jcmd Thread.dump_to_file's plain text:
//
//	"order-worker-0" daemon prio=5 Id=13 BLOCKED on java.lang.Object@79efed2d owned by "inventory-holder" Id=12
//	"RMI TCP Connection(23)-127.0.1.1" id=3149 in RUNNABLE (running in native)
//	#24 "spinner-0" virtual RUNNABLE 2026-11-22T00:05:27.800142146Z

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// maxLine caps one line; the rest of a longer line is dropped, so a hostile
// file cannot make the parser hold more than this per line.
const maxLine = 64 << 10

// maxTextThreads bounds the threads one text dump keeps (as javacores').
const maxTextThreads = maxJavacoreThreads

// ErrNotThreadDump is wrapped by the error returned for input holding no dump.
var ErrNotThreadDump = finding.Errorf(finding.T("not a thread dump", "不是线程转储"))

// ParseText reads every dump in r (several dumps in one file are returned in order).
func ParseText(r io.Reader) ([]*Dump, error) {
	var out []*Dump
	err := ParseTextFunc(r, func(d *Dump) error { out = append(out, d); return nil })
	return out, err
}

// ParseTextFunc streams: fn is called with each dump as soon as it ends, so a
// long log with many dumps is analysed in flat memory. An error from fn stops parsing.
func ParseTextFunc(r io.Reader, fn func(*Dump) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(8 << 10); isJavacore(head) {
		return parseJavacore(br, fn)
	}
	p := newTextParser(br, fn)
	return p.run()
}

type section int

const (
	secNone       section = iota
	secThread             // inside a thread entry
	secOwnable            // after "Locked ownable synchronizers:"
	secDeadlock           // "Found one Java-level deadlock:" block
	secDeadStacks         // "Java stack information for the threads listed above:"
	secTrailer            // after JNI refs / Heap / <EndOfDump>
)

type textParser struct {
	br     *bufio.Reader
	fn     func(*Dump) error
	lineNo int
	long   []byte // assembles lines longer than the bufio buffer

	cur     *Dump
	t       *Thread
	sec     section
	mounted bool // after "Mounted virtual thread": frames belong to the VT
	emitted int

	prefix []byte // log prefix pattern, nil when lines are bare

	pendTime     string // a timestamp line just before a header
	pendTimeLine int
	pendPID      int64
	pendPIDLine  int
	pendISO      string // plain dump_to_file preamble
	pendISOLine  int
	pendVersion  string

	pendName     []byte // a header whose name contains newlines, so far
	pendNameLine int
	pendNameN    int

	dl *JVMDeadlock // deadlock being read

	hint finding.Text // what the input looks like when it is not a dump

	cut        bool   // the line just read was longer than maxLine and cut
	headerSeen bool   // the current dump began with "Full thread dump"
	format     Format // a dialect seen in a header (VisualVM, HP-UX), "" when plain HotSpot
	dropped    int    // records dropped before the dump they belong to started
	droppedWhy finding.Text

	tiHeader bool // the last header was ThreadInfo style (id= / Id=)

	frameCache map[string]Frame
	intern     map[string]string
	frames     []Frame // arena the threads' Frames are cut from
	frameStart int
	tDropped   bool // the current thread is past maxTextThreads: read, not kept
}

func newTextParser(r io.Reader, fn func(*Dump) error) *textParser {

	return &textParser{
		br:         bufio.NewReaderSize(r, 64<<10),
		fn:         fn,
		frameCache: make(map[string]Frame, 1024),
		intern:     make(map[string]string, 1024),
	}
}

// readLine returns the next line without its newline, valid until the next call.
func (p *textParser) readLine() ([]byte, error) {
	line, err := p.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		p.long = append(p.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = p.br.ReadSlice('\n')
			if room := maxLine - len(p.long); room > 0 {
				p.long = append(p.long, line[:min(len(line), room)]...)
			}
		}
		line = p.long
		p.cut = true // the rest of this line was dropped
	} else {
		p.cut = false
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	p.lineNo++
	line = bytes.TrimRight(line, "\r\n")
	return line, nil
}

func (p *textParser) run() error {
	for {
		raw, err := p.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			// Keep what was read, and say where reading stopped.
			if p.cur != nil {
				p.cur.Truncated = finding.Tf(finding.T("reading stopped at line %d: %v", "读取在第 %d 行停止：%v"), p.lineNo+1, finding.Localize(err, finding.EN))
			}
			if ferr := p.finishDump(); ferr != nil {
				return ferr
			}
			return fmt.Errorf("line %d: %w", p.lineNo+1, err)
		}
		if p.lineNo <= 8 && p.emitted == 0 && p.cur == nil && bytes.IndexByte(raw, 0) >= 0 {
			return &finding.Error{Msg: finding.Tf(finding.T("line %d: not a thread dump: binary data (NUL byte)", "第 %d 行：不是线程转储：二进制数据（NUL 字节）"), p.lineNo), Err: ErrNotThreadDump}
		}
		if p.hint.EN == "" && p.lineNo <= 500 && p.emitted == 0 && p.cur == nil {
			p.hint = formatHint(raw)
		}
		if err := p.line(raw); err != nil {
			return err
		}
	}
	// JDK 6+ end every dump with "JNI global refs" (or the deadlock report
	// after it); older ones printed nothing after the last thread.
	if p.cur != nil && p.headerSeen && p.sec != secTrailer && p.cur.Truncated.EN == "" && p.cur.JDKMajor() >= 6 {
		last := ""
		if n := len(p.cur.Threads); n > 0 {
			last = p.cur.Threads[n-1].Name
		}
		p.cur.Truncated = finding.Tf(finding.T("the input ends before the dump's closing line (JNI global refs): it may be cut short after thread %q",
			"输入在转储的结尾行（JNI global refs）之前结束：可能在线程 %q 之后被截断"), last)
	}
	if err := p.finishDump(); err != nil {
		return err
	}
	if p.emitted == 0 {
		if p.lineNo == 0 {
			return &finding.Error{Msg: finding.T("not a thread dump: empty", "不是线程转储：空文件"), Err: ErrNotThreadDump}
		}
		msg := finding.Tf(finding.T("not a thread dump: no 'Full thread dump' header or thread entries in %d lines", "不是线程转储：%d 行内没有 'Full thread dump' 头或线程条目"), p.lineNo)
		if p.hint.EN != "" {
			msg = finding.Tf(finding.T("%s (%s)", "%s（%s）"), msg, p.hint)
		}
		return &finding.Error{Msg: msg, Err: ErrNotThreadDump}
	}
	return nil
}

// formatHint names what a line that is not a thread dump looks like, so the
// error tells the user what they gave instead.
func formatHint(b []byte) finding.Text {
	switch {
	case bytes.Contains(b, []byte("1XMCURTHDINFO")) || bytes.Contains(b, []byte("3XMTHREADINFO")) || bytes.HasPrefix(b, []byte("0SECTION")):
		return finding.T("looks like an OpenJ9/IBM javacore", "看起来是 OpenJ9/IBM javacore")
	case bytes.Contains(b, []byte("][gc")) || bytes.Contains(b, []byte("[GC (")) || bytes.Contains(b, []byte("[Full GC")) || bytes.Contains(b, []byte(" GC(")):
		return finding.T("looks like a GC log: analyse it as a GC log", "看起来是 GC 日志：请按 GC 日志分析")
	case bytes.Contains(b, []byte("num     #instances")):
		return finding.T("looks like a class histogram (jmap -histo / GC.class_histogram)", "看起来是类直方图（jmap -histo / GC.class_histogram）")
	case bytes.HasPrefix(b, []byte("Exception in thread")) || bytes.Contains(b, []byte("Caused by: ")):
		return finding.T("looks like an exception stack trace, not a dump of all threads", "看起来是异常堆栈，而不是所有线程的转储")
	}
	return finding.Text{}
}

var (
	bFullDump   = []byte("Full thread dump")
	bStateLine  = []byte("java.lang.Thread.State:")
	bOwnable    = []byte("Locked ownable synchronizers:")
	bOwnableOld = []byte("Locked synchronizers:")
	bNumLocked  = []byte("Number of locked synchronizers")
	bCarrying   = []byte("Carrying virtual thread #")
	bMounted    = []byte("Mounted virtual thread #")
	bFoundOne   = []byte("Found one Java-level deadlock")
	bStackInfo  = []byte("Java stack information for the threads listed above")
	bFoundN     = []byte("Found ")
	bJNI        = []byte("JNI global ref")
	bEndOfDump  = []byte("<EndOfDump>")
	bWaitLock   = []byte("waiting to lock monitor ")
	bWaitOwn    = []byte("waiting for ownable synchronizer ")
)

func (p *textParser) line(raw []byte) error {
	// A dump header may come with a new prefix (or none): learn it from this line.
	if i := bytes.Index(raw, bFullDump); i >= 0 && (i == 0 || raw[0] != '"') {
		pre := raw[:i]
		if p.prefix != nil {
			if n := matchPrefix(p.prefix, raw); n >= 0 && n == i {
				pre = p.prefix // same shape; keep the first-seen text
			}
		}
		if len(pre) == 0 || bytes.IndexByte(pre, '"') < 0 {
			return p.startDump(raw[i:], pre)
		}
	}
	s := raw
	if p.prefix != nil {
		if n := matchPrefix(p.prefix, raw); n >= 0 {
			s = raw[n:]
		}
	}
	body := trimLeft(s)
	if len(body) == 0 {
		return nil
	}
	if p.cut && body[0] == '"' {
		// A header too long to hold (a name of megabytes): the thread is left
		// out, and its frames must not be taken for the previous thread's.
		p.closeThread()
		p.pendName = nil
		p.drop(finding.Tf(finding.T("line %d: a thread header longer than %d KiB", "第 %d 行：线程头超过 %d KiB"), p.lineNo, maxLine>>10))
		return nil
	}

	// Names with newlines: the header continues on the following line(s).
	if p.pendName != nil {
		joined := append(append(p.pendName, '\n'), s...)
		if t := p.parseHeader(joined); t != nil {
			t.Line = p.pendNameLine
			p.pendName = nil
			return p.addThread(t)
		}
		p.pendNameN++
		if p.pendNameN > 8 || len(joined) > 4096 || body[0] == 'a' && bytes.HasPrefix(body, []byte("at ")) {
			p.pendName = nil
		} else {
			p.pendName = joined
			return nil
		}
	}

	switch {
	case s[0] == '"':
		return p.quoted(s)
	case s[0] == '#' && len(s) > 1 && isDigit(s[1]):
		// jcmd Thread.dump_to_file plain: #22 "name" virtual TIMED_WAITING 2026-...Z
		if t := p.parsePlainHeader(s); t != nil {
			return p.addThread(t)
		}
		return nil
	}

	switch p.sec {
	case secDeadlock:
		p.deadlockLine(body)
		return nil
	case secDeadStacks:
		if bytes.HasPrefix(body, bFoundOne) {
			p.startDeadlock()
		} else if bytes.HasPrefix(body, bFoundN) && bytes.Contains(body, []byte("deadlock")) {
			p.sec = secTrailer
		}
		return nil
	}

	switch body[0] {
	case 'a':
		if len(body) > 3 && body[1] == 't' && body[2] == ' ' && p.t != nil && (p.sec == secThread) {
			p.addFrame(body[3:])
			return nil
		}
	case '-':
		if p.t != nil && len(body) > 2 {
			p.lockLine(bytes.TrimLeft(body[1:], " "))
			return nil
		}
	case 'j':
		if bytes.HasPrefix(body, bStateLine) && p.t != nil {
			st, det := splitState(bytes.TrimLeft(body[len(bStateLine):], " "))
			p.t.State = parseState(st)
			if !p.visualVMState(det) {
				p.t.StateDetail = p.str(det)
			}
			return nil
		}
	case 'N':
		if p.t != nil && bytes.HasPrefix(body, bNumLocked) {
			p.sec = secOwnable // ThreadInfo.toString: Number of locked synchronizers = 1
			return nil
		}
	case 'L':
		if p.t != nil && (bytes.HasPrefix(body, bOwnable) || bytes.HasPrefix(body, bOwnableOld)) {
			p.sec = secOwnable
			p.cur.HasOwnable = true
			return nil
		}
	case 'C':
		if p.t != nil && bytes.HasPrefix(body, bCarrying) {
			p.t.Carrying = atoi64(body[len(bCarrying):])
			return nil
		}
	case 'M':
		if p.t != nil && bytes.HasPrefix(body, bMounted) {
			if p.t.Carrying == 0 {
				p.t.Carrying = atoi64(body[len(bMounted):])
			}
			p.closeFrames()
			p.mounted = true
			return nil
		}
	case 'F':
		if p.cur != nil && bytes.HasPrefix(body, bFoundOne) {
			p.startDeadlock()
			return nil
		}
	case 'J':
		if p.cur != nil && bytes.HasPrefix(body, bJNI) {
			p.endThreads()
			return nil
		}
	case '<':
		if bytes.HasPrefix(body, bEndOfDump) {
			p.endThreads()
			return nil
		}
	case 'H':
		if p.cur != nil && len(s) == 4 && string(s) == "Heap" {
			p.endThreads() // JDK 8 SIGQUIT appends the heap summary
			return nil
		}
	}
	if p.cur == nil || p.t == nil {
		p.noteContext(s)
	}
	return nil
}

// noteContext remembers a timestamp or jcmd "<pid>:" line that may precede a header.
func (p *textParser) noteContext(s []byte) {
	if n := len(s); n >= 19 && looksLikeTimestamp(s[n-19:]) {
		p.pendTime = string(s[n-19:])
		p.pendTimeLine = p.lineNo
		return
	}
	// jcmd's "<pid>:" line; the last word, as the log prefix is not known yet.
	w := s[bytes.LastIndexByte(s, ' ')+1:]
	if n := len(w); n >= 2 && w[n-1] == ':' && allDigits(w[:n-1]) {
		p.pendPID = atoi64(w[:n-1])
		p.pendPIDLine = p.lineNo
		return
	}
	// jcmd Thread.dump_to_file plain preamble: pid, ISO time, runtime version.
	switch {
	case allDigits(s) && len(s) < 12:
		p.pendPID = atoi64(s)
		p.pendPIDLine = p.lineNo
	case len(s) > 20 && len(s) < 40 && isoDate(s):
		p.pendISO = string(s)
		p.pendISOLine = p.lineNo
	case p.pendISOLine == p.lineNo-1 && len(s) < 40 && len(s) > 0 && isDigit(s[0]):
		p.pendVersion = string(s)
	}
}

func (p *textParser) startDump(header, prefix []byte) error {
	if err := p.finishDump(); err != nil {
		return err
	}
	d := &Dump{Format: FormatHotSpot, Line: p.lineNo}
	vm := bytes.TrimSpace(header[len(bFullDump):])
	vm = bytes.TrimSuffix(vm, []byte(":"))
	d.VM = string(bytes.TrimSpace(vm))
	if len(prefix) > 0 {
		if p.prefix == nil || matchPrefix(p.prefix, append(prefix[:len(prefix):len(prefix)], 'x')) != len(prefix) {
			p.prefix = bytes.Clone(prefix)
		}
		d.Prefix = string(p.prefix)
	} else {
		p.prefix = nil
	}
	if p.pendTimeLine == p.lineNo-1 && p.pendTimeLine > 0 {
		d.Time = p.pendTime
		d.Line = p.pendTimeLine
		if p.pendPIDLine == p.lineNo-2 && p.pendPIDLine > 0 {
			d.PID = p.pendPID
			d.Line = p.pendPIDLine
		}
	}
	p.cur = d
	p.sec = secNone
	p.headerSeen = true
	p.takeDropped()
	return nil
}

// drop counts a record left out (said with the dump it belongs to).
func (p *textParser) drop(why finding.Text) {
	if p.cur == nil {
		p.dropped++
		if p.droppedWhy.EN == "" {
			p.droppedWhy = why
		}
		return
	}
	p.cur.Dropped++
	if p.cur.DroppedWhy.EN == "" {
		p.cur.DroppedWhy = why
	}
}

func (p *textParser) takeDropped() {
	if p.dropped > 0 && p.cur != nil {
		p.cur.Dropped += p.dropped
		if p.cur.DroppedWhy.EN == "" {
			p.cur.DroppedWhy = p.droppedWhy
		}
		p.dropped, p.droppedWhy = 0, finding.Text{}
	}
}

// quoted handles a line that starts with a double quote: a thread header, a
// deadlock-section name ("name":) or the start of a name containing newlines.
func (p *textParser) quoted(s []byte) error {
	last := bytes.LastIndexByte(s, '"')
	if last > 0 && string(s[last:]) == "\":" {
		if p.sec == secDeadlock {
			p.deadlockLine(s)
		}
		// Deadlock stack section or a TDA-style "name": line: not a new thread.
		return nil
	}
	if p.sec == secDeadlock || p.sec == secDeadStacks {
		return nil
	}
	if t := p.parseHeader(s); t != nil {
		return p.addThread(t)
	}
	if last == 0 && len(s) < 4096 {
		p.pendName = append(p.pendName[:0], s...)
		p.pendNameLine = p.lineNo
		p.pendNameN = 0
	}
	return nil
}

func (p *textParser) addThread(t *Thread) error {
	p.closeThread()
	if p.cur == nil || p.sec == secTrailer {
		// Thread entries without a "Full thread dump" header (pasted
		// excerpts, headerless tools) or after a trailer start a dump.
		if err := p.finishDump(); err != nil {
			return err
		}
		d := &Dump{Format: FormatHotSpot, Line: t.Line}
		if p.tiHeader {
			d.Format = FormatThreadInfo
		}
		if p.prefix != nil {
			d.Prefix = string(p.prefix)
		}
		p.cur = d
		p.headerSeen = false
		p.takeDropped()
	}
	if p.format != "" && (p.cur.Format == FormatHotSpot || p.cur.Format == FormatThreadInfo) {
		p.cur.Format = p.format // VisualVM, HP-UX: known from the header's shape
	}
	if t.Line == 0 {
		t.Line = p.lineNo
	}
	if p.cur.Format == FormatHotSpot && p.tiHeader && len(p.cur.Threads) == 0 {
		p.cur.Format = FormatThreadInfo
	}
	// Past the bound (a dump listing millions of virtual threads), a thread
	// is read and let go: counted in Dropped, its frames not kept.
	p.tDropped = len(p.cur.Threads) >= maxTextThreads
	if p.tDropped {
		p.drop(finding.Tf(finding.T("more than %d threads", "线程多于 %d 个"), maxTextThreads))
	} else {
		p.cur.Threads = append(p.cur.Threads, t)
	}
	p.t = t
	p.sec = secThread
	p.mounted = false
	p.frameStart = len(p.frames)
	return nil
}

// closeFrames cuts the current thread's frames from the arena.
func (p *textParser) closeFrames() {
	if p.t == nil {
		return
	}
	if p.tDropped {
		p.frames = p.frames[:p.frameStart] // not kept: the arena is reused
		return
	}
	fr := p.frames[p.frameStart:len(p.frames):len(p.frames)]
	if len(fr) == 0 {
		fr = nil
	}
	if p.mounted {
		p.t.MountedFrames = fr
	} else {
		p.t.Frames = fr
	}
	p.frameStart = len(p.frames)
}

func (p *textParser) closeThread() {
	if p.t == nil {
		return
	}
	p.closeFrames()
	t := p.t
	if t.State == StateNone && t.Carrying != 0 {
		t.State = StateRunnable // JDK 25 carriers print no state: they run their virtual thread
	}
	if t.State == StateNone && (len(t.Frames) > 0 || t.ID > 0 && t.Priority > 0) {
		t.State = stateFromRaw(t.RawState) // JDK 5 had no java.lang.Thread.State line
		if t.State == StateWaiting && len(t.Frames) > 0 && t.Frames[0].Method == "java.lang.Thread.sleep" {
			t.State, t.StateDetail = StateTimedWaiting, "sleeping"
		}
	}
	p.t = nil
	p.mounted = false
}

func (p *textParser) endThreads() {
	p.closeThread()
	p.sec = secTrailer
}

func (p *textParser) finishDump() error {
	p.closeThread()
	p.finishDeadlock()
	d := p.cur
	p.cur = nil
	p.sec = secNone
	p.pendName = nil
	if d == nil || len(d.Threads) == 0 {
		return nil
	}
	resolveOwners(d)
	p.emitted++
	// The arena may be reused by the next dump only once this dump's slices
	// are detached: start a fresh one.
	p.frames = nil
	p.frameStart = 0
	return p.fn(d)
}

func (p *textParser) addFrame(b []byte) {
	f, ok := p.frameCache[string(b)]
	if !ok {
		key := string(b)
		if p.cur != nil && (p.cur.Format == FormatPlain || p.cur.Format == FormatThreadInfo || p.cur.Format == FormatVisualVM) {
			// Module first: java.base/java.lang.Thread.sleep(Thread.java:540)
			f = parseJSONFrame(key)
		} else {
			f = parseFrame(key) // Frame fields are substrings of key: one allocation per distinct frame
		}
		if len(p.frameCache) < 1<<17 {
			p.frameCache[key] = f
		}
	}
	if len(p.frames) == cap(p.frames) {
		// Grow the arena; carry the current thread's partial frames over.
		n := len(p.frames) - p.frameStart
		nf := make([]Frame, n, max(4096, 2*n))
		copy(nf, p.frames[p.frameStart:])
		p.frames = nf
		p.frameStart = 0
	}
	p.frames = append(p.frames, f)
}

// parseFrame reads "java.lang.Thread.sleep(java.base@17.0.15/Native Method)".
func parseFrame(s string) Frame {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		return Frame{Method: s}
	}
	f := Frame{Method: s[:i]}
	in := s[i+1:]
	if j := strings.LastIndexByte(in, ')'); j >= 0 {
		in = in[:j]
	}
	// The module/loader part ends at the last '/': "java.base@17/X.java:1", "app//X.java:1".
	if j := strings.LastIndexByte(in, '/'); j >= 0 {
		f.Module = trimRightSlash(in[:j])
		in = in[j+1:]
	}
	f.Source = in
	return f
}

func (p *textParser) currentFrame() int {
	n := len(p.frames) - p.frameStart
	return n - 1
}

// str interns short repeated strings (states, classes, lock addresses).
func (p *textParser) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := p.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.intern) < 1<<16 {
		p.intern[s] = s
	}
	return s
}

// matchPrefix reports how many bytes of line match the prefix pattern, or -1.
// Digits in the pattern match any run of digits, so the timestamps and
// counters a log writer puts in front of every line match.
func matchPrefix(pat, line []byte) int {
	i, j := 0, 0
	for i < len(pat) {
		if j >= len(line) {
			return -1
		}
		if isDigit(pat[i]) {
			if !isDigit(line[j]) {
				return -1
			}
			for i < len(pat) && isDigit(pat[i]) {
				i++
			}
			for j < len(line) && isDigit(line[j]) {
				j++
			}
			continue
		}
		if pat[i] != line[j] {
			return -1
		}
		i++
		j++
	}
	return j
}

func looksLikeTimestamp(b []byte) bool {
	// 2026-11-21 22:41:08
	const shape = "dddd-dd-dd dd:dd:dd"
	for i := 0; i < len(shape); i++ {
		if shape[i] == 'd' {
			if !isDigit(b[i]) {
				return false
			}
		} else if b[i] != shape[i] {
			return false
		}
	}
	return true
}

// isoDate: 2026-11-22T00:05:27.795498089Z
func isoDate(b []byte) bool {
	if len(b) < 11 || b[4] != '-' || b[7] != '-' || b[10] != 'T' {
		return false
	}
	return allDigits(b[0:4]) && allDigits(b[5:7]) && allDigits(b[8:10])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// atoi64 reads leading digits; overflow saturates instead of wrapping.
func atoi64(b []byte) int64 {
	var n int64
	for _, c := range b {
		if !isDigit(c) {
			break
		}
		if n > (1<<62)/10 {
			return 1 << 62
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func trimRightSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
