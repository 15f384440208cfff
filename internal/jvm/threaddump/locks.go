package threaddump

// Lock lines under a frame and the JVM's own deadlock report:
//
//	- waiting to lock <0x00000000f01df578> (a java.lang.Object)
//	- parking to wait for  <0x00000000f01df148> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)
//	"transfer-1":
//	  waiting for ownable synchronizer 0x00000000f01df148, (a java.util.concurrent.locks.ReentrantLock$NonfairSync),

import (
	"bytes"
)

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
		b = bytes.TrimPrefix(b, lkLocked) // VisualVM/JMX: - locked java.util.concurrent.locks.ReentrantLock$NonfairSync@166fba
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
