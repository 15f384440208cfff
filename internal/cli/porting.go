package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/porting"
	"github.com/tuneloop/tuneloop/internal/porting/archive"
	"github.com/tuneloop/tuneloop/internal/version"
)

// Exit codes of `tuneloop porting` beyond the common ones.
const (
	ExitPortingUpgrades = 4 // upgrades suggested (with --fail-on upgrade)
	ExitPortingBlockers = 5 // blockers found (with --fail-on blocker or upgrade)
)

// PortingOptions are the flags of `tuneloop porting`.
type PortingOptions struct {
	Paths    []string
	Target   string // linux/arm64 (default) or linux/amd64
	Output   string // text, json, markdown, junit
	FailOn   string // blocker (default), upgrade, none
	Lang     string
	Glibc    string // target glibc version, "" = no check
	All      bool
	OutFile  string
	MaxEntry int64 // bytes; 0 = default
	MaxTotal int64
	MaxDepth int
	// Now is the clock; tests pin it.
	Now func() time.Time
}

func newPortingCmd(env *Env) *cobra.Command {
	o := &PortingOptions{}
	cmd := &cobra.Command{
		Use:   "porting PATH...",
		Short: helpText(finding.T("Scan an install tree or Java archives for what blocks running on ARM64", "扫描安装目录或 Java 归档，找出阻碍在 ARM64 上运行的问题")),
		Long: helpText(finding.T(
			`Scan each PATH — a directory (an install tree), a .jar/.war/.ear, a Spring
Boot fat jar, a .zip, a .tar(.gz) bundle or a saved container image — for
what stops it from running on the target (linux/arm64 by default). Nested
archives are read in place, never extracted to disk; entry size, total size
and nesting depth are capped (zip bombs and unsafe names are reported).

Every native file found at any depth is judged by its ELF header (class,
machine, glibc symbol versions), grouped with its builds for other platforms
(JNA linux-aarch64, Netty aarch_64, snappy Linux/aarch64, RocksDB linux64...)
across the whole PATH, so a library shipping both x86-64 and aarch64 passes
and Netty-style classifier jars are judged together. Known libraries (Maven
coordinates from pom.properties) are checked against the first version that
works on aarch64. Also reported: class files that load native code nobody
bundles (System.loadLibrary, JNA, JNR), x86-only -XX options in scripts,
units, Dockerfiles and options files, amd64-pinned base images, x86 JDKs and
JDK 8 builds before 8u292; in a docker save / OCI-layout tarball, the image
config's architecture and every layer. Bundled natives are assumed to run on
glibc (musl-only builds do not count); --glibc also checks their GLIBC_x.y.

Verdicts: pass, upgrade (with the version), blocker, to confirm; each with
the evidence (path inside the archive, ELF machine read) and the fix, in
English or Chinese (--lang).

Exit status:
  0  no finding at or above --fail-on (pass and to-confirm never fail)
  4  upgrades suggested (only with --fail-on upgrade)
  5  blockers found (with --fail-on blocker, the default, or upgrade)
  1  error (a PATH could not be read), 2 bad usage`,
			`扫描每个 PATH（目录即安装目录树、.jar/.war/.ear、Spring Boot fat jar、.zip、
.tar(.gz) 包或保存下来的容器镜像），找出阻碍其在目标平台（默认 linux/arm64）
上运行的问题。嵌套归档原地读取，从不解压到磁盘；单个条目大小、总大小和嵌套
深度都有上限（会报告 zip 炸弹和不安全的文件名）。

在任意深度找到的每个本地（native）文件都按其 ELF 头（class、machine、glibc
符号版本）判定，并在整个 PATH 范围内与其面向其他平台的构建归为一组（JNA
linux-aarch64、Netty aarch_64、snappy Linux/aarch64、RocksDB linux64……），
因此同时提供 x86-64 和 aarch64 版本的库判为通过，Netty 式的 classifier jar 也会
合并判定。已知库（取自 pom.properties 的 Maven 坐标）会与首个支持 aarch64 的
版本比较。此外还会报告：加载了未随包提供的本地代码的 class 文件
（System.loadLibrary、JNA、JNR）；脚本、unit 文件、Dockerfile 和选项文件中仅适用
于 x86 的 -XX 选项；固定为 amd64 的基础镜像；x86 JDK 以及 8u292 之前的 JDK 8
构建；对 docker save / OCI-layout 的 tar 包，还检查镜像配置中的架构和每一层。
随包提供的本地库默认按运行在 glibc 上判定（仅支持 musl 的构建不算数）；
--glibc 还会检查它们所需的 GLIBC_x.y。

判定结果：通过（pass）、需升级（upgrade，附所需版本）、阻断（blocker）、
待确认（to confirm）；每条都附证据（归档内的路径、读取到的 ELF machine）和
修复方法，以英文或中文输出（--lang）。

退出码：
  0  没有达到或高于 --fail-on 的发现（通过和待确认从不导致失败）
  4  建议升级（仅在 --fail-on upgrade 时）
  5  发现阻断项（--fail-on blocker（默认）或 upgrade 时）
  1  出错（某个 PATH 无法读取），2 用法错误`,
		)),
		Example: helpText(finding.T(
			`  tuneloop porting app.jar
  tuneloop porting /opt/myapp --output junit --out porting.xml --fail-on upgrade
  tuneloop porting release.tar.gz --output markdown --lang zh
  tuneloop porting app.war --glibc 2.28        # also check bundled libraries' glibc needs`,
			`  tuneloop porting app.jar
  tuneloop porting /opt/myapp --output junit --out porting.xml --fail-on upgrade
  tuneloop porting release.tar.gz --output markdown --lang zh
  tuneloop porting app.war --glibc 2.28        # 同时检查随包库对 glibc 版本的要求`,
		)),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			return RunPorting(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Target, "target", "linux/arm64", helpText(finding.T("platform to check for: linux/arm64 or linux/amd64", "要检查的目标平台：linux/arm64 或 linux/amd64")))
	outputFlag(f, &o.Output, porting.Formats())
	f.StringVar(&o.FailOn, "fail-on", "blocker", helpText(finding.T("exit non-zero at this verdict or worse: blocker, upgrade or none", "判定结果达到该级别或更严重时以非零退出码退出：blocker、upgrade 或 none")))
	langFlag(f, &o.Lang)
	f.StringVar(&o.Glibc, "glibc", "", helpText(finding.T("the target's glibc version (e.g. 2.28): flag bundled libraries that need a newer one", "目标环境的 glibc 版本（例如 2.28）：标出需要更高版本的随包库")))
	f.BoolVar(&o.All, "all", false, helpText(finding.T("text output: show the evidence of passing components too", "文本输出：同时显示通过的组件的证据")))
	outFileFlag(f, &o.OutFile)
	f.Int64Var(&o.MaxEntry, "max-entry-bytes", 0, helpText(finding.T("largest nested archive to inflate into memory (default 256 MiB)", "解压到内存中的嵌套归档的最大大小（默认 256 MiB）")))
	f.Int64Var(&o.MaxTotal, "max-total-bytes", 0, helpText(finding.T("most bytes to inflate per PATH (default 8 GiB)", "每个 PATH 最多解压的字节数（默认 8 GiB）")))
	f.IntVar(&o.MaxDepth, "max-depth", 0, helpText(finding.T("deepest archive nesting to open (default 6)", "打开归档的最大嵌套深度（默认 6）")))
	return cmd
}

// RunPorting is the whole `porting` command; tests call it directly.
func RunPorting(ctx context.Context, env *Env, o *PortingOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if len(o.Paths) == 0 {
		return usageErr(finding.T("porting: give at least one PATH", "porting：至少给出一个 PATH"))
	}
	target, err := porting.ParseTarget(o.Target)
	if err != nil {
		return usageErr(finding.T("--target: %v", "--target:%v"), err)
	}
	format, err := outputFormat(o.Output, porting.Formats())
	if err != nil {
		return err
	}
	failOn := porting.Verdict("")
	switch strings.ToLower(o.FailOn) {
	case "", "blocker":
		failOn = porting.Blocker
	case "upgrade":
		failOn = porting.Upgrade
	case "none":
	default:
		return usageErr(finding.T("--fail-on: want blocker, upgrade or none, got %q", "--fail-on：应为 blocker、upgrade 或 none，实际为 %q"), o.FailOn)
	}
	if o.Glibc != "" && strings.Trim(o.Glibc, "0123456789.") != "" {
		return usageErr(finding.T("--glibc: want a version such as 2.28, got %q", "--glibc：应为 2.28 这样的版本号，实际为 %q"), o.Glibc)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	opts := porting.Options{Target: target, Glibc: o.Glibc,
		Limits: archive.Limits{MaxEntry: o.MaxEntry, MaxTotal: o.MaxTotal, MaxDepth: o.MaxDepth}}
	rep, err := porting.ScanAll(ctx, o.Paths, opts, version.Version, now())
	if err != nil {
		return err
	}
	w := env.Stdout
	if o.OutFile != "" {
		fw, err := createOut(o.OutFile)
		if err != nil {
			return err
		}
		defer fw.Close()
		w = fw
	}
	if err = porting.Write(w, rep, format, lang, o.All); err != nil {
		return finding.Errorf(finding.T("writing the report: %v", "写报告：%v"), err)
	}
	if o.OutFile != "" {
		if err := closeOut(w); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("report written to", "报告已写入").In(lang), o.OutFile)
	}
	if failed := rep.Unreadable(); len(failed) > 0 {
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("cannot read %s", "无法读取 %s"), strings.Join(failed, "; "))}
	}
	switch worst := rep.Worst(); {
	case failOn == "":
	case worst == porting.Blocker:
		return &ExitError{Code: ExitPortingBlockers}
	case worst == porting.Upgrade && failOn == porting.Upgrade:
		return &ExitError{Code: ExitPortingUpgrades}
	}
	return ctx.Err()
}
