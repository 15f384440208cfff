package threaddump

// OpenJ9 / IBM J9 javacores (kill -3 on IBM Semeru, WebSphere, IBM JDK 1.4-8):
// tagged lines, the THREADS section read into the same Thread/LockRef model
// as HotSpot dumps, the LOCKS section's owners and waiters, and the JVM's
// own deadlock report (1LKDEADLOCK).
//
//	0SECTION       THREADS subcomponent dump routine
//	3XMTHREADINFO      "Worker Thread 1" J9VMThread:0x92A3EC00, omrthread_t:0x92A3C2B0, java/lang/Thread:0xB5666778, state:B, prio=5
//	3XMJAVALTHREAD            (java/lang/Thread getId:0x13, isDaemon:false)
//	3XMTHREADINFO1            (native thread ID:0x52CF, native priority:0x5, native policy:UNKNOWN, vmstate:B, vm thread flags:0x00000201)
//	3XMCPUTIME               CPU usage total: 0.004365543 secs, current category="Application"
//	3XMTHREADBLOCK     Blocked on: java/lang/Object@0xB5666688 Owned by: "Worker Thread 2" (J9VMThread:0x94501D00, java/lang/Thread:0xB56668D0)
//	4XESTACKTRACE                at WorkerThread.run(DeadLockTest.java:35)
//	5XESTACKTRACE                   (entered lock: java/lang/Object@0xB5666678, entry count: 1)
//	3XMTHREADINFO      "ExecuteThread: '3'" (TID:0x2BDE718, sys_thread_t:0x10DD9048, state:CW, native ID:0xCD0) prio=5   (JDK 1.4)
//	3LKMONOBJECT       java/lang/Object@0xB56658D8: Flat locked by "Worker Thread 0" (J9VMThread:0x92A3EC00), entry count 1
//	3LKWAITER                "Worker Thread 1" (J9VMThread:0x92703F00)
//	2LKDEADLOCKTHR  Thread "Worker Thread 2" (0x94501D00)
//	4LKDEADLOCKOBJ      java/lang/Object@0xB5666698

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// maxJavacoreThreads bounds one javacore (real ones hold a few thousand).
const maxJavacoreThreads = 100_000

// isJavacore: the first tagged lines of a javacore.
func isJavacore(head []byte) bool {
	for len(head) > 0 {
		var l []byte
		l, head, _ = bytes.Cut(head, []byte{'\n'})
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		return bytes.HasPrefix(l, []byte("0SECTION")) || bytes.HasPrefix(l, []byte("NULL ")) && bytes.Contains(head, []byte("0SECTION"))
	}
	return false
}

// monitor is one LOCKS entry, applied to the threads once all are read
// (LOCKS comes before THREADS).
type monitor struct {
	ref      LockRef
	owner    string
	waiters  []string // waiting to enter
	notified []string // waiting to be notified (Object.wait)
}

type javacoreParser struct {
	d        *Dump
	t        *Thread
	current  []*Thread // 1XMCURTHDINFO: the current thread, listed again under 1XMTHDINFO
	inCur    bool
	sawAll   bool
	mons     []*monitor
	mon      *monitor
	monQueue int // 1 waiters, 2 notify
	dl       *JVMDeadlock
	dlFirst  string
	ended    bool
}

// ParseJavacore reads one OpenJ9/IBM javacore.
func ParseJavacore(r io.Reader) (*Dump, error) {
	var out *Dump
	err := parseJavacore(bufio.NewReaderSize(r, 64<<10), func(d *Dump) error { out = d; return nil })
	return out, err
}

func parseJavacore(br *bufio.Reader, fn func(*Dump) error) error {
	p := &javacoreParser{d: &Dump{Format: FormatJavacore, Line: 1}}
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		cut := false
		if err == bufio.ErrBufferFull {
			line = append([]byte(nil), line...) // the next reads reuse the buffer
			for err == bufio.ErrBufferFull {    // a line past the buffer: keep its start
				_, err = br.ReadSlice('\n')
			}
			cut = true
		}
		if len(line) > 0 || err == nil {
			n++
			if cut && bytes.HasPrefix(line, []byte("3XMTHREADINFO ")) {
				p.drop(finding.Tf(finding.T("line %d: a thread header longer than %d KiB", "第 %d 行：线程头超过 %d KiB"), n, 64))
				p.t = nil
				continue
			}
			p.line(n, bytes.TrimRight(line, "\r\n"))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			p.d.Truncated = finding.Tf(finding.T("reading stopped at line %d: %v", "读取在第 %d 行停止：%v"), n+1, err)
			p.finish()
			if len(p.d.Threads) > 0 {
				if ferr := fn(p.d); ferr != nil {
					return ferr
				}
			}
			return fmt.Errorf("line %d: %w", n+1, err)
		}
	}
	p.finish()
	if len(p.d.Threads) == 0 {
		return &finding.Error{Msg: finding.Tf(finding.T("a javacore without threads (%d lines): no THREADS section",
			"javacore 中没有线程（%d 行）：没有 THREADS 部分"), n), Err: ErrNotThreadDump}
	}
	if !p.ended && p.d.Truncated.EN == "" {
		p.d.Truncated = finding.T("the javacore ends before its END OF DUMP line: threads after the cut are missing",
			"javacore 在 END OF DUMP 行之前结束：截断处之后的线程缺失")
	}
	return fn(p.d)
}

func (p *javacoreParser) line(n int, b []byte) {
	tag, rest, _ := bytes.Cut(b, []byte(" "))
	rest = bytes.TrimSpace(rest)
	switch string(tag) {
	case "1TIDATETIME":
		// Date: 2021/04/23 at 14:02:44:017
		v := strings.TrimSpace(strings.TrimPrefix(string(rest), "Date:"))
		if d, tm, ok := strings.Cut(v, " at "); ok && len(tm) >= 8 {
			p.d.Time = strings.ReplaceAll(d, "/", "-") + " " + tm[:8]
		}
	case "1CIJAVAVERSION":
		p.d.VM = strings.TrimSpace(string(rest))
	case "2XMFULLTHDDUMP":
		if p.d.VM == "" {
			p.d.VM = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(string(rest), "Full thread dump "), ":"))
		}
	case "1CIPROCESSID":
		// Process ID: 30285 (0x764D)
		f := strings.Fields(strings.TrimPrefix(string(rest), "Process ID:"))
		if len(f) > 0 {
			p.d.PID, _ = strconv.ParseInt(f[0], 10, 64)
		}
	case "1XMCURTHDINFO":
		p.inCur = true
	case "1XMTHDINFO":
		p.inCur, p.sawAll = false, true
	case "3XMTHREADINFO":
		p.thread(n, rest)
	case "3XMJAVALTHREAD":
		// (java/lang/Thread getId:0x13, isDaemon:false)
		if p.t != nil {
			if v, ok := field(rest, "getId:"); ok {
				p.t.ID = parseNum(v)
			}
			if v, ok := field(rest, "isDaemon:"); ok {
				p.t.Daemon = v == "true"
			}
		}
	case "3XMTHREADINFO1":
		if v, ok := field(rest, "native thread ID:"); ok && p.t != nil {
			p.t.NativeID = parseNum(v)
		}
	case "3XMCPUTIME":
		// CPU usage total: 0.004365543 secs, current category="Application"
		if p.t != nil {
			if v, ok := field(rest, "CPU usage total:"); ok {
				if f, err := strconv.ParseFloat(strings.TrimSuffix(v, " secs"), 64); err == nil {
					p.t.CPUMillis = f * 1000
				}
			}
		}
	case "3XMTHREADBLOCK":
		p.block(rest)
	case "4XESTACKTRACE":
		if p.t != nil && bytes.HasPrefix(rest, []byte("at ")) && len(p.t.Frames) < 1<<14 {
			p.t.Frames = append(p.t.Frames, javacoreFrame(string(rest[3:])))
		}
	case "5XESTACKTRACE":
		// (entered lock: java/lang/Object@0xB5666678, entry count: 1)
		if p.t != nil && bytes.HasPrefix(rest, []byte("(entered lock: ")) {
			obj, _, _ := bytes.Cut(rest[len("(entered lock: "):], []byte(","))
			ref := javacoreRef(string(obj))
			ref.Frame = len(p.t.Frames) - 1
			p.t.Locked = append(p.t.Locked, ref)
		}
	case "3LKMONOBJECT":
		p.monitorLine(rest)
	case "3LKWAITERQ":
		p.monQueue = 1
	case "3LKNOTIFYQ":
		p.monQueue = 2
	case "3LKWAITER", "3LKWAITNOTIFY":
		if p.mon != nil {
			if name, ok := quoted(rest); ok {
				if tag[4] == 'N' || p.monQueue == 2 {
					p.mon.notified = append(p.mon.notified, name)
				} else {
					p.mon.waiters = append(p.mon.waiters, name)
				}
			}
		}
	case "2LKMONINUSE", "2LKREGMON", "1LKREGMONDUMP", "1LKFLATMONDUMP":
		p.mon = nil
	case "1LKDEADLOCK":
		p.dl = nil
	case "2LKDEADLOCKTHR":
		// Thread "Worker Thread 2" (0x94501D00)
		name, ok := quoted(rest)
		if !ok {
			return
		}
		if p.dl != nil && name == p.dlFirst {
			p.d.JVMDeadlocks = append(p.d.JVMDeadlocks, *p.dl) // the cycle closes
			p.dl = nil
			return
		}
		if p.dl == nil {
			p.dl = &JVMDeadlock{}
			p.dlFirst = name
		}
		if len(p.dl.Threads) < 1000 {
			p.dl.Threads = append(p.dl.Threads, name)
		}
	case "4LKDEADLOCKOBJ":
		if p.dl != nil && len(p.dl.Locks) < len(p.dl.Threads) {
			ref := javacoreRef(string(rest))
			ref.Frame = -1
			p.dl.Locks = append(p.dl.Locks, ref)
		}
	case "0SECTION":
		p.t = nil
	case "NULL":
		if bytes.Contains(rest, []byte("END OF DUMP")) {
			p.ended = true
		}
	}
}

// thread reads a 3XMTHREADINFO header, J9 2.6+ or JDK 1.4 style.
func (p *javacoreParser) thread(n int, rest []byte) {
	p.closeThread()
	t := &Thread{CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1, Line: n}
	s := string(rest)
	if strings.HasPrefix(s, `"`) {
		// The fields after the name hold no quote: it ends at the last one.
		end := strings.LastIndexByte(s, '"')
		if end <= 0 {
			p.drop(finding.Tf(finding.T("line %d: a thread header without its closing quote", "第 %d 行：线程头缺少结尾引号"), n))
			return
		}
		t.Name = s[1:end]
		s = s[end+1:]
	} else {
		t.Name = strings.TrimSpace(s) // "Anonymous native thread": a VM thread
		s = ""
	}
	if v, ok := field([]byte(s), "state:"); ok {
		t.RawState = v
	}
	if v, ok := field([]byte(s), "prio="); ok {
		t.Priority = int(parseNum(v))
	}
	if v, ok := field([]byte(s), "native ID:"); ok {
		t.NativeID = parseNum(v)
	}
	p.t = t
	if p.inCur && !p.sawAll {
		p.current = append(p.current, t)
		return
	}
	if len(p.d.Threads) >= maxJavacoreThreads {
		p.drop(finding.Tf(finding.T("more than %d threads", "线程多于 %d 个"), maxJavacoreThreads))
		p.t = nil
		return
	}
	p.d.Threads = append(p.d.Threads, t)
}

// closeThread turns the J9 state into a Java state, using the top frame to
// tell a sleep and a park from an Object.wait.
func (p *javacoreParser) closeThread() {
	t := p.t
	if t == nil {
		return
	}
	p.t = nil
	top := ""
	if len(t.Frames) > 0 {
		top = t.Frames[0].Method
	}
	switch t.RawState {
	case "R":
		t.State = StateRunnable
	case "B", "MW": // MW: JDK 1.4 "monitor wait", waiting to enter
		t.State, t.StateDetail = StateBlocked, "on object monitor"
	case "P":
		t.State, t.StateDetail = StateWaiting, "parking"
	case "CW", "S":
		switch {
		case top == "java.lang.Thread.sleep" || top == "java.lang.Thread.sleep0":
			t.State, t.StateDetail = StateTimedWaiting, "sleeping"
		case strings.HasSuffix(top, "Unsafe.park"):
			t.State, t.StateDetail = StateWaiting, "parking"
		default:
			t.State, t.StateDetail = StateWaiting, "on object monitor"
		}
	case "Z":
		t.State = StateTerminated
	}
	if t.State == StateNone && len(t.Frames) > 0 {
		t.State = StateRunnable // a state letter this parser does not know, with a Java stack
	}
	if t.Name == "Anonymous native thread" || strings.HasPrefix(t.Name, "Anonymous native thread") {
		t.State = StateNone
	}
}

// block reads "Blocked on: X Owned by: "name" (...)", also "Waiting on:" and "Parked on:".
func (p *javacoreParser) block(rest []byte) {
	t := p.t
	if t == nil {
		return
	}
	s := string(rest)
	kind, obj, ok := strings.Cut(s, " on: ")
	if !ok {
		return
	}
	obj, owner, _ := strings.Cut(obj, " Owned by: ")
	ref := javacoreRef(strings.TrimSpace(obj))
	ref.Frame = 0
	switch kind {
	case "Blocked":
		t.WaitingToLock = append(t.WaitingToLock, ref)
	case "Parked":
		t.Parking = append(t.Parking, ref)
	default:
		t.WaitingOn = append(t.WaitingOn, ref)
	}
	if name, ok := quoted([]byte(owner)); ok {
		t.waitOwner = name
	}
}

// monitorLine reads "java/lang/Object@0xB56658D8: Flat locked by "T" (...), entry count 1",
// "...: owner "T" (0x..), entry count 1" or "...: <unowned>".
func (p *javacoreParser) monitorLine(rest []byte) {
	s := string(rest)
	obj, state, _ := strings.Cut(s, ": ")
	m := &monitor{ref: javacoreRef(obj)}
	m.ref.Frame = -1
	if i := strings.IndexByte(state, '"'); i >= 0 && !strings.Contains(state, "<unowned>") {
		m.owner, _ = quoted([]byte(state[i:]))
	}
	p.mon = m
	p.monQueue = 0
	if len(p.mons) < 1<<16 {
		p.mons = append(p.mons, m)
	}
}

func (p *javacoreParser) finish() {
	p.closeThread()
	if p.dl != nil && len(p.dl.Threads) > 0 {
		p.d.JVMDeadlocks = append(p.d.JVMDeadlocks, *p.dl)
		p.dl = nil
	}
	if len(p.d.Threads) == 0 && len(p.current) > 0 {
		p.d.Threads = p.current // only the current thread was printed
	}
	byName := make(map[string]*Thread, len(p.d.Threads))
	for _, t := range p.d.Threads {
		if _, dup := byName[t.Name]; !dup {
			byName[t.Name] = t
		}
	}
	// LOCKS: owners hold, waiters want, unless the thread already said so.
	for _, m := range p.mons {
		if o := byName[m.owner]; o != nil && !containsKey(o.Locked, m.ref.Key()) {
			o.Locked = append(o.Locked, m.ref)
		}
		for _, w := range m.waiters {
			if t := byName[w]; t != nil && len(t.WaitingToLock) == 0 {
				t.WaitingToLock = append(t.WaitingToLock, m.ref)
				if t.State != StateBlocked && t.State != StateNone {
					t.State, t.StateDetail = StateBlocked, "on object monitor"
				}
			}
		}
		for _, w := range m.notified {
			if t := byName[w]; t != nil && len(t.WaitingOn) == 0 {
				t.WaitingOn = append(t.WaitingOn, m.ref)
			}
		}
	}
	resolveOwners(p.d)
}

func (p *javacoreParser) drop(why finding.Text) {
	p.d.Dropped++
	if p.d.DroppedWhy.EN == "" {
		p.d.DroppedWhy = why
	}
}

// field returns the value after key up to the next ',' or ')'.
func field(b []byte, key string) (string, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return "", false
	}
	v := b[i+len(key):]
	if j := bytes.IndexAny(v, ",)"); j >= 0 {
		v = v[:j]
	}
	return string(bytes.TrimSpace(v)), true
}

// quoted returns the text between the first and the next '"'.
func quoted(b []byte) (string, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return "", false
	}
	j := bytes.IndexByte(b[i+1:], '"')
	if j < 0 {
		return "", false
	}
	return string(b[i+1 : i+1+j]), true
}

// parseNum reads 0x-hex or decimal; 0 when neither.
func parseNum(s string) int64 {
	v, ok := units.ParseHexOrDec(strings.TrimSpace(s))
	if !ok || v > math.MaxInt64 {
		return 0
	}
	return int64(v)
}

// javacoreRef reads "java/lang/Object@0xB5666688" (also the JDK 1.4
// "java.lang.Object@2940598/29405A0") into the address and the class.
func javacoreRef(s string) LockRef {
	s = strings.TrimSpace(s)
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return LockRef{Addr: s, Frame: -1}
	}
	addr := s[at+1:]
	if i := strings.IndexByte(addr, '/'); i >= 0 {
		addr = addr[:i]
	}
	return LockRef{Addr: addr, Class: strings.ReplaceAll(s[:at], "/", "."), Frame: -1}
}

// javacoreFrame reads "java/lang/Thread.sleep(Thread.java:941(Compiled Code))".
func javacoreFrame(s string) Frame {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		return Frame{Method: strings.ReplaceAll(s, "/", ".")}
	}
	f := Frame{Method: strings.ReplaceAll(s[:i], "/", ".")}
	src := strings.TrimSuffix(s[i+1:], ")")
	src = strings.TrimSuffix(src, "(Compiled Code)")
	src = strings.TrimSuffix(src, "(Bytecode PC:")
	if j := strings.Index(src, "(Bytecode PC:"); j >= 0 {
		src = src[:j]
	}
	f.Source = src
	return f
}
