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
				// Logging and console writes under their own locks are the logging entries'.
				NotFrames: []string{"ch.qos.logback.", "org.apache.logging.log4j.", "org.apache.log4j.", "java.util.logging.", "java.io.PrintStream."}},
			Fixes: []Fix{{Do: T("Move the I/O out of the critical section at the code line: append under the lock and write/fsync outside it, or group commit (one thread fsyncs what was appended and wakes the waiters); for a remote call, call first and take the lock only to publish the result.",
				"把该代码行临界区内的 I/O 移出：锁内只追加，锁外写入/fsync，或采用组提交（一个线程对已追加的数据 fsync 并唤醒等待者）；远程调用应先调用，只在发布结果时加锁。")}},
			References: []string{refJLSLocks, "FileChannel.force API docs (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/nio/channels/FileChannel.html)"},
		},
		{
			ID: "mech.lock.deadlock", Family: Lock,
			Name: T("Deadlock: threads hold locks each other wait for, forever", "死锁：线程互相持有对方等待的锁，永远等待"),
			Mechanism: T("Two or more threads each hold a lock (a monitor or a j.u.c lock) and wait for one another's; none can proceed, and every request that needs any of those locks queues behind them until the JVM is restarted.",
				"两个或更多线程各自持有一把锁（监视器或 j.u.c 锁）并等待对方的锁；谁都无法继续，所有需要这些锁的请求都排在它们后面，直到 JVM 重启。"),
			Tradeoff: T("A global lock order or a tryLock with timeout changes the code's locking; until it ships, only a restart frees the threads (and the deadlock returns under the same interleaving).",
				"全局加锁顺序或带超时的 tryLock 会改变代码的加锁方式；在修复上线前只有重启能释放这些线程（相同的交错下死锁会再次出现）。"),
			// The dump's deadlock report is the proof; the blocked request time says how much of the service it holds.
			Sig: Signature{Needs: []Need{{Fact: "deadlock", Min: 1}}, States: []State{Blocked, Parked, Waiting}, MinShare: 0.01},
			Fixes: []Fix{{Do: T("Take the locks in one global order everywhere (for two accounts: by id, lower first), or use tryLock(timeout) on the second lock and back off; restart the JVM to free the threads stuck now (the dump's \"Found one Java-level deadlock\" section names the cycle).",
				"在所有地方按同一个全局顺序加锁（两个账户：按 id，小的先加），或对第二把锁使用 tryLock(timeout) 并退避；重启 JVM 以释放当前卡住的线程（转储中 \"Found one Java-level deadlock\" 一节给出了环）。")}},
			References: []string{refJLSLocks, "java.lang.management.ThreadMXBean.findDeadlockedThreads API docs (docs.oracle.com/en/java/javase/21/docs/api/java.management)"},
		},
		{
			ID: "mech.lock.sync-collection", Family: Lock,
			Name: T("A synchronized collection shared by the request threads", "请求线程共用一个同步集合"),
			Mechanism: T("Hashtable, Vector, Stack, StringBuffer and the Collections.synchronized* wrappers lock the whole collection on every call, reads included: a map or buffer shared by all requests (a cache, a registry, a shared StringBuffer) lets one thread in at a time, and an access-ordered LinkedHashMap inside one turns every get into a write.",
				"Hashtable、Vector、Stack、StringBuffer 以及 Collections.synchronized* 包装器在每次调用（包括读）时都锁住整个集合：被所有请求共用的 Map 或缓冲区（缓存、注册表、共享的 StringBuffer）一次只允许一个线程进入，而包在其中的按访问排序的 LinkedHashMap 会让每次 get 都变成写操作。"),
			Tradeoff: T("ConcurrentHashMap does not lock readers but its compound actions are not atomic unless written with compute/merge; iteration over it is weakly consistent, not a snapshot.",
				"ConcurrentHashMap 读操作不加锁，但复合操作需用 compute/merge 才是原子的；对它的遍历是弱一致的，而不是快照。"),
			Sig: Signature{States: []State{Blocked}, Locks: []string{"java.util.Collections$Synchronized", "java.util.Hashtable", "java.util.Vector", "java.util.Properties",
				"java.lang.StringBuffer", "java.util.Stack"}},
			Fixes: []Fix{{Do: T("Replace the collection at the code line: ConcurrentHashMap for Hashtable/synchronizedMap (computeIfAbsent for load-if-missing), a bounded concurrent cache (Caffeine) for an access-ordered LinkedHashMap LRU, CopyOnWriteArrayList or a per-request list for Vector, a local StringBuilder for a shared StringBuffer.",
				"替换该代码行的集合：Hashtable/synchronizedMap 换成 ConcurrentHashMap（缺失时加载用 computeIfAbsent），按访问排序的 LinkedHashMap LRU 换成有界并发缓存（Caffeine），Vector 换成 CopyOnWriteArrayList 或每请求一个列表，共享的 StringBuffer 换成局部 StringBuilder。")}},
			References: []string{"java.util.Collections.synchronizedMap and java.util.concurrent.ConcurrentHashMap API docs (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/Collections.html)",
				"Caffeine: a high performance caching library (github.com/ben-manes/caffeine)", refJLSLocks},
		},
		{
			ID: "mech.lock.shared-random", Family: Lock,
			Name: T("One java.util.Random shared by the request threads", "请求线程共用一个 java.util.Random"),
			Mechanism: T("java.util.Random (and Math.random, which uses one static Random) advances its seed with a compare-and-set loop: threads drawing from the same instance at once retry the update, so the CPUs spin in Random.next while the work does not advance.",
				"java.util.Random（以及使用同一个静态 Random 的 Math.random）通过比较并交换循环推进种子：多个线程同时从同一实例取数时会反复重试更新，CPU 在 Random.next 中空转而工作没有进展。"),
			Tradeoff: T("ThreadLocalRandom is not for security (neither is Random): use SecureRandom for tokens and keys.",
				"ThreadLocalRandom 不适用于安全用途（Random 同样不适用）：令牌与密钥请使用 SecureRandom。"),
			Sig: Signature{States: []State{Running}, Frames: randomFrames},
			Fixes: []Fix{{Do: T("At the code line use ThreadLocalRandom.current() instead of a shared Random or Math.random (or one SplittableRandom per thread).",
				"在该代码行用 ThreadLocalRandom.current() 代替共享的 Random 或 Math.random（或每个线程一个 SplittableRandom）。"),
				Apply: "java.util.concurrent.ThreadLocalRandom.current().nextInt(bound)"}},
			References: []string{"java.util.Random API docs: \"Instances of java.util.Random are threadsafe. However, the concurrent use of the same java.util.Random instance across threads may encounter contention\" (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/Random.html)"},
		},
		{
			ID: "mech.lock.securerandom", Family: Lock,
			Name: T("One SecureRandom shared by the request threads (or waiting for entropy)", "请求线程共用一个 SecureRandom（或在等待熵）"),
			Mechanism: T("A SecureRandom's nextBytes is synchronized (NativePRNG takes a lock to read /dev/urandom and another to mix in SHA1PRNG; DRBG locks its state), so one shared instance serialises every request that draws from it; seeding from /dev/random (SeedGenerator, securerandom.source, getInstanceStrong) can block until the kernel has entropy.",
				"SecureRandom 的 nextBytes 是同步的（NativePRNG 读取 /dev/urandom 要一把锁，混入 SHA1PRNG 又要一把锁；DRBG 锁住其状态），因此共享的实例会让每个从中取数的请求串行；从 /dev/random 取种子（SeedGenerator、securerandom.source、getInstanceStrong）可能阻塞到内核有足够的熵为止。"),
			Tradeoff: T("Per-thread instances are each seeded (one more seed read per thread); the non-blocking source must still be a cryptographic one (/dev/urandom is).",
				"每个线程的实例都要单独取种子（每线程多一次种子读取）；非阻塞来源仍必须是密码学安全的（/dev/urandom 是）。"),
			Sig: Signature{States: []State{Blocked, Parked, Waiting, File}, Frames: secureRandomFrames},
			Fixes: []Fix{{Do: T("Give each thread its own SecureRandom (a ThreadLocal<SecureRandom>) or use the DRBG or NativePRNGNonBlocking algorithm instead of sharing one instance; never call SecureRandom.getInstanceStrong on the request path; seed from /dev/urandom (securerandom.source=file:/dev/urandom in java.security, or -Djava.security.egd=file:/dev/./urandom on JDK 8).",
				"每个线程使用自己的 SecureRandom（ThreadLocal<SecureRandom>），或使用 DRBG、NativePRNGNonBlocking 算法，而不是共享一个实例；不要在请求路径上调用 SecureRandom.getInstanceStrong；从 /dev/urandom 取种子（java.security 中 securerandom.source=file:/dev/urandom，JDK 8 上用 -Djava.security.egd=file:/dev/./urandom）。"),
				Apply: "-Djava.security.egd=file:/dev/./urandom", Revert: "(remove -Djava.security.egd)"}},
			References: []string{"Java Security Standard Algorithm Names: SecureRandom algorithms NativePRNG, NativePRNGNonBlocking, DRBG (docs.oracle.com/en/java/javase/21/docs/specs/security/standard-names.html)",
				"java.security.SecureRandom API docs: thread safety, getInstanceStrong (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/security/SecureRandom.html)"},
		},
		{
			ID: "mech.lock.app-monitor", Family: Lock, Generic: true,
			Name: T("Request threads queue on an application lock", "请求线程在应用的锁上排队"),
			Mechanism: T("Request threads wait to enter a monitor or take a lock the application holds across its work: the critical section's length over the number of waiters sets the throughput.",
				"请求线程等待进入应用在工作期间持有的监视器或锁：临界区的长度决定了吞吐量。"),
			Tradeoff: T("Narrowing a lock is only safe when what it protected stays consistent: check every access to the shared state.",
				"只有在被保护的状态仍保持一致时缩小锁才是安全的：检查对共享状态的每次访问。"),
			Sig: Signature{States: []State{Blocked, Parked}, MinShare: 0.25, NotFrames: notAppLock, NeedApp: true, AppSite: true},
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
	"org.apache.tomcat.jdbc.pool.", "com.lmax.disruptor.", "io.github.resilience4j.",
}

func init() {
	// The waits other entries name exactly: SecureRandom's locks, class
	// loading, the queues, pools, permits, futures and reactive bridges.
	notAppLock = join(notAppLock, secureRandomFrames, classLoadingFrames, queueFrames, httpPoolFrames, reactiveBlockFrames,
		jdbcPoolFrames, permitFrames, futureFrames)
}

// secureRandomFrames are SecureRandom's generators and seeding.
var secureRandomFrames = []string{"sun.security.provider.SeedGenerator", "sun.security.provider.NativePRNG", "sun.security.provider.SecureRandom.",
	"sun.security.provider.DRBG", "sun.security.provider.AbstractDrbg", "sun.security.provider.HashDrbg", "sun.security.provider.AbstractHashDrbg",
	"sun.security.provider.CtrDrbg", "sun.security.provider.HmacDrbg", "java.security.SecureRandom.nextBytes", "java.security.SecureRandom.generateSeed",
	"java.security.SecureRandom.getInstanceStrong"}

// randomFrames are java.util.Random's draws (Math.random uses one shared Random).
var randomFrames = []string{"java.util.Random.next", "java.lang.Math.random", "java.util.Random.nextInt",
	"java.util.Random.nextLong", "java.util.Random.nextDouble", "java.util.Random.nextBytes", "java.util.Random.nextGaussian"}
