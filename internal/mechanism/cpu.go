package mechanism

// CPU: request threads that spend their time computing, named by what they
// compute (a regex, a digest, a format) or, failing that, by the hottest
// application method.
func cpuEntries() []Entry {
	run := []State{Running}
	return []Entry{
		{
			ID: "mech.cpu.regex-backtracking", Family: CPU,
			Name: T("Regular-expression matching on the request path (backtracking)", "请求路径上的正则表达式匹配（回溯）"),
			Mechanism: T("java.util.regex matches by backtracking: nested or adjacent quantifiers over overlapping characters ((a+)+, (.*)*, \\s*.*\\s*) try exponentially many splits of a failing input, so a few requests keep the CPUs busy.",
				"java.util.regex 以回溯方式匹配：嵌套或相邻且字符重叠的量词（(a+)+、(.*)*、\\s*.*\\s*）在匹配失败的输入上尝试指数级的拆分，少量请求即可占满 CPU。"),
			Tradeoff: T("A rewritten pattern must accept the same inputs: test it on the production inputs; a length limit rejects long inputs that used to pass.",
				"改写后的正则必须接受相同的输入：用生产输入测试；长度限制会拒绝原先能通过的长输入。"),
			Sig: Signature{States: run, Frames: []string{"java.util.regex.Pattern$", "java.util.regex.Matcher."},
				NotFrames: []string{"java.util.regex.Pattern.compile", "java.util.regex.Pattern.<init>"}},
			Fixes: []Fix{{Do: T("Rewrite the pattern at the code line so no two quantifiers can match the same characters (possessive quantifiers a++ or atomic groups (?>...)), anchor it, bound the input length before matching, and compile it once into a static final Pattern.",
				"改写该代码行的正则，使两个量词不能匹配相同字符（占有量词 a++ 或原子组 (?>...)），加上锚点，匹配前限制输入长度，并只编译一次存为 static final Pattern。")}},
			References: []string{refPattern},
		},
		{
			ID: "mech.cpu.regex-compile", Family: CPU,
			Name: T("Regular expressions compiled on every request", "每个请求都编译正则表达式"),
			Mechanism: T("Pattern.compile (also inside String.matches, replaceAll, split with a regex) builds the matcher's node graph each call: CPU and garbage for a result that never changes.",
				"Pattern.compile（String.matches、replaceAll、带正则的 split 内部也会调用）每次都构建匹配节点图：为不变的结果消耗 CPU 并产生垃圾。"),
			Tradeoff: T("None beyond the code change: a compiled Pattern is immutable and thread-safe (a Matcher is not).",
				"除代码修改外无：编译后的 Pattern 不可变且线程安全（Matcher 不是）。"),
			Sig: Signature{States: run, Frames: []string{"java.util.regex.Pattern.compile", "java.util.regex.Pattern.<init>"}},
			Fixes: []Fix{{Do: T("Compile the pattern once (private static final Pattern P = Pattern.compile(...)) and call P.matcher(s) at the code line; replace String.matches/replaceAll/split(regex) there by the precompiled Pattern.",
				"只编译一次（private static final Pattern P = Pattern.compile(...)），在该代码行调用 P.matcher(s)；把那里的 String.matches/replaceAll/split(regex) 换成预编译的 Pattern。")}},
			References: []string{refPattern},
		},
		{
			ID: "mech.cpu.hashing", Family: CPU,
			Name: T("Message digests (hashing) on the request path", "请求路径上的消息摘要（哈希）计算"),
			Mechanism: T("MessageDigest (SHA-*, MD5) costs CPU per byte and per round: iterated hashing or hashing large bodies per request makes the digest the request's cost.",
				"MessageDigest（SHA-*、MD5）按字节和轮次消耗 CPU：每个请求迭代哈希或对大报文做摘要，使摘要成为请求的主要开销。"),
			Tradeoff: T("Caching a digest is only correct while its input is unchanged; fewer rounds of a password hash weaken it (keep password hashing, move it off the hot path or rate-limit it).",
				"缓存摘要仅在输入不变时正确；减少口令哈希的轮数会削弱其安全性（保留口令哈希，移出热路径或限流）。"),
			Sig: Signature{States: run, Frames: []string{"sun.security.provider.DigestBase", "sun.security.provider.SHA", "sun.security.provider.MD5",
				"java.security.MessageDigest", "sun.security.provider.ByteArrayAccess", "org.bouncycastle.crypto.digests.", "com.google.common.hash."}},
			Fixes: []Fix{{Do: T("Hash once and cache by input (or by a cheap key) at the code line, hash fewer bytes or rounds where the protocol allows, and reuse MessageDigest instances per thread (ThreadLocal) instead of MessageDigest.getInstance per call.",
				"在该代码行按输入（或廉价的键）只哈希一次并缓存，在协议允许时减少字节数或轮数，并按线程复用 MessageDigest（ThreadLocal），不要每次调用 MessageDigest.getInstance。")}},
			References: []string{"java.security.MessageDigest API docs (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/security/MessageDigest.html)", refJMC},
		},
		{
			ID: "mech.cpu.app-method", Family: CPU, Generic: true,
			Name: T("CPU-bound request path: the time goes to one application method", "请求路径受 CPU 限制：时间花在一个应用方法上"),
			Mechanism: T("The request threads are running most of the time and the CPU samples gather under one application method: that method's work, not a wait, sets the throughput.",
				"请求线程大部分时间在运行，CPU 采样集中在一个应用方法下：是该方法的计算而不是等待决定了吞吐量。"),
			Tradeoff: T("Caching trades memory and staleness for CPU; more CPUs cost money: remove the work first.",
				"缓存以内存和数据新鲜度换取 CPU；增加 CPU 需要成本：应先去掉不必要的计算。"),
			Sig: Signature{States: run, MinShare: 0.4},
			Fixes: []Fix{{Do: T("Remove or cache the repeated work under this code line; the frames above it (the report's CPU profile, or the running threads of its thread dumps) say which library call costs most.",
				"去掉或缓存该代码行之下重复的计算；其上方的帧（报告的 CPU 剖析，或线程转储中运行的线程）说明哪个库调用最耗时。")}},
			References: []string{refJMC, refJFR},
		},
	}
}
