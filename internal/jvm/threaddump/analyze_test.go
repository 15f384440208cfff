package threaddump

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

func culpritIDs(r *Report) []string {
	var ids []string
	for _, c := range r.Culprits {
		ids = append(ids, c.ID)
	}
	return ids
}

func findCulprit(r *Report, id string) *Culprit {
	for _, c := range r.Culprits {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Dumps produced by real JVMs on this machine (testdata/README.md).
func TestAnalyzeLiveFixtures(t *testing.T) {
	tests := []struct {
		file     string
		culprit  string
		waiters  int // at least
		holderAt string
		lock     string
	}{
		{"jdk17_logbacklike_jcmd.txt", "threaddump.lock.logback-appender", 20, "java.io.FileOutputStream.writeBytes", "java.util.concurrent.locks.ReentrantLock$NonfairSync"},
		{"jdk25_logbacklike_jcmd.txt", "threaddump.lock.logback-appender", 20, "java.io.FileOutputStream.writeBytes", "java.util.concurrent.locks.ReentrantLock$NonfairSync"},
		{"jdk17_log4j1like_jcmd.txt", "threaddump.lock.log4j1-category", 20, "", "org.apache.log4j.Logger"},
		{"jdk25_log4j1like_jcmd.txt", "threaddump.lock.log4j1-category", 20, "", "org.apache.log4j.Logger"},
		{"jdk17_log4j2like_jcmd.txt", "threaddump.lock.log4j2-manager", 20, "", "org.apache.logging.log4j.core.appender.FileManager"},
		{"jdk25_log4j2like_jcmd.txt", "threaddump.lock.log4j2-manager", 20, "", "org.apache.logging.log4j.core.appender.FileManager"},
		{"jdk17_contention_jcmd.txt", "threaddump.lock.app", 19, "java.lang.Thread.sleep", "java.lang.Object"},
		{"jdk25_contention_jcmd.txt", "threaddump.lock.app", 19, "java.lang.Thread.sleepNanos0", "java.lang.Object"},
		{"jdk25_contention_jcmd.txt", "threaddump.lock.sync-collection", 5, "", "java.util.Collections$SynchronizedMap"},
		{"jdk25_contention_threaddump.json", "threaddump.lock.app", 19, "", "java.lang.Object"},
		{"jdk17_sigquit_prefixed.log", "threaddump.lock.app", 19, "java.lang.Thread.sleep", "java.lang.Object"},
		{"jdk17_zoo_fsync_jcmd.txt", "threaddump.lock.app", 40, "sun.nio.ch.FileDispatcherImpl.force0", "com.example.zoo.Journal"},
		{"jdk17_zoo_fsync_holder_entering_jcmd.txt", "threaddump.lock.app", 40, "com.example.zoo.Journal.append", "com.example.zoo.Journal"},
		{"tda_urlthread.log", "threaddump.lock.app", 30, "java.io.RandomAccessFile.seek", "org.archive.crawler.postprocessor.FrontierScheduler"},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.culprit, func(t *testing.T) {
			r := Analyze(parseFixture(t, tc.file)[0])
			c := findCulprit(r, tc.culprit)
			if c == nil {
				t.Fatalf("no %s; culprits %v", tc.culprit, culpritIDs(r))
			}
			if len(c.Threads) < tc.waiters {
				t.Errorf("waiters = %d, want >= %d", len(c.Threads), tc.waiters)
			}
			if c.Lock == nil || c.Lock.Ref.Class != tc.lock {
				t.Fatalf("lock = %+v, want class %s", c.Lock, tc.lock)
			}
			if c.Holder == nil {
				t.Fatalf("no holder for %s", c.Lock.Ref)
			}
			if tc.holderAt != "" && c.Holder.Top().Method != tc.holderAt {
				t.Errorf("holder top = %s, want %s", c.Holder.Top(), tc.holderAt)
			}
			if c.FP.HolderFrames != nil && !c.HolderConfirmed {
				t.Errorf("holder %q not confirmed by holder frames: %s", c.Holder.Name, c.Holder.Top())
			}
			// The top lock is the culprit's lock, and the holder does not wait for it.
			if r.Locks[0].NWaiter < tc.waiters {
				t.Errorf("top lock has %d waiters", r.Locks[0].NWaiter)
			}
			for _, w := range c.Threads {
				if w == c.Holder {
					t.Errorf("holder counted as waiter")
				}
			}
		})
	}
}

func TestDeadlocks(t *testing.T) {
	for _, file := range []string{"jdk17_deadlock_jcmd.txt", "jdk17_deadlock_jstack.txt", "jdk25_deadlock_jcmd.txt"} {
		r := Analyze(parseFixture(t, file)[0])
		if len(r.Deadlocks) != 2 {
			t.Fatalf("%s: deadlocks = %d", file, len(r.Deadlocks))
		}
		kinds := map[string]bool{}
		for _, dl := range r.Deadlocks {
			if !dl.Detected || !dl.ReportedByJVM {
				t.Errorf("%s: %v detected=%v jvm=%v", file, dl.Names, dl.Detected, dl.ReportedByJVM)
			}
			kinds[dl.Locks[0].Class] = true
		}
		if !kinds["java.lang.Object"] || !kinds["java.util.concurrent.locks.ReentrantLock$NonfairSync"] {
			t.Errorf("%s: lock kinds %v", file, kinds)
		}
	}
	// Without the JVM's own section (older JVMs miss j.u.c cycles; log excerpts cut it).
	src, err := os.ReadFile(fixturePath(t, "jdk17_deadlock_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cut := string(src[:strings.Index(string(src), "Found one Java-level deadlock")])
	ds, err := ParseText(strings.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(ds[0])
	if len(r.Deadlocks) != 2 {
		t.Fatalf("without JVM section: deadlocks = %d", len(r.Deadlocks))
	}
	for _, dl := range r.Deadlocks {
		if dl.ReportedByJVM || !dl.Detected {
			t.Errorf("%v jvm=%v detected=%v", dl.Names, dl.ReportedByJVM, dl.Detected)
		}
	}
	// A three-way monitor cycle plus a thread waiting on the cycle (not in it).
	three := "Full thread dump test:\n" +
		thread("a", 1, "BLOCKED (on object monitor)", "\tat x.A.run(A.java:1)\n\t- waiting to lock <0x2> (a x.L)\n\t- locked <0x1> (a x.L)\n") +
		thread("b", 2, "BLOCKED (on object monitor)", "\tat x.A.run(A.java:1)\n\t- waiting to lock <0x3> (a x.L)\n\t- locked <0x2> (a x.L)\n") +
		thread("c", 3, "BLOCKED (on object monitor)", "\tat x.A.run(A.java:1)\n\t- waiting to lock <0x1> (a x.L)\n\t- locked <0x3> (a x.L)\n") +
		thread("d", 4, "BLOCKED (on object monitor)", "\tat x.A.run(A.java:1)\n\t- waiting to lock <0x1> (a x.L)\n")
	ds, err = ParseText(strings.NewReader(three))
	if err != nil {
		t.Fatal(err)
	}
	r = Analyze(ds[0])
	if len(r.Deadlocks) != 1 || len(r.Deadlocks[0].Names) != 3 {
		t.Fatalf("three-way: %+v", r.Deadlocks)
	}
}

func TestSharesAndPools(t *testing.T) {
	r := Analyze(parseFixture(t, "jdk17_contention_jcmd.txt")[0])
	// 24-thread pool: 1 holder sleeping, 19 blocked, 4 idle on the task queue.
	var pool *Pool
	for _, p := range r.Pools {
		if p.Name == "http-nio-8080-exec-N" {
			pool = p
		}
	}
	if pool == nil || pool.Size != 24 || pool.Idle != 4 || pool.Busy != 20 || pool.Blocked != 19 {
		t.Fatalf("pool = %+v", pool)
	}
	if r.Java != 47 || r.VMInternal != 8 {
		t.Errorf("java=%d vm=%d", r.Java, r.VMInternal)
	}
	want := float64(r.Blocked+r.Waiting) / float64(r.Java-r.Idle)
	if math.Abs(r.BlockedWaitingShare-want) > 1e-9 || r.Blocked != 24 {
		t.Errorf("share %v blocked %d", r.BlockedWaitingShare, r.Blocked)
	}
	for _, th := range pool.Threads {
		if r.IsIdle(th) && th.State == StateBlocked {
			t.Errorf("blocked thread %q counted idle", th.Name)
		}
	}
	if len(r.StackGroups) == 0 || len(r.StackGroups[0].Threads) != 19 || r.StackGroups[0].State != StateBlocked {
		t.Errorf("top stack group %+v", r.StackGroups[0])
	}
}

func TestPoolName(t *testing.T) {
	tests := map[string]string{
		"http-nio-8080-exec-12":            "http-nio-8080-exec-N",
		"pool-3-thread-7":                  "pool-3-thread-N",
		"GC Thread#3":                      "GC Thread#N",
		"C2 CompilerThread0":               "C2 CompilerThreadN",
		"RMI TCP Connection(23)-127.0.1.1": "RMI TCP Connection(N)-127.0.1.1",
		"main":                             "main",
		"DubboServerHandler-1.2.3.4:20880-thread-5": "DubboServerHandler-1.2.3.4:20880-thread-N",
		"WebContainer : 3":                          "WebContainer : N",
		"VirtualThread[#21]":                        "VirtualThread[#N]",
		"":                                          "",
	}
	for in, want := range tests {
		if got := PoolName(in); got != want {
			t.Errorf("PoolName(%q) = %q, want %q", in, got, want)
		}
	}
}

// thread renders one HotSpot thread entry for synthetic dumps.
func thread(name string, id int, state, body string) string {
	return fmt.Sprintf("%q #%d prio=5 os_prio=0 cpu=1.00ms elapsed=10.00s tid=0x%x nid=0x%x waiting\n   java.lang.Thread.State: %s\n%s\n",
		name, id, id, 1000+id, state, body)
}

// synth builds a dump of n identical waiters plus optional extra entries.
func synth(n int, namePrefix, state, body string, extra ...string) string {
	var b strings.Builder
	b.WriteString("2026-11-21 10:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):\n\n")
	for i := 0; i < n; i++ {
		b.WriteString(thread(fmt.Sprintf("%s%d", namePrefix, i+1), 100+i, state, body))
	}
	for _, e := range extra {
		b.WriteString(e)
	}
	b.WriteString("JNI global refs: 1, weak refs: 0\n")
	return b.String()
}

// Stacks below follow the libraries' sources (anchors-java-diagnosis.md section 6):
// small, exact cases for each fingerprint's edges. The real libraries' dumps
// (zoo/fingerprints.sh) are in libs_test.go.
var synthCases = []struct {
	name, want, dump string
}{
	{"druid", "threaddump.jdbc-pool.druid", synth(8, "http-nio-8080-exec-", "WAITING (parking)",
		"\tat jdk.internal.misc.Unsafe.park(Native Method)\n\t- parking to wait for  <0x00000000c1> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)\n"+
			"\tat java.util.concurrent.locks.LockSupport.park(LockSupport.java:211)\n\tat java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:1623)\n"+
			"\tat com.alibaba.druid.pool.DruidDataSource.takeLast(DruidDataSource.java:2185)\n\tat com.alibaba.druid.pool.DruidDataSource.getConnectionInternal(DruidDataSource.java:1660)\n"+
			"\tat com.alibaba.druid.pool.DruidDataSource.getConnectionDirect(DruidDataSource.java:1390)\n\tat com.example.OrderDao.find(OrderDao.java:40)\n")},
	{"hikari", "threaddump.jdbc-pool.hikaricp", synth(6, "http-nio-8080-exec-", "TIMED_WAITING (parking)",
		"\tat jdk.internal.misc.Unsafe.park(Native Method)\n\t- parking to wait for  <0x00000000c2> (a java.util.concurrent.SynchronousQueue$TransferStack)\n"+
			"\tat java.util.concurrent.locks.LockSupport.parkNanos(LockSupport.java:252)\n\tat java.util.concurrent.SynchronousQueue$TransferStack.awaitFulfill(SynchronousQueue.java:462)\n"+
			"\tat java.util.concurrent.SynchronousQueue.poll(SynchronousQueue.java:937)\n\tat com.zaxxer.hikari.util.ConcurrentBag.borrow(ConcurrentBag.java:151)\n"+
			"\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:180)\n\tat com.example.OrderDao.find(OrderDao.java:40)\n")},
	{"dbcp", "threaddump.jdbc-pool.dbcp", synth(5, "pool-1-thread-", "WAITING (parking)",
		"\tat sun.misc.Unsafe.park(Native Method)\n\t- parking to wait for  <0x00000000c3> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)\n"+
			"\tat org.apache.commons.pool2.impl.LinkedBlockingDeque.takeFirst(LinkedBlockingDeque.java:1324)\n\tat org.apache.commons.pool2.impl.GenericObjectPool.borrowObject(GenericObjectPool.java:306)\n"+
			"\tat org.apache.commons.dbcp2.PoolingDataSource.getConnection(PoolingDataSource.java:134)\n")},
	{"c3p0", "threaddump.jdbc-pool.c3p0", synth(5, "pool-1-thread-", "TIMED_WAITING (on object monitor)",
		"\tat java.lang.Object.wait(Native Method)\n\t- waiting on <0x00000000c4> (a com.mchange.v2.resourcepool.BasicResourcePool)\n"+
			"\tat com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable(BasicResourcePool.java:1503)\n\t- locked <0x00000000c4> (a com.mchange.v2.resourcepool.BasicResourcePool)\n"+
			"\tat com.mchange.v2.resourcepool.BasicResourcePool.prelimCheckoutResource(BasicResourcePool.java:644)\n")},
	{"log4j2 async logger full", "threaddump.queue.log4j2-async-full", synth(10, "worker-", "BLOCKED (on object monitor)",
		"\tat org.apache.logging.log4j.core.async.AsyncLoggerDisruptor.enqueueLogMessageWhenQueueFull(AsyncLoggerDisruptor.java:273)\n\t- waiting to lock <0x00000000c5> (a java.lang.Object)\n"+
			"\tat org.apache.logging.log4j.core.async.AsyncLogger.handleRingBufferFull(AsyncLogger.java:246)\n\tat org.apache.logging.log4j.core.async.AsyncLogger.publish(AsyncLogger.java:230)\n")},
	{"logback async full", "threaddump.queue.logback-async-full", synth(10, "worker-", "WAITING (parking)",
		"\tat jdk.internal.misc.Unsafe.park(Native Method)\n\t- parking to wait for  <0x00000000c6> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)\n"+
			"\tat java.util.concurrent.ArrayBlockingQueue.put(ArrayBlockingQueue.java:370)\n\tat ch.qos.logback.core.AsyncAppenderBase.put(AsyncAppenderBase.java:160)\n"+
			"\tat ch.qos.logback.core.AsyncAppenderBase.append(AsyncAppenderBase.java:148)\n\tat ch.qos.logback.core.UnsynchronizedAppenderBase.doAppend(UnsynchronizedAppenderBase.java:84)\n")},
	{"logback sifting", "threaddump.lock.logback-appender", synth(6, "worker-", "BLOCKED (on object monitor)",
		"\tat ch.qos.logback.core.AppenderBase.doAppend(AppenderBase.java:63)\n\t- waiting to lock <0x00000000c7> (a ch.qos.logback.classic.sift.SiftingAppender)\n"+
			"\tat ch.qos.logback.core.spi.AppenderAttachableImpl.appendLoopOnAppenders(AppenderAttachableImpl.java:51)\n",
		thread("holder", 99, "RUNNABLE", "\tat java.io.FileOutputStream.writeBytes(Native Method)\n\tat ch.qos.logback.core.AppenderBase.doAppend(AppenderBase.java:82)\n\t- locked <0x00000000c7> (a ch.qos.logback.classic.sift.SiftingAppender)\n"))},
	{"securerandom", "threaddump.securerandom", synth(4, "worker-", "BLOCKED (on object monitor)",
		"\tat sun.security.provider.NativePRNG$RandomIO.implNextBytes(NativePRNG.java:544)\n\t- waiting to lock <0x00000000c8> (a java.lang.Object)\n"+
			"\tat sun.security.provider.NativePRNG.engineNextBytes(NativePRNG.java:220)\n\tat java.security.SecureRandom.nextBytes(SecureRandom.java:741)\n\tat java.util.UUID.randomUUID(UUID.java:150)\n")},
	{"class loading", "threaddump.classloading", synth(5, "worker-", "BLOCKED (on object monitor)",
		"\tat java.lang.ClassLoader.loadClass(ClassLoader.java:398)\n\t- waiting to lock <0x00000000c9> (a java.lang.Object)\n"+
			"\tat org.apache.catalina.loader.WebappClassLoaderBase.loadClass(WebappClassLoaderBase.java:1258)\n\tat java.lang.Class.forName0(Native Method)\n\tat java.lang.Class.forName(Class.java:375)\n\tat com.example.Codec.create(Codec.java:12)\n")},
	{"socket read", "threaddump.wait.downstream", synth(6, "http-nio-8080-exec-", "RUNNABLE",
		"\tat sun.nio.ch.Net.poll(Native Method)\n\tat sun.nio.ch.NioSocketImpl.park(NioSocketImpl.java:181)\n\tat sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:285)\n"+
			"\tat sun.nio.ch.NioSocketImpl.implRead(NioSocketImpl.java:309)\n\tat java.net.Socket$SocketInputStream.read(Socket.java:966)\n"+
			"\tat com.mysql.cj.protocol.ReadAheadInputStream.fill(ReadAheadInputStream.java:107)\n\tat com.mysql.cj.NativeSession.execSQL(NativeSession.java:663)\n\tat com.example.OrderDao.find(OrderDao.java:40)\n")},
}

func TestFingerprintsSynthetic(t *testing.T) {
	for _, tc := range synthCases {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := ParseText(strings.NewReader(tc.dump))
			if err != nil {
				t.Fatal(err)
			}
			r := Analyze(ds[0])
			c := findCulprit(r, tc.want)
			if c == nil {
				t.Fatalf("no %s; culprits %v", tc.want, culpritIDs(r))
			}
			if len(r.Culprits) != 1 {
				t.Errorf("culprits %v, want only %s", culpritIDs(r), tc.want)
			}
			if r.Idle != 0 {
				t.Errorf("%d threads waiting on a known resource counted idle", r.Idle)
			}
			if tc.want == "threaddump.wait.downstream" && c.Downstream != "MySQL (JDBC)" {
				t.Errorf("downstream %q", c.Downstream)
			}
			if tc.name == "logback sifting" && (c.Holder == nil || c.Holder.Name != "holder" || !c.HolderConfirmed) {
				t.Errorf("holder %+v", c.Holder)
			}
			for _, f := range Findings(r, "synthetic") {
				if f.ID == tc.want && (f.Observed.EN == "" || f.Observed.ZH == "") {
					t.Errorf("finding without observed text")
				}
			}
		})
	}
}

// Idle pool threads are recognised in the corpus dumps and never include
// threads that wait for a lock.
func TestIdleRecognition(t *testing.T) {
	r := Analyze(parseFixture(t, "tda_java8dump.log")[0])
	idle := map[string]bool{}
	for _, th := range r.Dump.Threads {
		if r.IsIdle(th) {
			idle[th.Name] = true
		}
	}
	// Thread-2 is TDA's MemoryStatusUpdater.run sleeping between rounds: a
	// background loop of its own, waiting for time, not for a resource.
	for _, n := range []string{"TimerQueue", "Timer-0", "AWT-EventQueue-0", "Finalizer", "Reference Handler", "Thread-2"} {
		if !idle[n] {
			t.Errorf("%q not idle (idle: %v)", n, idle)
		}
	}
}

func TestAnalyzeAllFixturesNoPanic(t *testing.T) {
	ents, _ := os.ReadDir("testdata")
	names := []string{}
	for _, e := range ents {
		if !e.IsDir() && e.Name() != "README.md" {
			names = append(names, e.Name())
		}
	}
	for _, n := range names {
		for _, d := range parseFixture(t, n) {
			r := Analyze(d)
			if r.Java+r.VMInternal+r.Unknown != r.Threads {
				t.Errorf("%s: java %d + vm %d + unknown %d != %d", n, r.Java, r.VMInternal, r.Unknown, r.Threads)
			}
			if r.BlockedWaitingShare < 0 || r.BlockedWaitingShare > 1 {
				t.Errorf("%s: share %v", n, r.BlockedWaitingShare)
			}
			for _, f := range Findings(r, n) {
				if f.ID == "" || f.Title.EN == "" || f.Title.ZH == "" {
					t.Errorf("%s: incomplete finding %+v", n, f)
				}
			}
		}
	}
}

// Tomcat's main thread sleeps in StandardServer.await until shutdown: it is
// idle, so it never counts as blocked or stuck.
func TestTomcatMainThreadIsIdle(t *testing.T) {
	const dump = `2026-11-22 01:01:20
Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

"main" #1 prio=5 os_prio=0 cpu=512.33ms elapsed=12.01s tid=0x00007f0c38024eb0 nid=0x7610 waiting on condition  [0x00007f0c3e1fe000]
   java.lang.Thread.State: TIMED_WAITING (sleeping)
	at java.lang.Thread.sleep(java.base@17.0.15/Native Method)
	at org.apache.catalina.core.StandardServer.await(StandardServer.java:523)
	at org.apache.catalina.startup.Tomcat.await(Tomcat.java:...)
	at com.example.zoo.Main.main(Main.java:88)

`
	ds, err := ParseText(strings.NewReader(dump + dump))
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(ds[0])
	if r.Idle != 1 || r.Waiting != 0 {
		t.Errorf("main in StandardServer.await: idle %d, waiting %d; want 1 and 0", r.Idle, r.Waiting)
	}
	if s := AnalyzeSeries(ds); len(s.Stuck) != 0 {
		t.Errorf("idle main thread reported stuck: %+v", s.Stuck[0].Name)
	}
}

// A real dump of the zoo's cpu-hot scenario under load (Tomcat 10, JDK 17):
// 20 idle workers park on the task queue's own ReentrantLock inside getTask.
// They wait for work, not for a resource: no application-lock culprit.
func TestIdleWorkersOnTaskQueueLockAreNotContention(t *testing.T) {
	f, err := os.Open("testdata/jdk17_tomcat_cpuhot_taskqueue_jcmd.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := Parse("cpuhot", f)
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(ds[0])
	for _, c := range r.Culprits {
		if c.ID == "threaddump.lock.app" {
			t.Errorf("idle workers reported as lock contention on %s (%d threads)", c.Lock.Ref.Class, len(c.Threads))
		}
	}
	if r.Idle < 10 {
		t.Errorf("only %d idle threads recognised", r.Idle)
	}
}
