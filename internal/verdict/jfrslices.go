package verdict

import (
	"context"
	"strings"

	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
	"github.com/tuneloop/tuneloop/internal/mechanism"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// maxJFRThreadsLen caps the recording read for the per-thread account (a
// run's recording is a few MB); a larger one keeps its profiles only.
const maxJFRThreadsLen = 256 << 20

// loadJFRThreads reads the recording's per-thread samples and timed events
// into slices of the time account.
func (L *Layers) loadJFRThreads(ctx context.Context) error {
	if err := stopped(ctx, L.Folder.Dir, JFRFile); err != nil {
		return err
	}
	b, ok := L.readFile(JFRFile, maxJFRThreadsLen)
	if !ok {
		return nil
	}
	ss, rd, err := jfrSlices(b)
	if err := stopped(ctx, L.Folder.Dir, JFRFile); err != nil {
		return err
	}
	if err != nil && len(ss) == 0 {
		return nil // the profiles' reading already said what is wrong with it
	}
	L.Threads, L.ThreadRead = ss, rd
	return nil
}

// sliceKey merges events of one thread in one state with one stack.
type sliceKey struct {
	thread string
	state  mechanism.State
	stack  *stacks.Frame // the chunk's shared stack (nil: none)
	depth  int
	lock   string
	peer   string
}

// jfrSlices turns every per-thread JFR event into the account's slices: a
// CPU sample is its period of running, a native sample its period in a
// socket, a file or native code, a monitor, park, wait or sleep event its
// duration; idle pool threads' waits are Idle. Socket and file events are
// the same time as the native samples of those threads: when the
// recording has native samples they weigh nothing and add only their peer.
func jfrSlices(buf []byte) ([]mechanism.Slice, stacks.JFRThreadRead, error) {
	idle := threaddump.NewIdleJudge()
	byKey := map[sliceKey]*mechanism.Slice{}
	var order []sliceKey
	var events []stacks.ThreadEvent
	rd, err := stacks.JFRThreadEvents(buf, func(ev stacks.ThreadEvent) { events = append(events, ev) })
	natives := rd.Events[stacks.EvNative] > 0
	cpuPeriod, nativePeriod := float64(rd.PeriodOrDefault(stacks.EvCPU)), float64(rd.PeriodOrDefault(stacks.EvNative))
	roles := map[string]threadrole.Role{}
	for _, ev := range events {
		methods := make([]string, len(ev.Stack))
		for i, f := range ev.Stack {
			methods[i] = f.Method
		}
		st, w, lock, peer := jfrState(&ev, natives, cpuPeriod, nativePeriod)
		if st == "" {
			continue
		}
		if st != mechanism.Running && st != mechanism.Socket && st != mechanism.File && idle.Idle(ev.Thread, jdkState(st), methods) {
			st = mechanism.Idle
		}
		if (st == mechanism.Socket || st == mechanism.Running) && ev.Kind == stacks.EvNative && idle.Idle(ev.Thread, threaddump.StateRunnable, methods) {
			st = mechanism.Idle // a selector's epoll wait, an acceptor's accept
		}
		k := sliceKey{thread: ev.Thread, state: st, depth: len(ev.Stack), lock: lock, peer: peer}
		if len(ev.Stack) > 0 {
			k.stack = &ev.Stack[0]
		}
		s := byKey[k]
		if s == nil {
			role, ok := roles[ev.Thread]
			if !ok {
				role = threadrole.Classify(ev.Thread, methods)
				roles[ev.Thread] = role
			}
			fs := make([]mechanism.Frame, len(ev.Stack))
			for i, f := range ev.Stack {
				fs[i] = mechanism.Frame{Method: f.Method, Line: f.Line}
			}
			s = &mechanism.Slice{Thread: ev.Thread, Role: string(role.Kind), Pool: role.Pool, State: st, Stack: fs,
				Source: mechanism.FromJFR, Lock: lock, Peer: peer}
			byKey[k] = s
			order = append(order, k)
		}
		s.Weight += w
		s.Events++
	}
	out := make([]mechanism.Slice, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out, rd, err
}

// jfrState is an event's state, weight (ns), lock and peer.
func jfrState(ev *stacks.ThreadEvent, natives bool, cpuPeriod, nativePeriod float64) (mechanism.State, float64, string, string) {
	d := float64(ev.Duration)
	switch ev.Kind {
	case stacks.EvCPU:
		return mechanism.Running, cpuPeriod, "", ""
	case stacks.EvNative:
		for i, f := range ev.Stack {
			if i >= 16 || !mechanism.IsLibrary(f.Method) {
				break
			}
			switch {
			case strings.Contains(f.Method, "Socket") || strings.HasPrefix(f.Method, "sun.nio.ch.Net.") || strings.Contains(f.Method, "SocketDispatcher"):
				return mechanism.Socket, nativePeriod, "", ""
			case strings.Contains(f.Method, "FileDispatcher") || strings.HasPrefix(f.Method, "java.io.File") || strings.HasPrefix(f.Method, "java.io.RandomAccessFile"):
				return mechanism.File, nativePeriod, "", ""
			}
		}
		return mechanism.Running, nativePeriod, "", ""
	case stacks.EvMonitor:
		return mechanism.Blocked, d, ev.Class, ""
	case stacks.EvPark:
		return mechanism.Parked, d, ev.Class, ""
	case stacks.EvWait:
		return mechanism.Waiting, d, ev.Class, ""
	case stacks.EvSleep:
		return mechanism.Sleeping, d, "", ""
	case stacks.EvSocketRead, stacks.EvSocketWrite:
		if natives {
			d = 0
		}
		return mechanism.Socket, d, "", ev.Peer
	case stacks.EvFileRead, stacks.EvFileWrite, stacks.EvFileForce:
		if natives {
			d = 0
		}
		return mechanism.File, d, "", ev.Path
	}
	return "", 0, "", ""
}

// jdkState is the Java state a dump would print for a state, for the idle rules.
func jdkState(s mechanism.State) threaddump.State {
	switch s {
	case mechanism.Blocked:
		return threaddump.StateBlocked
	case mechanism.Sleeping:
		return threaddump.StateTimedWaiting
	case mechanism.Running, mechanism.Socket, mechanism.File:
		return threaddump.StateRunnable
	}
	return threaddump.StateWaiting
}
