package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/analysis"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/inspect"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// JVMOptions are the flags of `tuneloop jvm`.
type JVMOptions struct {
	PID      int // 0: list the JVMs on this host
	Dumps    int // thread dumps to take (0: none)
	Interval time.Duration
	Flags    bool   // print every flag of VM.flags (a summary is always printed)
	Props    bool   // print VM.system_properties
	Heap     bool   // print GC.heap_info
	GCLog    string // switch GC logging on to this file (as the JVM sees it) when it is off
	Raw      string // save every raw output in this directory before parsing it
	Output   string // text or json
	Lang     string // en, zh; "" = from the environment
	Timeout  time.Duration
	Via      string        // auto, socket, jcmd
	JCmd     string        // run this diagnostic command and print its output
	Profile  string        // workload profile for the jvm.* configuration checks, or a profile kind to capture (cpu, alloc, lock, wall)
	Duration time.Duration // how long --profile KIND records
	Out      string        // where --profile KIND writes its files
	Remote   hostOptions   // --host: attach there, the files come back here (host.go)
}

func newJVMCmd(env *Env) *cobra.Command {
	o := &JVMOptions{}
	cmd := &cobra.Command{
		Use:   "jvm [PID]",
		Short: helpText(finding.T("Attach to a running JVM: thread dumps, flags, properties, heap, GC logging", "attach 到运行中的 JVM：线程转储、参数、系统属性、堆、GC 日志")),
		Long: helpText(finding.T(
			`Attach to a running HotSpot JVM without any JDK tool next to it (tuneloop speaks
the attach protocol itself, also into containers and to JVMs of other users
when run as root), take thread dumps and analyse them, summarise the JVM's
flags, and on request print its system properties and heap, or switch GC
logging on at run time.

Without a PID, list the JVMs on this host.

Read-only unless --gc-log is given. Exit status: 0 when it ran, 1 when the
JVM could not be attached or a command failed, 2 on bad usage.`,
			`无需本机安装任何 JDK 工具即可 attach 到运行中的 HotSpot JVM（tuneloop 自行实现
attach 协议；以 root 运行时也能进入容器，以及连接其他用户的 JVM），采集并分析
线程转储，汇总 JVM 参数；按需输出其系统属性和堆信息，或在运行时开启 GC 日志。

不指定 PID 时，列出本机上的 JVM。

除非指定 --gc-log，否则只读。退出码：执行完成时为 0；无法 attach 到 JVM 或
命令执行失败时为 1；用法错误时为 2。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop jvm                                   # list the JVMs on this host
  tuneloop jvm 4242                              # one thread dump, analysed, and the flags
  tuneloop jvm 4242 --dump 3 --interval 5s       # three dumps: stuck threads, hot frames
  tuneloop jvm 4242 --heap --props --raw ./evidence
  tuneloop jvm 4242 --gc-log /tmp/gc.log         # switch GC logging on if it is off
  tuneloop jvm 4242 --jcmd 'GC.class_histogram'  # any diagnostic command, no jcmd needed
  tuneloop jvm 4242 --profile lock -d 30s        # a 30 s lock profile: flame graph, collapsed, pprof, JFR
  tuneloop jvm 4242 --output json --lang zh`,
			`  tuneloop jvm                                   # 列出本机上的 JVM
  tuneloop jvm 4242                              # 采集并分析一次线程转储，并汇总参数
  tuneloop jvm 4242 --dump 3 --interval 5s       # 三次转储：卡住的线程、热点栈帧
  tuneloop jvm 4242 --heap --props --raw ./evidence
  tuneloop jvm 4242 --gc-log /tmp/gc.log         # GC 日志未开启时将其开启
  tuneloop jvm 4242 --jcmd 'GC.class_histogram'  # 执行任意诊断命令，无需 jcmd
  tuneloop jvm 4242 --profile lock -d 30s        # 30 秒锁剖析：火焰图、折叠栈、pprof、JFR
  tuneloop jvm 4242 --output json --lang zh`,
		)),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				pid, err := strconv.Atoi(args[0])
				if err != nil || pid <= 0 {
					return usageErr(finding.T("PID: want a process id, got %q", "PID：应为进程号，实际为 %q"), args[0])
				}
				o.PID = pid
			}
			if o.JCmd != "" && !cmd.Flags().Changed("dump") {
				o.Dumps = 0 // --jcmd alone prints that command's output only
			}
			return RunJVM(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Dumps, "dump", 1, helpText(finding.T("thread dumps to take (Thread.print -l -e); 0 for none", "要采集的线程转储次数（Thread.print -l -e）；0 表示不采集")))
	f.DurationVar(&o.Interval, "interval", 5*time.Second, helpText(finding.T("time between thread dumps", "两次线程转储之间的间隔")))
	f.BoolVar(&o.Flags, "flags", false, helpText(finding.T("print every flag from VM.flags (a summary is always printed)", "输出 VM.flags 中的全部参数（摘要总会输出）")))
	f.BoolVar(&o.Props, "props", false, helpText(finding.T("print the system properties (VM.system_properties)", "输出系统属性（VM.system_properties）")))
	f.BoolVar(&o.Heap, "heap", false, helpText(finding.T("print the heap (GC.heap_info)", "输出堆信息（GC.heap_info）")))
	f.StringVar(&o.GCLog, "gc-log", "", helpText(finding.T("switch GC logging on at run time, to this absolute path (as the JVM sees it), unless GC is already logged to a file", "若 GC 日志尚未写入任何文件，则在运行时开启 GC 日志并写到该绝对路径（按 JVM 所见的路径）")))
	f.StringVar(&o.Raw, "raw", "", helpText(finding.T("save the raw outputs in this directory (before they are parsed)", "把原始输出（解析之前）保存到该目录")))
	outputFlag(f, &o.Output, report.JVMFormats())
	langFlag(f, &o.Lang)
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), helpText(finding.T("cpu, alloc, lock or wall: record that profile through JFR; native: sample Java, native and kernel stacks with perf_event_open (any process; see -d, --out); java-web, database or latency: workload profile for the configuration checks", "cpu、alloc、lock 或 wall：通过 JFR 记录该类剖析；native：用 perf_event_open 采样 Java、原生与内核调用栈（任意进程；见 -d、--out）；java-web、database 或 latency：配置检查使用的负载配置档")))
	f.DurationVarP(&o.Duration, "duration", "d", 30*time.Second, helpText(finding.T("how long --profile cpu|alloc|lock|wall records (Ctrl-C stops early and keeps what was recorded)", "--profile cpu|alloc|lock|wall 的记录时长（Ctrl-C 可提前停止并保留已记录的内容）")))
	f.StringVar(&o.Out, "out", "", helpText(finding.T("directory for the profile's files (profile.html, profile.collapsed, profile.pb.gz, recording.jfr); default tuneloop-profile-PID-KIND", "剖析文件（profile.html、profile.collapsed、profile.pb.gz、recording.jfr）的目录；默认 tuneloop-profile-PID-KIND")))
	f.DurationVar(&o.Timeout, "timeout", 5*time.Second, helpText(finding.T("how long to wait for the JVM's attach listener to start", "等待 JVM 的 attach 监听启动的最长时间")))
	f.StringVar(&o.JCmd, "jcmd", "", helpText(finding.T("run this diagnostic command, as jcmd PID CMD would (e.g. 'GC.class_histogram'), and print its output", "像 jcmd PID CMD 一样执行该诊断命令（例如 'GC.class_histogram'），并输出其结果")))
	f.StringVar(&o.Via, "via", "auto", helpText(finding.T("how to reach the JVM: auto (the attach socket, then the jcmd on this host), socket or jcmd", "连接 JVM 的方式：auto（先用 attach 套接字，再用本机的 jcmd）、socket 或 jcmd")))
	o.Remote.flags(cmd)
	return cmd
}

// RunJVM is the whole `jvm` command; tests call it directly.
func RunJVM(ctx context.Context, env *Env, o *JVMOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, report.JVMFormats())
	if err != nil {
		return err
	}
	method := attach.Method("")
	switch o.Via {
	case "", "auto":
	case "socket", "jcmd":
		method = attach.Method(o.Via)
	default:
		return usageErr(finding.T("--via: want auto, socket or jcmd, got %q", "--via：应为 auto、socket 或 jcmd，实际为 %q"), o.Via)
	}
	if o.Remote.Host != "" {
		return runJVMRemote(ctx, env, o, lang)
	}
	if o.PID == 0 {
		ps, err := attach.List()
		if err != nil {
			return err
		}
		return report.WriteJVMList(env.Stdout, ps, format, lang)
	}
	if kind, err := stacks.ParseKind(o.Profile); err == nil || o.Profile == "native" {
		name := o.Profile
		if err == nil {
			name = string(kind)
		}
		return runJVMProfile(ctx, env, o, name, attach.Options{Timeout: o.Timeout, Method: method}, lang)
	} else if _, perr := rules.ParseProfile(o.Profile); o.Profile != "" && perr != nil {
		return usageErr(finding.T("--profile: want cpu, alloc, lock, wall or native (a profile to record) or java-web, database or latency (the checks' workload), got %q",
			"--profile：应为 cpu、alloc、lock、wall 或 native（要记录的剖析），或 java-web、database、latency（检查所用负载配置档），实际为 %q"), o.Profile)
	}
	if o.Dumps < 0 || o.Dumps > 1000 {
		return usageErr(finding.T("--dump: want 0 to 1000, got %d", "--dump：应为 0 到 1000，实际为 %d"), o.Dumps)
	}
	if o.Dumps > 1 && o.Interval <= 0 {
		return usageErr(finding.T("--interval: want a positive duration, got %v", "--interval：应为正的时长，实际为 %v"), o.Interval)
	}
	if o.GCLog != "" && !filepath.IsAbs(o.GCLog) {
		return usageErr(finding.T("--gc-log: want an absolute path as the JVM sees it, got %q", "--gc-log：应为 JVM 视角下的绝对路径，实际为 %q"), o.GCLog)
	}
	profile, err := profileOpt(o.Profile)
	if err != nil {
		return err
	}
	in := session.JVMOptions{Options: inspect.Options{PID: o.PID, Attach: attach.Options{Timeout: o.Timeout, Method: method}, Dumps: o.Dumps, Interval: o.Interval,
		Props: o.Props, Heap: o.Heap, GCLog: o.GCLog, Raw: o.Raw, JCmd: o.JCmd, Lang: lang}, Profile: profile}
	if o.Output == "text" && env.Terminal && o.Dumps > 1 {
		in.OnDump = func(i, n int) {
			fmt.Fprintf(env.Stderr, "%s %d/%d\n", finding.T("thread dump", "线程转储").In(lang), i, n)
		}
	}
	res, err := session.InspectJVM(ctx, in)
	if err != nil {
		return err
	}
	if err := report.WriteJVM(env.Stdout, &report.JVM{Result: res, AllFlags: o.Flags, RawDir: o.Raw}, format, lang); err != nil {
		return err
	}
	if res.Gone != nil {
		// Nothing more could be asked of it: what was taken is reported, exit 1.
		return &ExitError{Code: 1, Err: res.Gone}
	}
	return nil
}

// runJVMProfile is `jvm PID --profile KIND` (a JFR kind, or native):
// session.ProfileJVM records it and writes its files and page into --out;
// the page is printed as text (the top frames) or JSON. Ctrl-C stops the
// recording early and still writes what it holds.
func runJVMProfile(ctx context.Context, env *Env, o *JVMOptions, kind string, ao attach.Options, lang finding.Lang) error {
	if o.Duration <= 0 {
		return usageErr(finding.T("-d: want a positive duration, got %v", "-d：应为正的时长，实际为 %v"), o.Duration)
	}
	dir := o.Out
	if dir == "" {
		dir = fmt.Sprintf("tuneloop-profile-%d-%s", o.PID, kind)
	}
	if o.Output == "text" && env.Terminal {
		if kind == "native" {
			fmt.Fprintf(env.Stderr, finding.T("sampling pid %d's stacks on the CPU for %v (Ctrl-C stops early)\n", "正在采样 pid %d 在 CPU 上的调用栈，时长 %v（Ctrl-C 可提前停止）\n").In(lang), o.PID, o.Duration)
		} else {
			fmt.Fprintf(env.Stderr, finding.T("recording a %s profile of pid %d for %v (Ctrl-C stops early)\n", "正在记录 pid %[2]d 的 %[1]s 剖析，时长 %[3]v（Ctrl-C 可提前停止）\n").In(lang), kind, o.PID, o.Duration)
		}
	}
	page, err := session.ProfileJVM(ctx, session.ProfileOptions{PID: o.PID, Kind: kind, Duration: o.Duration, Dir: dir, Attach: ao, Lang: lang})
	if err != nil {
		return loadErr(err)
	}
	format, _ := report.JVMFormats().Parse(o.Output) // validated by RunJVM
	return analysis.WriteFlame(env.Stdout, page, format)
}
