package threaddump

// VisualVM and JMX remote dumps (VisualVM's "Thread Dump" of a JMX
// connection, NetBeans profiler) name the thread with t@ID and put the lock
// on the state line, not under a frame:
//
//	2021-10-17 18:06:34
//	Full thread dump Java HotSpot(TM) 64-Bit Server VM (25.40-b25 mixed mode):
//
//	"order-worker-0" - Thread t@13
//	   java.lang.Thread.State: BLOCKED on java.lang.Object@79efed2d owned by: inventory-holder
//		at Orders.take(Orders.java:12)
//		- locked java.lang.Object@1b6d3586
//
//	   Locked ownable synchronizers:
//		- locked java.util.concurrent.locks.ReentrantLock$NonfairSync@166fba
//
// The local NetBeans form writes lock lines as HotSpot does, with the owner:
// "- waiting to lock <6723abad> (a [B) owned by "B" t@15".

import "bytes"

var bOwnedByColon = []byte(" owned by: ")

// visualVMState reads "on java.lang.Object@79efed2d owned by: NAME" after
// the state; false when det is HotSpot's "(on object monitor)" kind.
func (p *textParser) visualVMState(det []byte) bool {
	if !bytes.HasPrefix(det, []byte("on ")) || bytes.IndexByte(det, '@') < 0 {
		return false
	}
	lock, owner, _ := bytes.Cut(det[3:], bOwnedByColon)
	lock = bytes.TrimSpace(lock)
	if len(lock) == 0 || bytes.IndexByte(lock, ' ') >= 0 {
		return false
	}
	t := p.t
	ref := identityRef(p.str(lock), 0)
	switch {
	case t.State == StateBlocked:
		t.WaitingToLock = append(t.WaitingToLock, ref)
		t.StateDetail = "on object monitor"
	case lockish(ref.Class) || bytes.Contains(lock, []byte("ConditionObject")):
		t.Parking = append(t.Parking, ref)
		t.StateDetail = "parking"
	default:
		t.WaitingOn = append(t.WaitingOn, ref)
		t.StateDetail = "on object monitor"
	}
	if o := bytes.TrimSpace(owner); len(o) > 0 {
		t.waitOwner = string(o)
	}
	return true
}
