package porting

import (
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// Judged is one component the scan judged, what its kind's rule reads: the
// verdict reached (by matching the known-library table, the ELF headers,
// the JVM options), with its headline, evidence and fix.
type Judged struct {
	Kind, Component string
	Verdict         Verdict
	Title           finding.Text
	Evidence        []finding.Evidence
	Fix             finding.Fix
	References      []string
}

var (
	portingRisk = finding.T("None from the scan (it changes nothing); a fix is a rebuild or a dependency change, to retest on the target.",
		"扫描本身无风险（不做任何修改）；修复需要重新构建或更换依赖，并在目标平台回归测试。")
	toArm64 = finding.T("Java services moving to another CPU architecture (x86_64 to aarch64)", "迁移到其他 CPU 架构的 Java 服务（x86_64 到 aarch64）")
	armJava = "https://learn.arm.com/learning-paths/servers-and-cloud-computing/migration/"
)

// Rules is the porting scan's rule set, one rule per kind of component;
// the judging (which library, which builds it ships) is the scan's, the
// rule turns its verdict into the finding.
func Rules() []finding.Rule[*Judged] {
	rule := func(kind string, sev finding.Severity, title, checks finding.Text, reads []string, refs ...string) finding.Rule[*Judged] {
		return finding.Rule[*Judged]{ID: "porting." + kind, Category: "porting", Severity: sev, Title: title, Checks: checks,
			Why: whyText(kind, Blocker), Risk: portingRisk, Workload: toArm64, Reads: reads, References: append(refs, armJava), Eval: evalJudged}
	}
	return []finding.Rule[*Judged]{
		rule("library", finding.Critical, finding.T("A known library's native code for the target", "已知库在目标平台上的原生代码"),
			finding.T("A jar of a known library (identified by its Maven coordinates or classes) ships the target's native build, at a version that has one, with its side jar when the natives come apart; a library without natives for the target is a blocker, an old version an upgrade.", "已知库的 jar（按 Maven 坐标或类识别）是否带有目标平台的原生构建、版本是否已支持、原生代码分离时是否带有其附属 jar；没有目标平台原生代码为阻断，版本过旧为需升级。"),
			[]string{"jar manifests and pom.properties", "the natives in jars (ELF headers)", "the known-library table"}, "https://github.com/aws/porting-advisor-for-graviton"),
		rule("native", finding.Critical, finding.T("Native code without a build for the target", "没有目标平台构建的原生代码"),
			finding.T("A jar or a loose file ships native libraries (ELF) with no build for the target architecture, or a corrupt one.", "jar 或独立文件中的原生库（ELF）没有目标架构的构建，或已损坏。"),
			[]string{"ELF headers (machine, class, glibc versions needed)"}, "https://refspecs.linuxfoundation.org/elf/gabi4+/ch4.eheader.html"),
		rule("jni", finding.Warning, finding.T("A native library loaded from outside the package", "从包外加载的原生库"),
			finding.T("Classes call System.loadLibrary/load for a library the package does not contain: it must exist on the target for its architecture.", "类调用 System.loadLibrary/load 加载包内没有的库：目标机上必须有对应架构的版本。"),
			[]string{"class files (constant pool: loadLibrary/load calls and their names)"}, "https://docs.oracle.com/en/java/javase/17/docs/specs/jni/invocation.html"),
		rule("jdk", finding.Critical, finding.T("A bundled JDK for another architecture", "打包的 JDK 属于其他架构"),
			finding.T("A JDK in the input (its release file, its libjvm.so) is built for the target architecture, and a JDK 8 is 8u292 or later.", "输入中的 JDK（release 文件、libjvm.so）是否为目标架构构建，JDK 8 是否为 8u292 或更新。"),
			[]string{"JDK release files", "libjvm.so ELF headers"}, "https://openjdk.org/jeps/237"),
		rule("jvm-options", finding.Critical, finding.T("x86-only JVM options", "仅 x86 支持的 JVM 参数"),
			finding.T("Start scripts and option files set -XX options that exist only in the x86 JVM (an aarch64 JVM refuses them unless IgnoreUnrecognizedVMOptions).", "启动脚本与参数文件中设置了只存在于 x86 JVM 的 -XX 参数（除非 IgnoreUnrecognizedVMOptions，aarch64 JVM 会拒绝启动）。"),
			[]string{"start scripts, jvm.options, Dockerfiles, JAVA_OPTS lines"}, "https://docs.oracle.com/en/java/javase/17/docs/specs/man/java.html"),
		rule("base-image", finding.Critical, finding.T("A container base image for amd64 only", "仅 amd64 的容器基础镜像"),
			finding.T("A Dockerfile pins its base image to linux/amd64, or uses a tag published for amd64 only (openjdk Alpine).", "Dockerfile 把基础镜像固定为 linux/amd64，或使用仅发布了 amd64 版本的标签（openjdk Alpine）。"),
			[]string{"Dockerfile FROM lines", "OCI image indexes and configs"}, "https://docs.docker.com/build/building/multi-platform/"),
		rule("archive", finding.Warning, finding.T("A part of the input the scan could not check", "扫描无法检查的输入部分"),
			finding.T("Every archive entry is read within the safety limits (no path traversal, no zip bomb) and is not corrupt; what is not is said, not guessed.", "每个归档条目都在安全上限内读取（无路径穿越、无 zip 炸弹）且未损坏；不满足时如实报告，不做猜测。"),
			[]string{"zip, jar, war, ear, tar and image layers"}, "https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT"),
	}
}

// portingRules is Rules by kind, indexed once.
var portingRules = func() map[string]*finding.Rule[*Judged] {
	rs := Rules()
	m := make(map[string]*finding.Rule[*Judged], len(rs))
	for i := range rs {
		m[rs[i].ID] = &rs[i]
	}
	return m
}()

// evalJudged is the verdict as an outcome: a pass, or a failure as severe
// as the verdict (a confirm is a warning for what could not be checked or
// comes from outside the package, else info).
func evalJudged(j *Judged) []finding.Outcome {
	o := finding.Outcome{Status: finding.Fail, Subject: j.Component, Title: j.Title, Evidence: j.Evidence, Fix: j.Fix,
		Recommended: j.Fix.Note, References: j.References, Confidence: 1, Observed: observed(j.Evidence), Why: whyText(j.Kind, j.Verdict)}
	switch j.Verdict {
	case Pass:
		o.Status = finding.Pass
	case Upgrade:
		o = o.WithSeverity(finding.Warning)
	case Blocker:
		o = o.WithSeverity(finding.Critical)
	case Confirm:
		o = o.WithSeverity(finding.Info)
		if j.Kind == "archive" || j.Kind == "jni" {
			o = o.WithSeverity(finding.Warning)
		}
	}
	return []finding.Outcome{o}
}

func init() {
	report.RegisterRuleSet(func() (report.RuleSet, error) {
		rs := Rules()
		return report.RuleSet{Name: "porting", Title: finding.T("Porting to another CPU architecture", "迁移到其他 CPU 架构"),
			Reads:   finding.T("jars, wars, fat jars, install trees, tarballs and container images: their native libraries (ELF), class files, bundled JDKs, JVM options and Dockerfiles, against the known-library table", "jar、war、fat jar、安装目录、tar 包与容器镜像：其中的原生库（ELF）、类文件、打包的 JDK、JVM 参数与 Dockerfile，对照已知库表"),
			Command: "tuneloop porting PATH...", Rules: finding.Infos(rs)}, finding.ValidateRules(rs)
	})
}
