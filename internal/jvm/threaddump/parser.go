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
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// maxLine caps one line; the rest of a longer line is dropped, so a hostile
// file cannot make the parser hold more than this per line.
const maxLine = 64 << 10

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
	p := newTextParser(r, fn)
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

	hint string // what the input looks like when it is not a dump

	tiHeader bool // the last header was ThreadInfo style (id= / Id=)

	frameCache map[string]Frame
	intern     map[string]string
	frames     []Frame // arena the threads' Frames are cut from
	frameStart int
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
			return fmt.Errorf("line %d: %w", p.lineNo+1, err)
		}
		if p.lineNo <= 8 && p.emitted == 0 && p.cur == nil && bytes.IndexByte(raw, 0) >= 0 {
			return fmt.Errorf("line %d: %w: binary data (NUL byte)", p.lineNo, ErrNotThreadDump)
		}
		if p.hint == "" && p.lineNo <= 500 && p.emitted == 0 && p.cur == nil {
			p.hint = formatHint(raw)
		}
		if err := p.line(raw); err != nil {
			return err
		}
	}
	if err := p.finishDump(); err != nil {
		return err
	}
	if p.emitted == 0 {
		hint := ""
		if p.hint != "" {
			hint = " (" + p.hint + ")"
		}
		return fmt.Errorf("%w: no 'Full thread dump' header or thread entries found in first %d lines%s", ErrNotThreadDump, p.lineNo, hint)
	}
	return nil
}

// formatHint names what a line that is not a thread dump looks like, so the
// error tells the user what they gave instead.
func formatHint(b []byte) string {
	switch {
	case bytes.Contains(b, []byte("1XMCURTHDINFO")) || bytes.Contains(b, []byte("3XMTHREADINFO")) || bytes.HasPrefix(b, []byte("0SECTION")):
		return "looks like an IBM/OpenJ9 javacore, which is not supported yet"
	case bytes.Contains(b, []byte(" - Thread t@")):
		return "looks like a VisualVM/NetBeans thread dump, which is not supported yet"
	case bytes.Contains(b, []byte("][gc")) || bytes.Contains(b, []byte("[GC (")) || bytes.Contains(b, []byte("[Full GC")) || bytes.Contains(b, []byte(" GC(")):
		return "looks like a GC log: analyse it as a GC log"
	case bytes.Contains(b, []byte("num     #instances")):
		return "looks like a class histogram (jmap -histo / GC.class_histogram)"
	case bytes.HasPrefix(b, []byte("Exception in thread")) || bytes.Contains(b, []byte("Caused by: ")):
		return "looks like an exception stack trace, not a dump of all threads"
	}
	return ""
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
			p.t.StateDetail = p.str(det)
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
	return nil
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
	}
	if t.Line == 0 {
		t.Line = p.lineNo
	}
	if p.cur.Format == FormatHotSpot && p.tiHeader && len(p.cur.Threads) == 0 {
		p.cur.Format = FormatThreadInfo
	}
	p.cur.Threads = append(p.cur.Threads, t)
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
		if p.cur != nil && (p.cur.Format == FormatPlain || p.cur.Format == FormatThreadInfo) {
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

var (
	lkLocked     = []byte("locked ")
	lkWaitLock   = []byte("waiting to lock ")
	lkReLock     = []byte("waiting to re-lock in wait() ")
	lkWaitOn     = []byte("waiting on ")
	lkPark       = []byte("parking to wait for ")
	lkEliminated = []byte("eliminated ")
	lkNone       = []byte("None")
	lkBlockedOn  = []byte("blocked on ")
)

func (p *textParser) lockLine(b []byte) {
	t := p.t
	if p.sec == secOwnable {
		if bytes.Equal(b, lkNone) {
			return
		}
		if ref, ok := p.lockRef(b, -1); ok {
			t.OwnableSynchronizers = append(t.OwnableSynchronizers, ref)
		} else if i := bytes.LastIndexByte(b, '@'); i > 0 {
			// JMX style: java.util.concurrent.locks.ReentrantLock$NonfairSync@166fba
			t.OwnableSynchronizers = append(t.OwnableSynchronizers, LockRef{Class: p.str(b[:i]), Addr: p.str(b), Frame: -1})
		}
		return
	}
	fi := p.currentFrame()
	var dst *[]LockRef
	var rest []byte
	switch {
	case bytes.HasPrefix(b, lkLocked):
		dst, rest = &t.Locked, b[len(lkLocked):]
	case bytes.HasPrefix(b, lkWaitLock):
		dst, rest = &t.WaitingToLock, b[len(lkWaitLock):]
	case bytes.HasPrefix(b, lkReLock):
		dst, rest = &t.WaitingToLock, b[len(lkReLock):]
	case bytes.HasPrefix(b, lkWaitOn):
		if p.tiHeader && (waitTarget(t) != nil || len(t.WaitingOn) > 0) {
			return // ThreadInfo.toString repeats the header's "on X" under the top frame
		}
		dst, rest = &t.WaitingOn, b[len(lkWaitOn):]
	case bytes.HasPrefix(b, lkBlockedOn):
		if waitTarget(t) != nil {
			return
		}
		dst, rest = &t.WaitingToLock, b[len(lkBlockedOn):]
	case bytes.HasPrefix(b, lkPark):
		dst, rest = &t.Parking, b[len(lkPark):]
	case bytes.HasPrefix(b, lkEliminated):
		dst, rest = &t.Locked, b[len(lkEliminated):]
	default:
		return
	}
	if ref, ok := p.lockRef(bytes.TrimLeft(rest, " "), fi); ok {
		*dst = append(*dst, ref)
	}
}

// lockRef reads "<0x00000000f01df578> (a java.lang.Object)" or "<java.lang.Object@670e6b45>".
func (p *textParser) lockRef(b []byte, frame int) (LockRef, bool) {
	if len(b) > 2 && b[0] != '<' && bytes.IndexByte(b, '@') > 0 && bytes.IndexByte(b, ' ') < 0 {
		// ThreadInfo.toString: java.lang.Object@7852e922
		return identityRef(p.str(b), frame), true
	}
	if len(b) < 2 || b[0] != '<' {
		return LockRef{}, false
	}
	end := bytes.IndexByte(b, '>')
	if end < 0 {
		return LockRef{}, false
	}
	addr := b[1:end]
	if bytes.HasPrefix(addr, []byte("no object reference")) {
		return LockRef{}, false
	}
	ref := LockRef{Addr: p.str(addr), Frame: frame}
	rest := b[end+1:]
	if i := bytes.Index(rest, []byte("(a ")); i >= 0 {
		c := rest[i+3:]
		if j := bytes.IndexByte(c, ')'); j >= 0 {
			c = c[:j]
		}
		ref.Class = p.str(c)
	} else if i := bytes.LastIndexByte(addr, '@'); i > 0 {
		ref.Class = p.str(addr[:i]) // JDK 25 plain dump_to_file: <java.lang.Object@670e6b45>
	}
	return ref, true
}

// parseHeader reads a thread header line; nil when s is not one.
func (p *textParser) parseHeader(s []byte) *Thread {
	if len(s) < 2 || s[0] != '"' {
		return nil
	}
	// ThreadInfo.toString quotes the lock owner too: `"a" Id=12 BLOCKED on X owned by "b" Id=13`.
	owner := ""
	if i := bytes.LastIndex(s, []byte(` owned by "`)); i > 0 {
		seg := s[:i]
		if j := bytes.LastIndexByte(seg, '"'); j > 0 && bytes.Contains(seg[j:], []byte(" Id=")) {
			rest := s[i+len(` owned by "`):]
			if k := bytes.LastIndex(rest, []byte(`" Id=`)); k >= 0 {
				owner = string(rest[:k])
			}
			s = seg
		}
	}
	// Fields after the name never contain a quote, so the name ends at the last one.
	last := bytes.LastIndexByte(s, '"')
	if last <= 0 {
		return nil
	}
	rest := s[last+1:]
	if len(rest) == 0 || rest[0] != ' ' {
		return nil
	}
	t := &Thread{Name: string(s[1:last]), CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1}
	if !p.headerFields(t, rest) {
		return nil
	}
	t.waitOwner = owner
	return t
}

// headerFields reads what follows the name; false when it has none of the
// fields every HotSpot header carries.
func (p *textParser) headerFields(t *Thread, rest []byte) bool {
	ok := false
	p.tiHeader = false
	var raw []byte // OS state text, accumulated word by word
	var bracketNid int64 = -1
	haveNid := false
	for len(rest) > 0 {
		rest = trimLeft(rest)
		if len(rest) == 0 {
			break
		}
		var w []byte
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			w, rest = rest[:i], rest[i+1:]
		} else {
			w, rest = rest, nil
		}
		switch {
		case w[0] == '#' && len(w) > 1 && isDigit(w[1]):
			t.ID = atoi64(w[1:])
			ok = true
		case w[0] == '[':
			if len(w) > 2 && w[1] == '0' && (w[2] == 'x' || w[2] == 'X') {
				rest = nil // last Java SP: end of header
				continue
			}
			if w[len(w)-1] == ']' && allDigits(w[1:len(w)-1]) {
				bracketNid = atoi64(w[1 : len(w)-1])
			}
		case string(w) == "daemon":
			t.Daemon = true
		case string(w) == "virtual":
			t.Virtual = true
		case bytes.HasPrefix(w, []byte("prio=")):
			t.Priority = int(atoi64(w[5:]))
			ok = true
		case bytes.HasPrefix(w, []byte("os_prio=")):
			t.OSPrio = int(atoi64(w[8:]))
			ok = true
		case bytes.HasPrefix(w, []byte("cpu=")):
			t.CPUMillis = parseUnitFloat(w[4:], "ms")
		case bytes.HasPrefix(w, []byte("elapsed=")):
			t.ElapsedSec = parseUnitFloat(w[8:], "s")
		case bytes.HasPrefix(w, []byte("allocated=")):
			t.AllocatedBytes = parseBytes(w[10:])
		case bytes.HasPrefix(w, []byte("defined_classes=")):
		case bytes.HasPrefix(w, []byte("tid=")):
			ok = true
		case bytes.HasPrefix(w, []byte("nid=")):
			t.NativeID, haveNid = parseNid(w[4:])
			ok = true
		case bytes.HasPrefix(w, []byte("id=")) && allDigits(w[3:]):
			// JMX ThreadInfo style (TDA): id=3149 in RUNNABLE (running in native)
			t.ID = atoi64(w[3:])
			ok = true
			p.tiHeader = true
			if bytes.HasPrefix(rest, []byte("in ")) {
				st, det := splitState(rest[3:])
				t.State = parseState(st)
				t.StateDetail = p.str(det)
				rest = nil
			}
		case bytes.HasPrefix(w, []byte("Id=")) && allDigits(w[3:]):
			// ThreadInfo.toString: Id=12 BLOCKED on java.lang.Object@6d06d69c (in native)
			t.ID = atoi64(w[3:])
			ok = true
			p.tiHeader = true
			f := bytes.Fields(rest)
			rest = nil
			if len(f) > 0 {
				t.State = parseState(string(f[0]))
			}
			if len(f) > 2 && string(f[1]) == "on" {
				ref := identityRef(p.str(f[2]), 0)
				switch {
				case t.State == StateBlocked:
					t.WaitingToLock = append(t.WaitingToLock, ref)
				case lockish(ref.Class) || strings.Contains(ref.Class, "ConditionObject"):
					t.Parking = append(t.Parking, ref)
				default:
					t.WaitingOn = append(t.WaitingOn, ref)
				}
			}
		default:
			if ok {
				if len(raw) > 0 {
					raw = append(raw, ' ')
				}
				raw = append(raw, w...)
			}
		}
	}
	if !haveNid && bracketNid >= 0 {
		t.NativeID = bracketNid
	}
	if len(raw) > 0 {
		t.RawState = p.str(raw)
	}
	return ok
}

// parsePlainHeader reads jcmd Thread.dump_to_file plain headers:
// `#22 "" virtual TIMED_WAITING 2026-11-21T23:57:16.0Z`.
func (p *textParser) parsePlainHeader(s []byte) *Thread {
	sp := bytes.IndexByte(s, ' ')
	if sp < 0 || sp+1 >= len(s) || s[sp+1] != '"' {
		return nil
	}
	last := bytes.LastIndexByte(s, '"')
	if last <= sp+1 {
		return nil
	}
	t := &Thread{ID: atoi64(s[1:sp]), Name: string(s[sp+2 : last]), CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1}
	for _, w := range bytes.Fields(s[last+1:]) {
		if string(w) == "virtual" {
			t.Virtual = true
		} else if st := parseState(string(w)); st != StateNone {
			t.State = st
		}
	}
	if p.cur == nil {
		d := &Dump{Format: FormatPlain, Line: p.lineNo}
		if p.pendISOLine > 0 && p.lineNo-p.pendISOLine <= 3 {
			d.Time = p.pendISO
			d.Line = p.pendISOLine
			if p.pendVersion != "" {
				d.VM = "(" + p.pendVersion + ")"
			}
			if p.pendPIDLine == p.pendISOLine-1 {
				d.PID = p.pendPID
				d.Line = p.pendPIDLine
			}
		}
		p.cur = d
	}
	return t
}

func (p *textParser) startDeadlock() {
	p.closeThread()
	p.finishDeadlock()
	p.dl = &JVMDeadlock{}
	p.sec = secDeadlock
}

func (p *textParser) deadlockLine(b []byte) {
	switch {
	case b[0] == '"':
		if last := bytes.LastIndexByte(b, '"'); last > 0 && len(b) == last+2 && b[last+1] == ':' {
			p.dl.Threads = append(p.dl.Threads, string(b[1:last]))
		}
	case bytes.HasPrefix(b, bWaitLock):
		// waiting to lock monitor 0x00007f18dc012ce0 (object 0x00000000f01deeb8, a java.lang.Object),
		ref := LockRef{Frame: -1}
		if i := bytes.Index(b, []byte("(object ")); i >= 0 {
			o := b[i+8:]
			if j := bytes.IndexByte(o, ','); j >= 0 {
				ref.Addr = p.str(o[:j])
				c := bytes.TrimPrefix(bytes.TrimSpace(o[j+1:]), []byte("a "))
				ref.Class = p.str(bytes.TrimRight(c, "),"))
			}
		}
		p.dlLock(ref)
	case bytes.HasPrefix(b, bWaitOwn):
		// waiting for ownable synchronizer 0x00000000f01df148, (a java.util.concurrent.locks.ReentrantLock$NonfairSync),
		o := b[len(bWaitOwn):]
		ref := LockRef{Frame: -1}
		if j := bytes.IndexByte(o, ','); j >= 0 {
			ref.Addr = p.str(o[:j])
			c := bytes.TrimSpace(o[j+1:])
			c = bytes.TrimPrefix(c, []byte("(a "))
			ref.Class = p.str(bytes.TrimRight(c, "),"))
		}
		p.dlLock(ref)
	case bytes.HasPrefix(b, bStackInfo):
		p.finishDeadlock()
		p.sec = secDeadStacks
	case bytes.HasPrefix(b, bFoundN) && bytes.Contains(b, []byte("deadlock")):
		p.finishDeadlock()
		p.sec = secTrailer
	}
}

func (p *textParser) dlLock(ref LockRef) {
	if p.dl != nil && len(p.dl.Locks) < len(p.dl.Threads) {
		p.dl.Locks = append(p.dl.Locks, ref)
	}
}

func (p *textParser) finishDeadlock() {
	if p.dl != nil && len(p.dl.Threads) > 0 && p.cur != nil {
		p.cur.JVMDeadlocks = append(p.cur.JVMDeadlocks, *p.dl)
	}
	p.dl = nil
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

// splitState splits "BLOCKED (on object monitor)" into state and detail.
func splitState(b []byte) (string, []byte) {
	b = bytes.TrimSpace(b)
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		det := bytes.TrimSpace(b[i+1:])
		det = bytes.TrimPrefix(det, []byte("("))
		det = bytes.TrimSuffix(det, []byte(")"))
		return stateName(b[:i]), det
	}
	return stateName(b), nil
}

func stateName(b []byte) string {
	switch string(b) {
	case "RUNNABLE":
		return "RUNNABLE"
	case "BLOCKED":
		return "BLOCKED"
	case "WAITING":
		return "WAITING"
	case "TIMED_WAITING":
		return "TIMED_WAITING"
	case "NEW":
		return "NEW"
	case "TERMINATED":
		return "TERMINATED"
	}
	return ""
}

// stateFromRaw infers the Java state from the OS state text (JDK 5 dumps).
func stateFromRaw(raw string) State {
	switch {
	case raw == "runnable":
		return StateRunnable
	case raw == "waiting for monitor entry":
		return StateBlocked
	case raw == "in Object.wait()", raw == "waiting on condition", raw == "parking":
		return StateWaiting
	case raw == "sleeping":
		return StateTimedWaiting
	}
	return StateNone
}

// parseNid reads nid=0x2a43 (hex, JDK <= 17) or nid=18445 (decimal, JDK 18+).
func parseNid(b []byte) (int64, bool) {
	if len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		v, err := strconv.ParseInt(string(b[2:]), 16, 64)
		return v, err == nil
	}
	if !allDigits(b) {
		return 0, false
	}
	return atoi64(b), true
}

func parseUnitFloat(b []byte, unit string) float64 {
	b = bytes.TrimSuffix(b, []byte(unit))
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return -1
	}
	return v
}

// parseBytes reads allocated=975K / 64B / 12M / 3G.
func parseBytes(b []byte) int64 {
	if len(b) == 0 {
		return -1
	}
	mul := int64(1)
	switch b[len(b)-1] {
	case 'B':
		b = b[:len(b)-1]
	case 'K':
		mul, b = 1<<10, b[:len(b)-1]
	case 'M':
		mul, b = 1<<20, b[:len(b)-1]
	case 'G':
		mul, b = 1<<30, b[:len(b)-1]
	}
	if !allDigits(b) {
		return -1
	}
	return atoi64(b) * mul
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

// resolveOwners applies ThreadInfo.toString's "owned by" to the owner, which
// may not print the lock itself (only 8 frames are printed).
func resolveOwners(d *Dump) {
	var byName map[string]*Thread
	for _, t := range d.Threads {
		if t.waitOwner == "" {
			continue
		}
		if byName == nil {
			byName = make(map[string]*Thread, len(d.Threads))
			for _, x := range d.Threads {
				byName[x.Name] = x
			}
		}
		o := byName[t.waitOwner]
		ref := waitTarget(t)
		if o == nil || ref == nil || o == t {
			continue
		}
		r := LockRef{Addr: ref.Addr, Class: ref.Class, Frame: -1}
		if len(t.WaitingToLock) > 0 {
			if !containsKey(o.Locked, r.Key()) {
				o.Locked = append(o.Locked, r)
			}
		} else if !containsKey(o.OwnableSynchronizers, r.Key()) {
			o.OwnableSynchronizers = append(o.OwnableSynchronizers, r)
		}
	}
}
