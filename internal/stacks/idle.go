package stacks

import "strings"

// isIdleWait is a frame under which a thread waits for work to arrive, not
// for a lock: a pool worker with an empty queue, an idle event loop. A lock
// profile counts time blocked on locks; left in, idle pools' waits would
// bury the lock a service queues on (a Tomcat pool of 200 mostly idle
// threads parks 200 s a second).
func isIdleWait(frame string) bool {
	for _, s := range []string{
		"ThreadPoolExecutor.getTask", // java.util.concurrent and Tomcat's pools
		"java.util.concurrent.ForkJoinPool.awaitWork",
		"io.netty.util.concurrent.SingleThreadEventExecutor.takeTask",
		"io.netty.util.concurrent.GlobalEventExecutor.takeTask",
	} {
		if strings.HasSuffix(frame, s) {
			return true
		}
	}
	return false
}

// IdleStack says whether a stack (any order) is a thread waiting for work,
// not for a lock: a frame of it is one isIdleWait knows.
func IdleStack(stack []string) bool {
	for _, f := range stack {
		if isIdleWait(f) {
			return true
		}
	}
	return false
}

// DropIdleWaits removes the stacks of threads waiting for work (see
// isIdleWait) and returns the value removed.
func (p *Profile) DropIdleWaits() (dropped int64) {
	kept := p.Samples[:0]
	for _, s := range p.Samples {
		if IdleStack(s.Stack) {
			dropped += s.Value
			continue
		}
		kept = append(kept, s)
	}
	p.Samples = kept
	p.Total -= dropped
	return dropped
}
