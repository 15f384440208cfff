package threaddump

import (
	"sort"
	"strings"
)

// The wait-for graph beyond locks: a working thread parked on a future, a
// latch, a semaphore or a queue waits for other threads to serve it. Locks
// name their owner in the dump; these do not, so the serving side is found
// by what the threads run: the executor pool whose workers complete the
// futures, the threads inside the code that guards the permits, the
// consumers of the queue. (Socket reads wait for a downstream: the
// downstream culprit in analyze_culprits.go.)

// WaitKind is what a group of threads waits for.
type WaitKind string

const (
	// WaitExecutor: futures (FutureTask, CompletableFuture), latches and
	// phasers completed by an executor's workers.
	WaitExecutor WaitKind = "executor"
	// WaitPermits: a Semaphore or a connection pool's permits.
	WaitPermits WaitKind = "permits"
	// WaitQueue: a BlockingQueue, full (put) or empty for a reply (take).
	WaitQueue WaitKind = "queue"
)

// WaitGroup is working threads waiting for one kind of thing at one place,
// joined to the threads that serve them.
type WaitGroup struct {
	Kind    WaitKind  `json:"kind"`
	Waiters []*Thread `json:"-"`
	// Object names what they wait on: "CompletableFuture", "Semaphore",
	// "ArrayBlockingQueue.put", "HttpClient connection pool".
	Object string `json:"object"`
	// Frame is the application frame most of them wait in.
	Frame Frame `json:"frame"`
	// Pool is the serving executor's pool name ("serial-stage-N"), "" when
	// the servers are not an executor or none was seen.
	Pool string `json:"pool,omitempty"`
	// Servers are the threads that serve the waiters: the pool's workers
	// (idle ones too, for its size), or the threads running the code that
	// holds the permits or drains the queue.
	Servers []*Thread `json:"-"`
	// ServerNames, Busy: the servers by name and how many are working.
	ServerNames []string `json:"servers"`
	Busy        int      `json:"busy"`
	// ServerFrame and ServerActivity: what the busy servers run, most common.
	ServerFrame    Frame    `json:"server_frame"`
	ServerActivity Activity `json:"server_activity,omitempty"`
	// ServerCPUMillis is the servers' cpu= summed (-1 when not printed).
	ServerCPUMillis float64 `json:"server_cpu_ms"`
	// Share of working threads.
	Share float64 `json:"share"`
}

// waitFrames classify a working thread's wait by the JDK frames above its
// first application frame.
var waitFrames = []struct {
	prefix string
	kind   WaitKind
	object string
}{
	{"java.util.concurrent.FutureTask.awaitDone", WaitExecutor, "Future"},
	{"java.util.concurrent.FutureTask.get", WaitExecutor, "Future"},
	{"java.util.concurrent.CompletableFuture.waitingGet", WaitExecutor, "CompletableFuture"},
	{"java.util.concurrent.CompletableFuture.timedGet", WaitExecutor, "CompletableFuture"},
	{"java.util.concurrent.CompletableFuture.get", WaitExecutor, "CompletableFuture"},
	{"java.util.concurrent.CompletableFuture.join", WaitExecutor, "CompletableFuture"},
	{"java.util.concurrent.CountDownLatch.await", WaitExecutor, "CountDownLatch"},
	{"java.util.concurrent.Phaser.", WaitExecutor, "Phaser"},
	{"java.util.concurrent.CyclicBarrier.", WaitExecutor, "CyclicBarrier"},
	{"java.util.concurrent.ExecutorCompletionService.take", WaitExecutor, "CompletionService"},
	{"java.util.concurrent.AbstractExecutorService.invokeAll", WaitExecutor, "Future"},
	{"java.util.concurrent.Semaphore.acquire", WaitPermits, "Semaphore"},
	{"java.util.concurrent.Semaphore.tryAcquire", WaitPermits, "Semaphore"},
	{"java.util.concurrent.ArrayBlockingQueue.put", WaitQueue, "ArrayBlockingQueue.put"},
	{"java.util.concurrent.ArrayBlockingQueue.offer", WaitQueue, "ArrayBlockingQueue.offer"},
	{"java.util.concurrent.LinkedBlockingQueue.put", WaitQueue, "LinkedBlockingQueue.put"},
	{"java.util.concurrent.LinkedBlockingQueue.offer", WaitQueue, "LinkedBlockingQueue.offer"},
	{"java.util.concurrent.LinkedBlockingDeque.put", WaitQueue, "LinkedBlockingDeque.put"},
	{"java.util.concurrent.LinkedBlockingDeque.offer", WaitQueue, "LinkedBlockingDeque.offer"},
	{"java.util.concurrent.SynchronousQueue.put", WaitQueue, "SynchronousQueue.put"},
	{"java.util.concurrent.SynchronousQueue.offer", WaitQueue, "SynchronousQueue.offer"},
	{"java.util.concurrent.LinkedTransferQueue.transfer", WaitQueue, "LinkedTransferQueue.transfer"},
}

// permitPools are connection pools outside the JDBC fingerprints whose
// borrowers wait for a free entry (application frames, looked up deeper).
var permitPools = []struct{ prefix, name string }{
	{"org.apache.http.pool.AbstractConnPool.", "Apache HttpClient 4 connection pool"},
	{"org.apache.http.impl.conn.PoolingHttpClientConnectionManager.leaseConnection", "Apache HttpClient 4 connection pool"},
	{"org.apache.hc.core5.pool.StrictConnPool.", "Apache HttpClient 5 connection pool"},
	{"org.apache.hc.core5.pool.LaxConnPool.", "Apache HttpClient 5 connection pool"},
	{"org.apache.commons.httpclient.MultiThreadedHttpConnectionManager.doGetConnection", "Apache HttpClient 3 connection pool"},
	{"org.apache.commons.pool2.impl.GenericObjectPool.borrowObject", "Apache commons-pool"},
	{"org.apache.commons.pool.impl.GenericObjectPool.borrowObject", "Apache commons-pool"},
	{"org.apache.commons.pool2.impl.GenericKeyedObjectPool.borrowObject", "Apache commons-pool"},
	{"io.netty.channel.pool.FixedChannelPool.", "Netty FixedChannelPool"},
	{"io.netty.channel.pool.SimpleChannelPool.", "Netty channel pool"},
	{"okhttp3.internal.connection.RealConnectionPool.", "OkHttp connection pool"},
	{"okhttp3.ConnectionPool.", "OkHttp connection pool"},
}

// workerFrames mark a thread as an executor's worker.
var workerFrames = []string{
	"java.util.concurrent.ThreadPoolExecutor$Worker.run", "java.util.concurrent.ForkJoinWorkerThread.run",
	"org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run", "io.netty.util.concurrent.SingleThreadEventExecutor$",
	"org.eclipse.jetty.util.thread.QueuedThreadPool$", "org.jboss.threads.EnhancedQueueExecutor$ThreadBody.run",
}

// futureTaskFrames: a worker completing a future (what futures wait for).
var futureTaskFrames = []string{
	"java.util.concurrent.FutureTask.run", "java.util.concurrent.CompletableFuture$Async",
	"java.util.concurrent.ForkJoinTask.doExec", "java.util.concurrent.CompletableFuture$UniApply",
	"java.util.concurrent.CompletableFuture$Completion.run",
}

// waitOf classifies t's wait: kind and object, "" when none.
func waitOf(t *Thread) (WaitKind, string) {
	st := t.Stack()
	for i, f := range st {
		if i >= scanDepth {
			break
		}
		if isJDKFrame(f.Method) {
			for _, w := range waitFrames {
				if strings.HasPrefix(f.Method, w.prefix) {
					return w.kind, w.object
				}
			}
			continue
		}
		for _, p := range permitPools {
			if strings.HasPrefix(f.Method, p.prefix) {
				return WaitPermits, p.name
			}
		}
	}
	// A request taking its reply from a queue (idle consumers are already
	// idle): the queue's producer serves it.
	for i, f := range st {
		if i >= scanDepth || !isJDKFrame(f.Method) {
			break
		}
		if hasAnyPrefix(f.Method, queueTakeFrames) {
			return WaitQueue, queueOp(f.Method)
		}
	}
	return "", ""
}

// queueOp shortens "java.util.concurrent.SynchronousQueue.take" to "SynchronousQueue.take".
func queueOp(method string) string {
	if i := strings.LastIndexByte(method, '.'); i > 0 {
		if j := strings.LastIndexByte(method[:i], '.'); j >= 0 {
			return method[j+1:]
		}
	}
	return method
}

// waits builds the wait groups of a report: working threads not already
// explained by a lock, a fingerprint or a deadlock.
func (r *Report) waits(d *Dump) {
	type key struct {
		kind   WaitKind
		object string
		frame  string
	}
	groups := map[key]*WaitGroup{}
	var order []key
	for _, t := range d.Threads {
		if t.State == StateNone || t.State == StateRunnable || r.idle[t] || r.culprit[t] != nil || r.LockOf(t) != nil {
			continue
		}
		kind, obj := waitOf(t)
		if kind == "" {
			continue
		}
		app := firstAppFrame(t)
		k := key{kind, obj, app.Method}
		if kind == WaitExecutor {
			// One group, joined to the serving pool, whatever the caller
			// and whichever future, latch or phaser it waits on.
			k.frame, k.object = "", ""
		}
		g := groups[k]
		if g == nil {
			g = &WaitGroup{Kind: kind, Object: obj}
			groups[k] = g
			order = append(order, k)
		} else if !strings.Contains(g.Object, obj) {
			g.Object += ", " + obj
		}
		g.Waiters = append(g.Waiters, t)
	}
	allWaiting := map[*Thread]bool{}
	for _, g := range groups {
		for _, t := range g.Waiters {
			allWaiting[t] = true
		}
	}
	for _, k := range order {
		g := groups[k]
		g.Frame = commonFrame(g.Waiters, func(f Frame) bool { return !isJDKFrame(f.Method) })
		if k.kind == WaitExecutor {
			r.serveByPool(d, g)
		} else {
			r.serveByCode(d, g, allWaiting)
		}
		if r.Active > 0 {
			g.Share = float64(len(g.Waiters)) / float64(r.Active)
		}
		r.Waits = append(r.Waits, g)
	}
	sort.SliceStable(r.Waits, func(i, j int) bool { return len(r.Waits[i].Waiters) > len(r.Waits[j].Waiters) })
}

// serveByPool finds the executor whose workers complete the futures: a
// pool none of the waiters belong to, preferring workers that run future
// tasks, then the busiest.
func (r *Report) serveByPool(d *Dump, g *WaitGroup) {
	waiting := map[*Thread]bool{}
	waiterPools := map[string]bool{}
	for _, t := range g.Waiters {
		waiting[t] = true
		waiterPools[PoolName(t.Name)] = true
	}
	type cand struct {
		name           string
		workers        []*Thread
		busy, futuring int
	}
	by := map[string]*cand{}
	var names []string
	for _, t := range d.Threads {
		if t.State == StateNone || waiting[t] || !hasFrame(t, workerFrames) {
			continue
		}
		n := PoolName(t.Name)
		if waiterPools[n] {
			continue
		}
		c := by[n]
		if c == nil {
			c = &cand{name: n}
			by[n] = c
			names = append(names, n)
		}
		c.workers = append(c.workers, t)
		if !r.idle[t] {
			c.busy++
			if hasFrame(t, futureTaskFrames) {
				c.futuring++
			}
		}
	}
	var best *cand
	for _, n := range names {
		c := by[n]
		if c.busy == 0 {
			continue
		}
		if best == nil || c.futuring > best.futuring || c.futuring == best.futuring && c.busy > best.busy {
			best = c
		}
	}
	if best == nil {
		return
	}
	g.Pool = best.name
	g.setServers(r, best.workers)
}

// serveByCode finds the threads serving permits or a queue: working threads
// that are not waiting in any group and run code of the class the
// waiters wait in (the holders inside the guarded call, the consumer
// draining the queue or producing the reply).
func (r *Report) serveByCode(d *Dump, g *WaitGroup, waiting map[*Thread]bool) {
	class := g.Frame.Class()
	if g.Frame.Method == "" || strings.Contains(class, "$$Lambda") {
		return
	}
	var servers []*Thread
	for _, t := range d.Threads {
		if t.State == StateNone || waiting[t] || r.idle[t] {
			continue
		}
		for i, f := range t.Stack() {
			if i >= scanDepth {
				break
			}
			if f.Class() == class {
				servers = append(servers, t)
				break
			}
		}
	}
	g.setServers(r, servers)
}

func (g *WaitGroup) setServers(r *Report, ts []*Thread) {
	g.Servers = ts
	g.ServerCPUMillis = 0
	acts := map[Activity]int{}
	var busy []*Thread
	for _, t := range ts {
		g.ServerNames = append(g.ServerNames, t.Name)
		if t.CPUMillis < 0 || g.ServerCPUMillis < 0 {
			g.ServerCPUMillis = -1
		} else {
			g.ServerCPUMillis += t.CPUMillis
		}
		if !r.idle[t] {
			busy = append(busy, t)
			acts[ActivityOf(t)]++
		}
	}
	g.Busy = len(busy)
	g.ServerFrame = commonFrame(busy, func(f Frame) bool { return !isJDKFrame(f.Method) })
	best := 0
	for a, n := range acts {
		if n > best || n == best && a < g.ServerActivity {
			best, g.ServerActivity = n, a
		}
	}
}

func hasFrame(t *Thread, prefixes []string) bool {
	for _, f := range t.Stack() {
		if hasAnyPrefix(f.Method, prefixes) {
			return true
		}
	}
	return false
}
