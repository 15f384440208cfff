package mechanism

// I/O and the network: request threads that wait for the disk's flush, a
// name lookup, a new connection, or TCP's timers.
func ioEntries() []Entry {
	return []Entry{
		{
			ID: "mech.io.fsync", Family: IO,
			Name: T("Request threads fsync the disk themselves", "请求线程亲自对磁盘执行 fsync"),
			Mechanism: T("FileChannel.force, FileDescriptor.sync (and files opened with SYNC/DSYNC) wait until the device has the data: milliseconds on an SSD, tens on a disk or a network volume; every request that forces its own write waits that long, and concurrent fsyncs on one file system queue in the journal.",
				"FileChannel.force、FileDescriptor.sync（以及以 SYNC/DSYNC 打开的文件）要等到设备真正保存数据：SSD 上是毫秒级，磁盘或网络卷上是数十毫秒；每个自己刷盘的请求都要等这么久，同一文件系统上的并发 fsync 还会在日志中排队。"),
			Tradeoff: T("Group commit (one fsync for a batch) answers a request only after its batch is durable, adding up to one batch interval; dropping the fsync loses the acknowledged writes on a power loss.",
				"组提交（一批只做一次 fsync）在其批次持久化后才应答，会增加最多一个批次间隔的延迟；去掉 fsync 会在掉电时丢失已确认的写入。"),
			Sig: Signature{States: []State{File, Running, Blocked, Parked}, Frames: []string{"sun.nio.ch.FileChannelImpl.force", "sun.nio.ch.FileDispatcherImpl.force",
				"sun.nio.ch.UnixFileDispatcherImpl.force", "java.io.FileDescriptor.sync", "java.nio.MappedByteBuffer.force", "java.nio.MappedMemoryUtils.force"}},
			Fixes: []Fix{{Do: T("Group commit at the code line: append the request's record, let one writer thread force the file once per batch (every few milliseconds or N records) and complete the waiting requests after it; or, where losing the last writes on a crash is acceptable, force on a timer instead of per request.",
				"在该代码行采用组提交：追加请求的记录，由一个写线程每批（每隔几毫秒或每 N 条）对文件执行一次 force，之后再完成等待中的请求；若可以接受崩溃时丢失最后的写入，则改为定时刷盘而不是每个请求刷盘。")}},
			References: []string{"FileChannel.force API docs (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/nio/channels/FileChannel.html)",
				"fsync(2) man page (man7.org/linux/man-pages/man2/fsync.2.html)", "JMC rule FileForce (jdk.FileForce, info 50 ms; openjdk/jmc)"},
		},
		{
			ID: "mech.net.delayed-ack", Family: IO,
			Name: T("Nagle's algorithm meets delayed ACK: responses wait for TCP's timer", "Nagle 算法遇上延迟确认：响应在等待 TCP 定时器"),
			Mechanism: T("A response (or request) written in two small segments leaves the second one held by Nagle's algorithm until the first is acknowledged, while the peer delays its ACK (40 ms on Linux, up to 200 ms elsewhere) waiting for more data: the exchange takes a timer's length although no thread is busy.",
				"响应（或请求）被分成两个小报文段写出时，Nagle 算法会扣住第二段直到第一段被确认，而对端为了等更多数据会延迟 ACK（Linux 上 40 ms，其他系统最长 200 ms）：虽然没有线程在忙，一次交互却要花掉一个定时器的时长。"),
			Tradeoff: T("TCP_NODELAY sends more small packets when the application writes in small pieces: write each message in one buffer as well.",
				"应用以小块写出时，TCP_NODELAY 会发送更多小包：同时应把每条消息放在一个缓冲区中一次写出。"),
			Sig: Signature{Needs: []Need{{Fact: "finding.run.net.delayed-ack", Min: 1}}, Score: "finding.run.net.delayed-ack", Scale: 1},
			Fixes: []Fix{
				{Framework: "tomcat", Do: T("Tomcat sets TCP_NODELAY by default (tcpNoDelay=\"true\" on the Connector): check it was not turned off, and set it on the HTTP or database client whose connection shows the wait.",
					"Tomcat 默认开启 TCP_NODELAY（Connector 的 tcpNoDelay=\"true\"）：检查是否被关闭，并在出现等待的 HTTP 或数据库客户端连接上开启它。"),
					Apply: "<Connector ... tcpNoDelay=\"true\"/>"},
				{Framework: "jdk-httpserver", Do: T("The JDK's HttpServer (com.sun.net.httpserver) leaves Nagle on and writes the headers and the body apart: start the JVM with -Dsun.net.httpserver.nodelay=true (read once, at the server's start).",
					"JDK 自带的 HttpServer（com.sun.net.httpserver）默认不关闭 Nagle，且响应头与响应体分开写出：用 -Dsun.net.httpserver.nodelay=true 启动 JVM（服务器启动时读取一次）。"),
					Apply: "-Dsun.net.httpserver.nodelay=true", Revert: "(remove -Dsun.net.httpserver.nodelay)"},
				{Framework: "netty", Do: T("Set ChannelOption.TCP_NODELAY true on the bootstrap (childOption for servers) and flush each message once.",
					"在 bootstrap 上设置 ChannelOption.TCP_NODELAY 为 true（服务端用 childOption），每条消息只 flush 一次。"),
					Apply: ".childOption(ChannelOption.TCP_NODELAY, true)"},
				{Do: T("Set TCP_NODELAY on the socket that carries the slow exchange (socket.setTcpNoDelay(true), or the client's option) and write each request or response with one write (a BufferedOutputStream flushed once).",
					"在承载慢交互的 socket 上设置 TCP_NODELAY（socket.setTcpNoDelay(true) 或客户端的相应选项），并把每个请求或响应用一次写入发出（BufferedOutputStream 只 flush 一次）。"),
					Apply: "socket.setTcpNoDelay(true);", Revert: "socket.setTcpNoDelay(false);"},
			},
			References: []string{"RFC 896 Congestion Control in IP/TCP Internetworks (Nagle) and RFC 1122 section 4.2.3.2 When to Send an ACK Segment (rfc-editor.org)",
				"tcp(7) man page: TCP_NODELAY, TCP_QUICKACK (man7.org/linux/man-pages/man7/tcp.7.html)",
				"JDK HttpServer system properties: sun.net.httpserver.nodelay (jdk.httpserver module, sun.net.httpserver.ServerConfig)"},
		},
		{
			ID: "mech.net.dns", Family: IO,
			Name: T("DNS lookups on the request path", "请求路径上的 DNS 解析"),
			Mechanism: T("InetAddress.getByName/getAllByName resolves through the system resolver (a blocking native call) when the JVM's cache has no entry: with networkaddress.cache.ttl short, negative answers not cached, a slow resolver or a name per request (new clients, reverse lookups via getHostName), requests wait for DNS, and concurrent lookups of one name queue behind each other.",
				"InetAddress.getByName/getAllByName 在 JVM 缓存中没有条目时会通过系统解析器解析（一次阻塞的本地调用）：若 networkaddress.cache.ttl 很短、否定应答不缓存、解析器很慢或每个请求都解析一次名字（新建客户端、通过 getHostName 反向解析），请求就要等待 DNS，并发解析同一个名字时还会相互排队。"),
			Tradeoff: T("A longer cache TTL keeps using an old address after a DNS change (failover, blue-green): keep it at or below the records' TTL.",
				"更长的缓存 TTL 会在 DNS 变更（故障切换、蓝绿发布）后继续使用旧地址：应不超过记录的 TTL。"),
			Sig: Signature{Frames: dnsFrames},
			Fixes: []Fix{{Do: T("Resolve once and reuse the client (one pooled client per target, not one per request), avoid reverse lookups (InetAddress.getHostName, getCanonicalHostName) on the request path, set networkaddress.cache.ttl (java.security, or -Dsun.net.inetaddr.ttl) to the records' TTL, and make the resolver fast (a local caching resolver, options timeout in resolv.conf).",
				"只解析一次并复用客户端（每个目标一个池化客户端，而不是每个请求一个），避免在请求路径上反向解析（InetAddress.getHostName、getCanonicalHostName），把 networkaddress.cache.ttl（java.security，或 -Dsun.net.inetaddr.ttl）设为记录的 TTL，并让解析器更快（本地缓存解析器、resolv.conf 中的 options timeout）。"),
				Apply: "-Dsun.net.inetaddr.ttl=60", Revert: "(remove -Dsun.net.inetaddr.ttl)"}},
			References: []string{"Java Networking Properties: networkaddress.cache.ttl, networkaddress.cache.negative.ttl (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/net/doc-files/net-properties.html)",
				"java.net.InetAddress API docs: InetAddress Caching (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/net/InetAddress.html)"},
		},
		{
			ID: "mech.net.connect-per-request", Family: IO,
			Name: T("A new connection per request: request threads wait in connect", "每个请求新建连接：请求线程在 connect 中等待"),
			Mechanism: T("Opening a TCP connection costs a round trip (plus a TLS handshake: one or two more, and CPU) before the first byte is sent; a client created per request, a pool that keeps nothing (keep-alive off, idle timeout shorter than the gap between calls) or Connection: close pays it on every call, and bursts of connects fill the peer's accept queue and the local ephemeral ports (TIME_WAIT).",
				"建立 TCP 连接在发送第一个字节之前需要一次往返（TLS 握手还要再多一到两次往返并消耗 CPU）；每个请求新建客户端、连接池不保留连接（关闭 keep-alive、空闲超时短于调用间隔）或 Connection: close，都会让每次调用都付出这个代价，集中的建连还会填满对端的 accept 队列并耗尽本地临时端口（TIME_WAIT）。"),
			Tradeoff: T("Kept-alive connections hold file descriptors and can go stale (closed by a middlebox): validate them after inactivity and evict idle ones before the peer's timeout.",
				"保持的长连接会占用文件描述符，并可能失效（被中间设备关闭）：空闲一段时间后应校验，并在对端超时前清理空闲连接。"),
			Sig: Signature{Frames: connectFrames, NotFrames: dnsFrames},
			Fixes: []Fix{{Do: T("Create the client once and share it (one Apache HttpClient/OkHttpClient/java.net.http.HttpClient per application, a JDBC pool instead of DriverManager.getConnection per request), keep connections alive (no Connection: close) with an idle timeout longer than the gap between calls, and reuse TLS sessions.",
				"只创建一次客户端并共享（每个应用一个 Apache HttpClient/OkHttpClient/java.net.http.HttpClient，用 JDBC 连接池代替每个请求调用 DriverManager.getConnection），保持长连接（不要 Connection: close），空闲超时长于调用间隔，并复用 TLS 会话。")}},
			References: []string{"Apache HttpClient tutorial, Connection management: connection persistence and pooling (hc.apache.org)",
				"RFC 9112 HTTP/1.1, section 9.3 Persistence (rfc-editor.org)"},
		},
	}
}

// dnsFrames are name lookups.
var dnsFrames = []string{"java.net.Inet6AddressImpl.lookupAllHostAddr", "java.net.Inet4AddressImpl.lookupAllHostAddr", "java.net.Inet6AddressImpl.getHostByAddr",
	"java.net.Inet4AddressImpl.getHostByAddr", "java.net.InetAddress$PlatformNameService.", "java.net.InetAddress$PlatformResolver.", "java.net.InetAddress$NameServiceAddresses.get",
	"java.net.InetAddress.getAddressesFromNameService", "java.net.InetAddress.getHostFromNameService", "java.net.InetAddress.getAllByName", "java.net.InetAddress.getByName",
	"java.net.InetAddress.getLocalHost", "java.net.InetAddress.getHostName", "java.net.InetAddress.getCanonicalHostName", "sun.net.spi.nameservice.", "com.sun.jndi.dns."}

// connectFrames are a socket connect (and the HTTP clients' connection
// operators around it).
var connectFrames = []string{"java.net.Socket.connect", "sun.nio.ch.NioSocketImpl.connect", "sun.nio.ch.NioSocketImpl.timedFinishConnect", "sun.nio.ch.SocketChannelImpl.connect",
	"sun.nio.ch.SocketChannelImpl.finishConnect", "sun.nio.ch.Net.connect", "java.net.PlainSocketImpl.socketConnect", "java.net.AbstractPlainSocketImpl.connect",
	"org.apache.http.impl.conn.DefaultHttpClientConnectionOperator.connect", "org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator.connect",
	"okhttp3.internal.connection.RealConnection.connect", "sun.net.NetworkClient.doConnect", "java.sql.DriverManager.getConnection"}

// Host: the machine, not the JVM, takes the time.
func hostEntries() []Entry {
	return []Entry{
		{
			ID: "mech.host.softirq", Family: Host,
			Name: T("Network interrupts concentrated on few CPUs", "网络中断集中在少数 CPU 上"),
			Mechanism: T("The NIC's receive queues (or its single queue) interrupt one or two CPUs, whose softirq time then serves every packet of the host: those CPUs saturate while the others idle, and the threads scheduled there wait behind the packet processing.",
				"网卡的接收队列（或唯一的队列）只中断一两个 CPU，这些 CPU 的软中断时间要处理整台主机的所有数据包：它们饱和而其他 CPU 空闲，被调度到这些 CPU 上的线程要排在数据包处理之后。"),
			Tradeoff: T("Spreading interrupts (RSS queues, RPS) moves packet processing onto CPUs the application used; irqbalance may undo manual affinity.",
				"分散中断（RSS 多队列、RPS）会把数据包处理移到应用使用的 CPU 上；irqbalance 可能会覆盖手动设置的亲和性。"),
			Sig: Signature{Needs: []Need{{Fact: "finding.run.irq.softirq-concentrated", Min: 1}}, Score: "finding.run.irq.softirq-concentrated", Scale: 1},
			Fixes: []Fix{{Do: T("Spread the NIC's interrupts: enable more RSS queues (ethtool -L <dev> combined <n>), or RPS in software (echo <cpu mask> > /sys/class/net/<dev>/queues/rx-<q>/rps_cpus), and check irqbalance runs; the run's host finding lists the queues and IRQs.",
				"分散网卡中断：启用更多 RSS 队列（ethtool -L <dev> combined <n>），或用软件 RPS（echo <cpu mask> > /sys/class/net/<dev>/queues/rx-<q>/rps_cpus），并确认 irqbalance 在运行；本次运行的主机发现列出了队列与 IRQ。"),
				Apply: "echo ff > /sys/class/net/eth0/queues/rx-0/rps_cpus", Revert: "echo 0 > /sys/class/net/eth0/queues/rx-0/rps_cpus"}},
			References: []string{"Linux kernel documentation: Scaling in the Linux Networking Stack (RSS, RPS, RFS) (docs.kernel.org/networking/scaling.html)"},
		},
		{
			ID: "mech.host.cpu-others", Family: Host,
			Name: T("Other processes take the CPUs the service needs", "其他进程占用了服务所需的 CPU"),
			Mechanism: T("The host's CPUs are saturated but the service used only a small part of them: other processes (or, with steal time, other virtual machines) run in its place, so its threads wait in the run queue and every request takes longer though its code did not change.",
				"主机的 CPU 已饱和，但服务只用了其中一小部分：其他进程（有 steal 时间时则是其他虚拟机）占用了 CPU，服务的线程在运行队列中等待，代码没变但每个请求都更慢。"),
			Tradeoff: T("Limiting the other processes (cgroups, nice) slows them down; dedicated CPUs (cpusets, a larger instance) cost capacity.",
				"限制其他进程（cgroups、nice）会使它们变慢；独占 CPU（cpuset、更大的实例）需要更多资源。"),
			// Others' CPU costs the service only the time its threads want a
			// CPU: scored by the request threads' running (runnable) share.
			Sig: Signature{Needs: []Need{{Fact: "finding.run.cpu.others", Min: 1}}, States: []State{Running}, OfWall: true},
			Fixes: []Fix{{Do: T("Find the other processes (top, pidstat -u 1) and move them off this host or limit them (systemd CPUQuota=, nice, a cgroup cpu.max), or give the service CPUs of its own (a cpuset, a dedicated node or a larger instance); measure the service again on a quiet host before changing its code.",
				"找出其他进程（top、pidstat -u 1），把它们移出本机或加以限制（systemd CPUQuota=、nice、cgroup cpu.max），或为服务分配专用 CPU（cpuset、专用节点或更大的实例）；在改代码之前先在安静的主机上重新测量服务。"),
				Apply: "systemctl set-property <other.service> CPUQuota=50%", Revert: "systemctl set-property <other.service> CPUQuota="}},
			References: []string{"Linux kernel documentation: Control Group v2, cpu.max and cpuset (docs.kernel.org/admin-guide/cgroup-v2.html)", "pidstat(1) man page (sysstat)", "JMC rule Competing CPU Ratio Usage (CompareCpu: other processes' CPU, info 20%, warning 40%; openjdk/jmc)"},
		},
	}
}
