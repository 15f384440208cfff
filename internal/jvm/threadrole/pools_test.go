package threadrole

import "testing"

// An Executors pool serving a JDK HttpServer: the busy threads' stacks show
// the exchange, the idle ones wait in getTask; all of them are the pool's
// request workers. A pool whose stacks show nothing stays background.
func TestPoolsLearnFromSiblings(t *testing.T) {
	idle := []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.LinkedBlockingQueue.take", "java.util.concurrent.ThreadPoolExecutor.getTask",
		"java.util.concurrent.ThreadPoolExecutor.runWorker", "java.lang.Thread.run"}
	busy := []string{"java.lang.Thread.sleep", "Slow.handle", "sun.net.httpserver.ServerImpl$Exchange.run",
		"java.util.concurrent.ThreadPoolExecutor.runWorker", "java.lang.Thread.run"}
	p := NewPools()
	// Dump 1: thread 2 idle; dump 2: thread 2 busy, thread 3 idle in both.
	p.Observe("pool-1-thread-1", busy)
	p.Observe("pool-1-thread-2", idle)
	p.Observe("pool-1-thread-3", idle)
	p.Observe("pool-2-thread-1", idle)
	if r := p.Role("pool-1-thread-3"); r.Kind != RequestWorker || r.Framework != "jdk-httpserver" || r.By != "pool" || r.Pool != "pool-1-thread" {
		t.Errorf("idle sibling: %+v", r)
	}
	p.Observe("pool-1-thread-2", busy)
	p.Observe("pool-1-thread-2", idle) // a later idle look keeps what the stack showed
	if r := p.Role("pool-1-thread-2"); r.Kind != RequestWorker || r.By != "stack" {
		t.Errorf("thread seen busy once: %+v", r)
	}
	if r := p.Role("pool-2-thread-1"); r.Kind != Background || r.By == "pool" {
		t.Errorf("another pool: %+v", r)
	}
	// A name only one role uses is not overridden by its pool's votes.
	p.Observe("http-nio-8080-exec-1", busy)
	if r := p.Role("http-nio-8080-exec-1"); r.Framework != "tomcat" || r.By != "name" {
		t.Errorf("tomcat worker: %+v", r)
	}
	// Never observed: its name, or its pool's stacks.
	if r := p.Role("pool-1-thread-9"); r.Kind != RequestWorker || r.By != "pool" {
		t.Errorf("unobserved sibling: %+v", r)
	}
	if r := p.Role("C2 CompilerThread0"); r.Kind != JIT {
		t.Errorf("compiler: %+v", r)
	}
}
