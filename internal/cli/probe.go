package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/units"
)

// probeTokenEnv holds the token when it should not show in ps.
const probeTokenEnv = probe.TokenEnv

// ProbeOptions are the flags of `tuneloop probe`.
type ProbeOptions struct {
	Output string // text, markdown or json (standard output)
	Lang   string
	Out    string // the probe folder (default probes/<time>-<host>); "-": none
	Quick  bool
	Only   string
	Sizes  string
	Rounds int
	Window time.Duration
	Dir    string
	DiskMB int64
	Peer   string
	Token  string
	// CPU pins the measuring thread (with Listen: the serving ones);
	// PeerCPU the other side's, when this probe starts it. Zero: not
	// pinned.
	CPU, PeerCPU cpuFlag
	// Listen makes this process the other side, for For.
	Listen string
	For    time.Duration
	// StdinBound (hidden): with Listen, stop when stdin ends; how a probe
	// runs its loopback listener as a child that cannot outlive it.
	StdinBound bool
	// SSH is a host ([user@]host[:port] or a ~/.ssh/config alias) where
	// the other side is started over SSH for the network part; Remote
	// holds how to log in (Identity, KnownHosts; Exe in tests).
	SSH    string
	Remote hostOptions
	// Catalog is the catalog the probe folder is put in (default: the
	// runs' catalog); NoCatalog leaves it out.
	Catalog   string
	NoCatalog bool
}

func newProbeCmd(env *Env) *cobra.Command {
	o := &ProbeOptions{}
	cmd := &cobra.Command{
		Use:   "probe",
		Short: helpText(finding.T("Measure the platform itself: network, CPU and kernel, memory, disk, each with a 95% interval", "测量平台本身：网络、CPU 与内核、内存、磁盘，每项带 95% 区间")),
		Long: helpText(finding.T(
			`Measure this host the way a kernel regression is proved before the application
is blamed (qperf, lmbench, fio, in one binary):

  net   TCP and UDP latency (ping-pong, half the round trip) and bandwidth at
        message sizes 1 B, 64 B, 1 KiB, 64 KiB, and TCP connections per second,
        over loopback (the other side is this binary again, in a process of
        its own, as qperf's server) or against 'tuneloop probe --listen' on
        another host
  cpu   system call, context switch and clock read costs (what CPU
        vulnerability mitigations move), single-core integer, floating-point,
        CRC-32C and memcpy kernels, and the core-to-core cache-line latency
        matrix (threads pinned to each pair of CPUs)
  mem   memory read and copy bandwidth and random-load latency, per pair of
        NUMA nodes (local and remote) when there are several
  disk  fsync latency (median, p99, distribution), sequential and random
        read and write with O_DIRECT where the filesystem allows it, on --dir

Every figure is the median of its rounds (7, or 6 with --quick; the rounds
of a part interleave its figures) with a 95% interval for the median, and
the CPU others kept busy while it ran. The probe folder holds probe.json,
probe.txt, probe.md and probe.html (the matrix as a heat map); 'tuneloop
compare PROBE_A PROBE_B' says per figure whether the difference is
significant. The disk part's file has no name (O_TMPFILE, or unlinked as
soon as it is created): nothing is left behind, even after kill -9.

The default probe takes under a minute, --quick about 10 s. --listen serves
probes for --for (default 10 minutes) and then exits; with --token (or
$TUNELOOP_PROBE_TOKEN) it refuses a prober that does not present the same.
--peer-ssh HOST starts that listener on HOST over SSH (this binary copied
there, run for at most 5 minutes with a fresh token, removed after).`,
			`测量本机平台本身，就像在怪罪应用之前先证明内核变慢了那样（qperf、lmbench、
fio 合而为一）：

  net   TCP 与 UDP 延迟（乒乓往返，取往返时间的一半）和带宽，消息大小为
        1 B、64 B、1 KiB、64 KiB，以及每秒 TCP 连接数；走环回地址（另一端是
        本程序在独立进程中再次运行，同 qperf 的服务端），或连到另一台主机上的
        'tuneloop probe --listen'
  cpu   系统调用、上下文切换和读时钟的开销（CPU 漏洞缓解措施影响的正是这些），
        单核整数、浮点、CRC-32C 与 memcpy 计算，以及核间缓存行延迟矩阵
        （线程分别绑定到每一对 CPU 上）
  mem   内存读、拷贝带宽与随机访问延迟；有多个 NUMA 节点时按节点对测量
        （本地与远端）
  disk  fsync 延迟（中位数、P99、分布），顺序与随机读写，文件系统允许时
        使用 O_DIRECT，测量位置为 --dir

每个指标都是各轮的中位数（7 轮，--quick 为 6 轮；同一部分的各指标交错进行），
附带中位数的 95% 区间，以及测量期间其他进程占用的 CPU。探测目录包含
probe.json、probe.txt、probe.md 与 probe.html（矩阵画成热力图）；
'tuneloop compare PROBE_A PROBE_B' 逐项说明差异是否显著。磁盘部分使用的
文件没有名字（O_TMPFILE，或创建后立即删除）：即使被 kill -9 也不会留下任何东西。

默认探测不到一分钟，--quick 约 10 秒。--listen 在 --for 时长内（默认 10 分钟）
提供探测服务，然后自行退出；设置 --token（或 $TUNELOOP_PROBE_TOKEN）后，
拒绝未出示相同口令的探测方。
--peer-ssh HOST 通过 SSH 在 HOST 上启动该监听端（把本程序复制过去，使用新生成的
口令，最多运行 5 分钟，结束后删除）。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop probe
  tuneloop probe --quick --only cpu,mem
  tuneloop probe --only disk --dir /data
  tuneloop probe --listen :7412 --token s3cret            # on host B
  tuneloop probe --peer hostB:7412 --token s3cret --only net
  tuneloop probe --peer-ssh admin@hostB --only net
  tuneloop compare probes/before probes/after`,
			`  tuneloop probe
  tuneloop probe --quick --only cpu,mem
  tuneloop probe --only disk --dir /data
  tuneloop probe --listen :7412 --token s3cret            # 在主机 B 上
  tuneloop probe --peer hostB:7412 --token s3cret --only net
  tuneloop probe --peer-ssh admin@hostB --only net
  tuneloop compare probes/before probes/after`,
		)),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return RunProbe(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	outputFlag(f, &o.Output, report.ProbeFormats())
	langFlag(f, &o.Lang)
	f.StringVar(&o.Out, "out", "", helpText(finding.T("probe folder (default ./probes/<timestamp>-<host>; - for none)", "探测目录（默认 ./probes/<时间戳>-<主机名>；- 表示不写）")))
	f.BoolVar(&o.Quick, "quick", false, helpText(finding.T("a quick probe: about 10 s, shorter rounds", "快速探测：约 10 秒，每轮更短")))
	f.StringVar(&o.Only, "only", "", helpText(finding.T("the parts to measure, comma-separated: net, cpu, mem, disk (default all)", "要测量的部分，逗号分隔：net、cpu、mem、disk（默认全部）")))
	f.StringVar(&o.Sizes, "sizes", "1,64,1k,64k", helpText(finding.T("network message sizes (bytes; k and m suffixes)", "网络消息大小（字节；可用 k、m 后缀）")))
	f.IntVar(&o.Rounds, "rounds", 0, helpText(finding.T("rounds per figure (default 7, 6 with --quick)", "每个指标的轮数（默认 7，--quick 时为 6）")))
	f.DurationVar(&o.Window, "window", 0, helpText(finding.T("how long one round of a network, memory or disk figure lasts (default 120, 250, 300 ms; with 1s or 2s a round is one qperf/fio run, to compare with them)", "网络、内存、磁盘指标每一轮的时长（默认 120、250、300 毫秒；设为 1s 或 2s 时每轮相当于 qperf/fio 的一次运行，便于与它们比较）")))
	f.StringVar(&o.Dir, "dir", ".", helpText(finding.T("the directory the disk part measures", "磁盘部分测量的目录")))
	f.Int64Var(&o.DiskMB, "disk-size", 0, helpText(finding.T("the disk part's file size in MiB (default 256, 32 with --quick; at most a tenth of the free space)", "磁盘部分使用的文件大小，单位 MiB（默认 256，--quick 时 32；最多为可用空间的十分之一）")))
	f.StringVar(&o.Peer, "peer", "", helpText(finding.T("HOST:PORT of 'tuneloop probe --listen' for the network part (default: loopback)", "网络部分所连的 'tuneloop probe --listen' 的 HOST:PORT（默认：环回地址）")))
	f.StringVar(&o.Token, "token", "", helpText(finding.T("shared secret between --listen and --peer (default $"+probeTokenEnv+")", "--listen 与 --peer 之间共享的口令（默认取 $"+probeTokenEnv+"）")))
	f.Var(&o.CPU, "cpu", helpText(finding.T("pin the thread that measures a network figure to this CPU (with --listen: the threads that serve it), as qperf -lca", "把测量网络指标的线程绑定到该 CPU（与 --listen 一起使用时：绑定提供服务的线程），同 qperf -lca")))
	f.Var(&o.PeerCPU, "peer-cpu", helpText(finding.T("pin the other side's serving threads to this CPU: the loopback listener's, or on the --peer-ssh host (with --peer, give --cpu to its --listen), as qperf -rca", "把另一端提供服务的线程绑定到该 CPU：环回监听端的，或 --peer-ssh 主机上的（使用 --peer 时，请在其 --listen 上指定 --cpu），同 qperf -rca")))
	f.StringVar(&o.Listen, "listen", "", helpText(finding.T("serve probes on this address (HOST:PORT) instead of probing", "在该地址（HOST:PORT）提供探测服务，而不是发起探测")))
	f.BoolVar(&o.StdinBound, "stdin-bound", false, helpText(finding.T("with --listen: stop when stdin is closed (the loopback listener a probe starts)", "与 --listen 一起使用：标准输入关闭时停止（探测自己启动的环回监听）")))
	f.MarkHidden("stdin-bound")
	f.DurationVar(&o.For, "for", 10*time.Minute, helpText(finding.T("with --listen: stop serving after this long", "与 --listen 一起使用：服务这么长时间后停止")))
	f.StringVar(&o.SSH, "peer-ssh", "", helpText(finding.T("start the other side on this host over SSH ([user@]host[:port] or a ~/.ssh/config alias; nothing is installed there) and measure the network to it", "通过 SSH 在该主机上启动另一端（[user@]host[:port] 或 ~/.ssh/config 中的别名；不在那里安装任何东西），并测量到它的网络")))
	catalogFlag(f, &o.Catalog, finding.T("catalog the probe folder is added to", "探测目录要加入的运行记录目录"))
	f.BoolVar(&o.NoCatalog, "no-catalog", false, helpText(finding.T("do not add the probe folder to the catalog", "不把探测目录加入运行记录目录")))
	o.Remote.loginFlags(cmd, "--peer-ssh")
	return cmd
}

// cpuFlag is --cpu or --peer-cpu: a CPU number; unset pins nothing.
type cpuFlag struct{ probe.CPUPin }

func (c *cpuFlag) String() string {
	if !c.On {
		return ""
	}
	return strconv.Itoa(c.CPU)
}

func (c *cpuFlag) Set(s string) error {
	// Errors as strconv's, which flagError says in both languages.
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	if n < 0 {
		return &strconv.NumError{Func: "Atoi", Num: s, Err: strconv.ErrRange}
	}
	c.CPUPin = probe.Pin(n)
	return nil
}

func (c *cpuFlag) Type() string { return "int" }

// parseSizes reads --sizes: 1,64,1k,64k (each as units.ParseBytes reads a
// size: 1K, 64KiB and 0x400 too), from 1 byte to probe.MaxMsg.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := units.ParseBytes(f)
		if err != nil || n < 1 || n > int64(probe.MaxMsg) {
			return nil, usageErr(finding.T("--sizes: %q is not a size from 1 to 1m", "--sizes：%q 不是 1 到 1m 之间的大小"), strings.TrimSpace(f))
		}
		out = append(out, int(n))
	}
	return out, nil
}

// RunProbe is the whole `probe` command; tests call it directly.
func RunProbe(ctx context.Context, env *Env, o *ProbeOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, report.ProbeFormats())
	if err != nil {
		return err
	}
	if o.Token == "" {
		o.Token = env.Getenv(probeTokenEnv)
	}
	if o.Listen != "" {
		if o.Peer != "" {
			return usageErr(finding.T("--listen and --peer: one side is the listener, the other the prober", "--listen 与 --peer 不能同时使用：一端监听，另一端探测"))
		}
		if o.StdinBound {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			go func() { io.Copy(io.Discard, env.Stdin); cancel() }()
		}
		if o.PeerCPU.On {
			return usageErr(finding.T("--peer-cpu is for the prober; a listener pins itself with --cpu", "--peer-cpu 用于探测端；监听端请用 --cpu 绑定自身"))
		}
		return probe.Listen(ctx, probe.ListenOptions{Addr: o.Listen, Token: o.Token, For: o.For, Log: env.Stderr, CPU: o.CPU.CPUPin,
			Ready: func(addr string) {
				// --peer-ssh reads this line (its listener is started with --lang en).
				fmt.Fprintln(env.Stdout, finding.Tf(finding.T("listening on %s until %s", "正在监听 %s，直到 %s"), addr, time.Now().Add(o.For).UTC().Format(time.RFC3339)).In(lang))
				if o.Token == "" {
					fmt.Fprintln(env.Stderr, finding.T("tuneloop: no --token: anyone who reaches this port may probe it", "tuneloop：未设置 --token：任何能连到此端口的人都可以探测").In(lang))
				}
			}})
	}
	parts, err := probe.ParseParts(o.Only)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	sizes, err := parseSizes(o.Sizes)
	if err != nil {
		return err
	}
	if o.Rounds < 0 || o.Rounds > 100 {
		return usageErr(finding.T("--rounds: want 1 to 100", "--rounds：应为 1 到 100"))
	}
	if o.DiskMB < 0 {
		return usageErr(finding.T("--disk-size: %d is negative", "--disk-size：%d 为负数"), o.DiskMB)
	}
	if o.SSH != "" && (o.Peer != "" || !slices.Contains(parts, probe.PartNet)) {
		return usageErr(finding.T("--peer-ssh starts the other side of the network part: not with --peer, and --only must include net", "--peer-ssh 用于启动网络部分的另一端：不能与 --peer 同用，且 --only 必须包含 net"))
	}
	if o.PeerCPU.On && o.Peer != "" {
		return usageErr(finding.T("--peer-cpu with --peer: the listener there pins itself (its --cpu)", "--peer-cpu 不能与 --peer 同用：那里的监听端自行绑定（用它的 --cpu）"))
	}
	if (o.CPU.On || o.PeerCPU.On) && !slices.Contains(parts, probe.PartNet) {
		return usageErr(finding.T("--cpu and --peer-cpu pin the network figures' ends: --only must include net", "--cpu 与 --peer-cpu 用于绑定网络指标的两端：--only 必须包含 net"))
	}
	for _, c := range []struct {
		flag string
		pin  probe.CPUPin
	}{{"--cpu", o.CPU.CPUPin}, {"--peer-cpu", o.PeerCPU.CPUPin}} {
		if c.flag == "--cpu" || o.SSH == "" { // --peer-ssh: the CPU is the other host's
			if err := c.pin.Check(); err != nil {
				return usageErr(finding.T("%s %d: %v", "%s %d：%v"), c.flag, c.pin.CPU, err)
			}
		}
	}
	r, err := session.Probe(ctx, session.ProbeOptions{
		Measure: probe.Options{Parts: parts, Quick: o.Quick, Rounds: o.Rounds, Window: o.Window, Peer: o.Peer, Token: o.Token,
			CPU: o.CPU.CPUPin, PeerCPU: o.PeerCPU.CPUPin,
			Sizes: sizes, Dir: o.Dir, DiskBytes: o.DiskMB << 20, Log: env.Stderr},
		Out: o.Out, PeerSSH: o.SSH, Remote: o.Remote.remoteOptions(env), Exe: o.Remote.Exe,
		Catalog: o.Catalog, NoCatalog: o.NoCatalog, Getenv: env.Getenv, Lang: lang,
		Note: func(t finding.Text) { fmt.Fprintln(env.Stderr, t.In(lang)) },
	})
	if err != nil {
		return sessionErr(err)
	}
	if err = report.WriteProbe(env.Stdout, r, format, lang); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return finding.Errorf(finding.T("interrupted (%v): the figures measured until then are reported above", "已中断（%v）：上面报告的是中断前测得的指标"), ctx.Err())
	}
	return nil
}
