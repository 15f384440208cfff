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

// DropIdleWaits removes the stacks of threads waiting for work (see
// isIdleWait) and returns the value removed.
func (p *Profile) DropIdleWaits() (dropped int64) {
	kept := p.Samples[:0]
	for _, s := range p.Samples {
		idle := false
		for _, f := range s.Stack {
			if isIdleWait(f) {
				idle = true
				break
			}
		}
		if idle {
			dropped += s.Value
			continue
		}
		kept = append(kept, s)
	}
	p.Samples = kept
	p.Total -= dropped
	return dropped
}
