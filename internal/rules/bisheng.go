package rules

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
)

// isBisheng recognises Huawei's Bisheng JDK from the release file's
// IMPLEMENTOR or the install path (bisheng-jdk1.8.0_342).
func isBisheng(j *sysinfo.JVM) bool {
	s := strings.ToLower(j.Vendor + " " + j.JavaHome + " " + j.Exe + " " + j.Version)
	return strings.Contains(s, "bisheng") || strings.Contains(s, "huawei")
}

// bishengRules: Bisheng JDK on Kunpeng, and the Bisheng-only features its
// documentation names.
func bishengRules() []Rule {
	refs := []string{"Bisheng JDK documentation (gitee.com/openeuler/bishengjdk-8)", "Bisheng JDK 8 wiki: fast serialization (-XX:+UseFastSerializer), G1 heap uncommit (-XX:+G1Uncommit)", "hikunpeng.com: Bisheng JDK download"}
	return []Rule{
		{
			ID: "jvm.jdk.bisheng-on-kunpeng", Category: "jvm", Severity: info, Arch: "aarch64",
			Reads:      []string{"/proc/cpuinfo (CPU implementer and part)", "the JVM's JAVA_HOME/release (vendor)"},
			Title:      T("JDK choice on Kunpeng", "鲲鹏上的 JDK 选择"),
			Checks:     T("On a Kunpeng host, looks for JVMs that are not Bisheng JDK, which carries aarch64-specific optimisations.", "在鲲鹏主机上检查 JVM 是否为毕昇 JDK（含针对 aarch64 的优化）。"),
			Why:        T("Bisheng JDK is OpenJDK with Kunpeng-specific JIT and GC improvements; a carrier's load test on Kunpeng measured +24.56% throughput and 7% lower latency just by switching a Java service to it.", "毕昇 JDK 是针对鲲鹏优化了 JIT 与 GC 的 OpenJDK 发行版；某运营商在鲲鹏上压测，仅切换 JDK 即获得吞吐 +24.56%、时延 -7%。"),
			Risk:       T("A JDK change needs a full regression and load test; keep the same major version (8 -> Bisheng 8, 17 -> Bisheng 17).", "更换 JDK 需做完整回归与压测；保持相同大版本（8 换毕昇 8，17 换毕昇 17）。"),
			Workload:   T("Java services on Kunpeng (ARM64) servers.", "运行在鲲鹏（ARM64）服务器上的 Java 服务。"),
			References: refs,
			Eval:       evalJvmJdkBishengOnKunpeng,
		},
		{
			ID: "jvm.bisheng.features", Category: "jvm", Severity: info,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("Bisheng JDK features", "毕昇 JDK 特性"),
			Checks:     T("On Bisheng JDK with G1 and -Xms below -Xmx, looks for -XX:+G1Uncommit; otherwise lists the Bisheng-only options worth an A/B test.", "在使用 G1 且 -Xms 小于 -Xmx 的毕昇 JDK 上检查 -XX:+G1Uncommit；否则列出值得对比测试的毕昇特有参数。"),
			Why:        T("With -Xms < -Xmx the heap grows under load and, on stock JDK 8, never shrinks back; Bisheng's G1Uncommit returns idle heap to the OS. UseFastSerializer speeds up Java serialization when readObject/writeObject are hot in the flame graph.", "-Xms 小于 -Xmx 时堆在负载下扩张，原生 JDK 8 不会收缩；毕昇的 G1Uncommit 可把空闲堆归还操作系统。火焰图中 readObject/writeObject 为热点时，UseFastSerializer 可加速 Java 序列化。"),
			Risk:       T("Uncommitting and re-committing heap costs some CPU when load swings; FastSerializer only helps serialization-heavy services (a bank's credit-card core system saw no gain).", "负载波动时堆的归还与再申请会消耗少量 CPU；快速序列化只对序列化密集的服务有效（某银行信用卡核心系统实测无明显收益）。"),
			Workload:   T("JVMs on Bisheng JDK.", "运行毕昇 JDK 的 JVM。"),
			References: refs,
			Eval:       evalJvmBishengFeatures,
		},
	}
}

// evalJvmJdkBishengOnKunpeng is the rule jvm.jdk.bisheng-on-kunpeng.
func evalJvmJdkBishengOnKunpeng(c *Ctx) []Outcome {
	if !c.F.CPU.Kunpeng {
		return one(skip(T("not a Kunpeng CPU", "非鲲鹏 CPU")))
	}
	return eachJVMAny(c, func(j *sysinfo.JVM) Outcome {
		e := ev("java", orDefault(strings.TrimSpace(j.Vendor+" "+j.Version), "unknown"), orDefault(j.JavaHome, jvmSource(j)))
		if isBisheng(j) {
			return pass(Tf("Bisheng JDK %s", "毕昇 JDK %s", j.Version), e)
		}
		return advice(Tf("pid %d runs %s on Kunpeng", "pid %d 在鲲鹏上运行 %s", j.PID, orDefault(strings.TrimSpace(j.Vendor+" JDK "+j.Version), "a non-Bisheng JDK")),
			T("A/B test Bisheng JDK of the same major version under the same load (hikunpeng.com JDK download, or the openEuler bisheng-jdk packages)", "在相同负载下对比测试同一大版本的毕昇 JDK（鲲鹏社区下载，或 openEuler 的 bisheng-jdk 软件包）"), e)
	})
}

// evalJvmBishengFeatures is the rule jvm.bisheng.features.
func evalJvmBishengFeatures(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if !isBisheng(j) {
			return skip(T("not Bisheng JDK", "非毕昇 JDK"))
		}
		o := j.Options
		g1 := o.GC == "G1"
		if g1 && o.XmsBytes > 0 && o.XmxBytes > o.XmsBytes && !o.Bools["G1Uncommit"] {
			return fail(Tf("Bisheng JDK with G1, -Xms %s below -Xmx %s, no -XX:+G1Uncommit", "毕昇 JDK 使用 G1，-Xms %s 小于 -Xmx %s，未开启 -XX:+G1Uncommit", units.FormatJVMSize(o.XmsBytes), units.FormatJVMSize(o.XmxBytes)),
				T("-XX:+G1Uncommit to return idle heap (or -Xms equal to -Xmx when memory is not scarce)", "-XX:+G1Uncommit 归还空闲堆（内存不紧张时也可令 -Xms 等于 -Xmx）"),
				jvmFlagFix(j.PID, "-XX:+G1Uncommit", ""), optsEv(j, "gc", "G1"), optsEv(j, "G1Uncommit", "absent"))
		}
		return pass(T("Bisheng JDK; -XX:+UseFastSerializer is worth an A/B test if serialization is hot", "毕昇 JDK；若序列化为热点，可对比测试 -XX:+UseFastSerializer"), optsEv(j, "vendor", orDefault(j.Vendor, "Bisheng")))
	})
}
