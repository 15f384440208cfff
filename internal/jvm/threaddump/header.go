package threaddump

// Thread headers of every text dialect: jstack/jcmd, JDK 5-25, ThreadInfo
// (id= / Id=), jcmd Thread.dump_to_file plain, VisualVM/JMX and HP-UX:
//
//	"main" #1 prio=5 os_prio=0 cpu=394.05ms elapsed=8.68s tid=0x00007f190c019a40 nid=0x4154 waiting on condition  [0x00007f19119de000]
//	"order-worker-0" daemon prio=5 Id=13 BLOCKED on java.lang.Object@79efed2d owned by "inventory-holder" Id=12
//	"http-nio-8080-exec-1" - Thread t@42
//	"ListenThread" prio=10 tid=0x0003fa38 nid=78 lwp_id=3573240 runnable [0x1f229000..0x1f229500]

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/units"
)

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
	p.format = ""
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
			if len(w) > 4 && !bytes.HasPrefix(w[4:], []byte("0x")) {
				p.format = FormatHPUX // HP-UX JDK: tid=000000000046a600
			}
		case bytes.HasPrefix(w, []byte("lwp_id=")):
			// HP-UX: the kernel thread id (nid is the JVM's own number).
			t.NativeID, haveNid = atoi64(w[7:]), true
			p.format = FormatHPUX
		case len(w) > 2 && w[0] == 't' && w[1] == '@' && allDigits(w[2:]):
			// VisualVM / JMX: "name" - Thread t@42
			t.ID = atoi64(w[2:])
			ok = true
			p.format = FormatVisualVM
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
	case raw == "in Object.wait()", raw == "waiting on condition", raw == "parking", raw == "waiting on monitor": // the last: HP-UX, JDK 1.4
		return StateWaiting
	case raw == "sleeping":
		return StateTimedWaiting
	}
	return StateNone
}

// parseNid reads nid=0x2a43 (hex, JDK <= 17) or nid=18445 (decimal, JDK 18+).
func parseNid(b []byte) (int64, bool) {
	v, ok := units.ParseHexOrDec(b)
	return int64(v), ok && v <= math.MaxInt64
}

func parseUnitFloat(b []byte, unit string) float64 {
	b = bytes.TrimSuffix(b, []byte(unit))
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return -1
	}
	return v
}

// parseBytes reads allocated=975K / 64B / 12M / 3G (the letter is
// units.Shift's); -1 when it is not a size or does not fit in int64.
func parseBytes(b []byte) int64 {
	if len(b) == 0 {
		return -1
	}
	var sh uint
	if c := b[len(b)-1]; c == 'B' {
		b = b[:len(b)-1]
	} else if s, ok := units.Shift(c); ok {
		sh, b = s, b[:len(b)-1]
	}
	if !allDigits(b) {
		return -1
	}
	n := atoi64(b) // saturates at 1<<62
	if n >= 1<<62 || n > math.MaxInt64>>sh {
		return -1
	}
	return n << sh
}
