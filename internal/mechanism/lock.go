package mechanism

// Locks: request threads that queue for a monitor or a j.u.c lock; the fix
// depends on what the holder does inside it.
func lockEntries() []Entry {
	return []Entry{
		{
			ID: "mech.lock.class-cpu", Family: Lock,
			Name: T("A class-level lock around CPU work: one thread computes, the others queue", "类级锁包住了 CPU 计算：一个线程计算，其他线程排队"),
			Mechanism: T("A static synchronized method (or synchronized on a Class) lets one thread in at a time for the whole service; the holder computes inside it, so the service uses one CPU for that work however many it has.",
				"static synchronized 方法（或对 Class 加锁）使整个服务同一时刻只允许一个线程进入；持有者在锁内计算，因此无论有多少 CPU，这部分工作只用到一个。"),
			Tradeoff: T("Removing the lock is only safe when the shared state it protected is made thread-safe (immutable, per-thread, or a concurrent structure).",
				"只有把它保护的共享状态改为线程安全（不可变、每线程一份或并发数据结构）后，去掉锁才是安全的。"),
			Sig: Signature{States: []State{Blocked}, Locks: []string{"java.lang.Class"}},
			Fixes: []Fix{{Do: T("Take the computation out of the static synchronized method at the code line: compute on local data outside the lock and keep only the shared-state update inside it (or make the state immutable/ThreadLocal, or a ConcurrentHashMap), so the work runs on every CPU.",
				"把该代码行 static synchronized 方法中的计算移出：在锁外用局部数据计算，锁内只保留共享状态的更新（或改为不可变/ThreadLocal 或 ConcurrentHashMap），使计算能在所有 CPU 上运行。")}},
			References: []string{refJLSLocks},
		},
		{
			ID: "mech.lock.io-under-lock", Family: Lock,
			Name: T("I/O under a lock: the holder writes, reads or fsyncs while the others queue", "锁内 I/O：持有者在写、读或 fsync，其他线程排队"),
			Mechanism: T("The lock's holder does file or socket I/O inside the critical section (an fsync, a write, a remote call): every waiter waits for the device or the network too, one at a time.",
				"锁的持有者在临界区内进行文件或网络 I/O（fsync、写入、远程调用）：每个等待者也依次等待设备或网络。"),
			Tradeoff: T("Group commit changes when a write is durable relative to the answer unless the request waits for its batch's fsync.",
				"组提交会改变写入相对于响应何时持久化，除非请求等待其所在批次的 fsync 完成。"),
			Sig: Signature{States: []State{Blocked, Parked}, HolderFrames: []string{"sun.nio.ch.FileDispatcherImpl.", "sun.nio.ch.UnixFileDispatcherImpl.",
				"sun.nio.ch.FileChannelImpl.", "java.io.FileOutputStream.", "java.io.RandomAccessFile.", "java.io.FileDescriptor.sync",
				"sun.nio.ch.SocketDispatcher.", "sun.nio.ch.NioSocketImpl.", "java.net.SocketInputStream.", "java.net.SocketOutputStream."},
				NotFrames: []string{"ch.qos.logback.", "org.apache.logging.log4j.", "java.util.logging."}},
			Fixes: []Fix{{Do: T("Move the I/O out of the critical section at the code line: append under the lock and write/fsync outside it, or group commit (one thread fsyncs what was appended and wakes the waiters); for a remote call, call first and take the lock only to publish the result.",
				"把该代码行临界区内的 I/O 移出：锁内只追加，锁外写入/fsync，或采用组提交（一个线程对已追加的数据 fsync 并唤醒等待者）；远程调用应先调用，只在发布结果时加锁。")}},
			References: []string{refJLSLocks, "FileChannel.force API docs (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/nio/channels/FileChannel.html)"},
		},
		{
			ID: "mech.lock.app-monitor", Family: Lock, Generic: true,
			Name: T("Request threads queue on an application lock", "请求线程在应用的锁上排队"),
			Mechanism: T("Request threads wait to enter a monitor or take a lock the application holds across its work: the critical section's length over the number of waiters sets the throughput.",
				"请求线程等待进入应用在工作期间持有的监视器或锁：临界区的长度决定了吞吐量。"),
			Tradeoff: T("Narrowing a lock is only safe when what it protected stays consistent: check every access to the shared state.",
				"只有在被保护的状态仍保持一致时缩小锁才是安全的：检查对共享状态的每次访问。"),
			Sig: Signature{States: []State{Blocked, Parked}, MinShare: 0.25, NotFrames: notAppLock},
			Fixes: []Fix{{Do: T("Shorten the critical section at the code line to the shared-state update (compute before taking the lock), split the lock by key (lock striping, ConcurrentHashMap.compute) or replace it with an atomic or concurrent structure.",
				"把该代码行的临界区缩短为只更新共享状态（加锁前先计算），按键拆分锁（锁分段、ConcurrentHashMap.compute），或改用原子变量/并发数据结构。")}},
			References: []string{refJLSLocks, refJMC},
		},
	}
}

// notAppLock are waits that are not an application lock: pools, queues,
// futures, latches, conditions, sleeps and the logging libraries' own
// locks (each has its own entry).
var notAppLock = []string{
	"java.util.concurrent.ThreadPoolExecutor.getTask", "java.util.concurrent.LinkedBlockingQueue.", "java.util.concurrent.ArrayBlockingQueue.",
	"java.util.concurrent.LinkedBlockingDeque.", "java.util.concurrent.SynchronousQueue.", "java.util.concurrent.LinkedTransferQueue.",
	"java.util.concurrent.FutureTask.", "java.util.concurrent.CompletableFuture.", "java.util.concurrent.CountDownLatch.",
	"java.util.concurrent.CyclicBarrier.", "java.util.concurrent.Phaser.", "java.util.concurrent.Semaphore.",
	"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await", "java.lang.Thread.sleep",
	"com.zaxxer.hikari.", "org.apache.commons.pool2.", "org.apache.commons.dbcp2.", "com.mchange.", "com.alibaba.druid.pool.",
	"ch.qos.logback.", "org.apache.logging.log4j.", "org.apache.log4j.", "java.util.logging.",
}
