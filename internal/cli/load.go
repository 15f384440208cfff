package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
)

// LoadOptions are the flags of `tuneloop load`. Zero values mean "not
// given", so a scenario file's settings apply unless a flag overrides them.
type LoadOptions struct {
	URL          string
	Users        int
	Rate         float64
	Connections  int
	Duration     time.Duration
	Requests     int64
	RampUp       time.Duration
	WarmUp       time.Duration
	Think        time.Duration
	Timeout      time.Duration
	Method       string
	Headers      []string
	Body         string
	BodyFile     string
	ExpectStatus []int
	ExpectBody   string
	Scenario     string
	JMX          string   // JMeter test plan
	JProps       []string // -J name=value: JMeter properties for ${__P(name)}
	JMXSkip      bool     // run a plan without its unsupported elements
	Import       string
	Output       string // text or json
	JTL          string // write every sample here (JMeter CSV)
	Save         string // write the JSON summary here
	HTML         string // write the load report page here
	// Versus loads this second service in alternating windows of Window
	// and compares the two (load_versus.go); FailOnRegPct gates it.
	Versus       string
	Window       time.Duration
	FailOnRegPct float64
	NoKeepAlive  bool
	Insecure     bool
	HTTP2        bool
	Quiet        bool // no live status line
	Lang         string
	Engine       engineOptions // --engine, --jmeter, --jmeter-remote
}

func newLoadCmd(env *Env) *cobra.Command {
	o := &LoadOptions{}
	cmd := &cobra.Command{
		Use:   "load [URL]",
		Short: helpText(finding.T("Load an HTTP service (closed or open model) and report TPS, latency percentiles and errors", "对 HTTP 服务施加负载（闭合或开放模型），报告 TPS、时延百分位和错误")),
		Long: helpText(finding.T(
			`Send HTTP/1.1 load to a service and report requests, TPS, mean and
p50/p90/p95/p99/p99.9/max latency, errors by kind, a per-second series and a
JMeter-like per-label table.

Closed model (-c N): N users, each sends its next request when the last one
returns (plus --think), like wrk or JMeter threads. Over plain HTTP/1.1
(keep-alive or --no-keepalive) without --think it runs on one epoll event loop
per CPU: a read and a write per request (make bench-load compares it with wrk).
Open model (--rate R): R requests per second on a fixed schedule, like wrk2.
Latency is measured from the intended send time, so a stalled server shows in
the percentiles; late and missed sends are counted. Over plain keep-alive
HTTP/1.1 it runs on the same event loops, each send woken to the microsecond.

A run is always bounded: by -d (default 10s) and/or -n. Ctrl-C stops it and
still prints and saves the results. --jtl writes JMeter's CSV (for JMeter's
HTML dashboard: jmeter -g results.jtl -o report/); --import reads a JTL (CSV or
XML) from JMeter or from tuneloop and prints the same summary.

--jmx PLAN runs a JMeter test plan. --engine auto (the default) sends it with
the built-in generator when that runs every element of the plan, else with
JMeter itself (--engine jmeter): non-GUI, found by --jmeter, $JMETER_HOME or
PATH, alone or as the controller of running jmeter-server engines
(--jmeter-remote host:port,...); its JTL is read as it is written into the
same summary, and JMeter is stopped at the end, on Ctrl-C and when tuneloop
is killed. Then the plan's bounds hold unless -d or -c are given.

Exit status: 0 when the load ran; 1 on an error, and when no request
succeeded: none completed (a server that accepts and never answers, or never
ends a body: "0 completed of N sent"), or every one failed (not HTTP, reset,
timed out, an error status: "0 succeeded of N requests", the classes named);
with --versus, 3 when the second service is significantly slower beyond
--fail-on-regression and 4 when that cannot be told.`,
			`向服务发送 HTTP/1.1 负载，报告请求数、TPS、平均时延与
p50/p90/p95/p99/p99.9/max 时延、按类型分列的错误、逐秒序列，以及类似 JMeter
的按 label 汇总表。

闭合模型（-c N）：N 个用户，每个用户在上一个请求返回后（再加上 --think）发送
下一个请求，类似 wrk 或 JMeter 线程。使用普通 HTTP/1.1（keep-alive 或
--no-keepalive）且不带 --think 时，每个 CPU 运行一个 epoll 事件循环：每个请求
只需一次读和一次写（make bench-load 将其与 wrk 对比）。
开放模型（--rate R）：按固定时间表每秒发送 R 个请求，类似 wrk2。时延从计划
发送时刻开始计算，因此服务端卡顿会体现在百分位中；推迟和错过的发送都会计数。
使用普通 keep-alive HTTP/1.1 时同样运行在事件循环上，每次发送按微秒精度唤醒。

每次运行总是有界的：由 -d（默认 10s）和/或 -n 限定。Ctrl-C 会停止运行，但仍会
输出并保存结果。--jtl 写出 JMeter 的 CSV（可生成 JMeter 的 HTML 仪表盘：
jmeter -g results.jtl -o report/）；--import 读取 JMeter 或 tuneloop 写出的 JTL
（CSV 或 XML），并输出同样的汇总。

--jmx PLAN 运行 JMeter 测试计划。--engine auto（默认）在内置负载生成器能执行计划
中每个元素时用它发送，否则由 JMeter 本身发送（--engine jmeter）：非 GUI 模式，
按 --jmeter、$JMETER_HOME 或 PATH 查找，单独运行，或作为已运行的 jmeter-server
引擎的控制端（--jmeter-remote host:port,...）；其 JTL 边写边读，汇总方式相同，
运行结束、按 Ctrl-C 以及 tuneloop 被杀死时都会停止 JMeter。此时除非给出 -d 或
-c，否则以计划自身的边界为准。

退出码：负载运行完成时为 0；出错时为 1，没有任何请求成功时也为 1：没有请求完成
（服务器接受连接却从不应答，或响应体永不结束：“发出 N 个、完成 0 个”），或每个请求
都失败（不是 HTTP、连接被重置、超时、错误状态码：“N 个请求中成功 0 个”，并列出错误类别）；
使用 --versus 时，第二个服务显著变慢且超过 --fail-on-regression 为 3，无法判断为 4。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop load http://127.0.0.1:8080/api -c 60 -d 10m
  tuneloop load http://127.0.0.1:8080/api --rate 5000 -d 2m --warm-up 30s
  tuneloop load -f scenario.yaml --jtl results.jtl -o json
  tuneloop load https://svc:8443/ -k -X POST -H 'Content-Type: application/json' --body '{"a":1}' -n 10000
  tuneloop load --jmx plan.jmx -J host=10.0.0.5 -J users=50
  tuneloop load --jmx plan.jmx --engine jmeter --jmeter-remote 10.0.0.7:1099,10.0.0.8:1099 -d 5m
  tuneloop load --import results.jtl`,
			`  tuneloop load http://127.0.0.1:8080/api -c 60 -d 10m
  tuneloop load http://127.0.0.1:8080/api --rate 5000 -d 2m --warm-up 30s
  tuneloop load -f scenario.yaml --jtl results.jtl -o json
  tuneloop load https://svc:8443/ -k -X POST -H 'Content-Type: application/json' --body '{"a":1}' -n 10000
  tuneloop load --jmx plan.jmx -J host=10.0.0.5 -J users=50
  tuneloop load --jmx plan.jmx --engine jmeter --jmeter-remote 10.0.0.7:1099,10.0.0.8:1099 -d 5m
  tuneloop load --import results.jtl`,
		)),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.URL = args[0]
			}
			return RunLoad(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.Users, "users", "c", 0, helpText(finding.T("closed model: concurrent users (default 10 when --rate is not set)", "闭合模型：并发用户数（未设置 --rate 时默认 10）")))
	f.Float64Var(&o.Rate, "rate", 0, helpText(finding.T("open model: requests per second on a fixed schedule", "开放模型：按固定时间表每秒发送的请求数")))
	f.IntVar(&o.Connections, "connections", 0, helpText(finding.T("open model: connections (default rate/10, kept within 100-10000)", "开放模型：连接数（默认 rate/10，并限制在 100 到 10000 之间）")))
	f.DurationVarP(&o.Duration, "duration", "d", 0, helpText(finding.T("measured duration, after --warm-up (default 10s unless -n is given)", "计入结果的测量时长，在 --warm-up 之后开始（未指定 -n 时默认 10s）")))
	f.Int64VarP(&o.Requests, "requests", "n", 0, helpText(finding.T("stop after this many measured requests", "计入结果的请求数达到该值后停止")))
	f.DurationVar(&o.RampUp, "ramp-up", 0, helpText(finding.T("closed: start users evenly over this time; open: raise the rate linearly", "逐步加压：闭合模型在这段时间内均匀启动各用户；开放模型在这段时间内线性提升速率")))
	f.DurationVar(&o.WarmUp, "warm-up", 0, helpText(finding.T("run this long first and leave it out of the results", "预热：先运行这么长时间，且不计入结果")))
	f.DurationVar(&o.Think, "think", 0, helpText(finding.T("closed model: pause after each response", "闭合模型：每次收到响应后的思考时间")))
	f.DurationVar(&o.Timeout, "timeout", 0, helpText(finding.T("per-request timeout, connect included (default 10s)", "单个请求的超时，含建立连接的时间（默认 10s）")))
	f.StringVarP(&o.Method, "method", "X", "", helpText(finding.T("HTTP method (default GET, POST with a body)", "HTTP 方法（默认 GET，带请求体时为 POST）")))
	f.StringArrayVarP(&o.Headers, "header", "H", nil, helpText(finding.T("request header 'Name: value' (repeatable)", "请求头 'Name: value'（可重复指定）")))
	f.StringVar(&o.Body, "body", "", helpText(finding.T("request body", "请求体")))
	f.StringVar(&o.BodyFile, "body-file", "", helpText(finding.T("read the request body from this file", "从该文件读取请求体")))
	f.IntSliceVar(&o.ExpectStatus, "expect-status", nil, helpText(finding.T("accepted status codes (default: any below 400)", "视为成功的状态码（默认：低于 400 的任意状态码）")))
	f.StringVar(&o.ExpectBody, "expect-body", "", helpText(finding.T("fail a response whose body does not contain this text", "响应体不含该文本时判为失败")))
	f.StringVarP(&o.Scenario, "scenario", "f", "", helpText(finding.T("YAML scenario: several weighted requests, assertions, CSV variables", "YAML 场景文件：多个带权重的请求、断言、CSV 变量")))
	f.StringVar(&o.JMX, "jmx", "", helpText(finding.T("run the HTTP parts of a JMeter test plan (.jmx); flags given override its settings", "执行 JMeter 测试计划（.jmx）中的 HTTP 部分；显式给出的参数覆盖计划中的设置")))
	f.StringArrayVarP(&o.JProps, "jmeter-property", "J", nil, helpText(finding.T("JMeter property name=value for ${__P(name)} in --jmx (repeatable)", "--jmx 中 ${__P(name)} 使用的 JMeter 属性 name=value（可重复指定）")))
	f.BoolVar(&o.JMXSkip, "jmx-skip-unsupported", false, helpText(finding.T("run a --jmx plan without the elements tuneloop cannot run (listed) instead of refusing it", "跳过 tuneloop 无法执行的元素（会列出）继续执行 --jmx 计划，而不是拒绝执行")))
	f.StringVar(&o.Import, "import", "", helpText(finding.T("summarise a JMeter JTL file (CSV or XML) instead of running load", "汇总一个 JMeter JTL 文件（CSV 或 XML），而不施加负载")))
	outputFlag(f, &o.Output, report.LoadFormats())
	f.StringVar(&o.JTL, "jtl", "", helpText(finding.T("write every sample to this file as JMeter CSV (default columns)", "把每个样本以 JMeter CSV 格式（默认列）写入该文件")))
	f.StringVar(&o.Save, "save", "", helpText(finding.T("also write the JSON summary to this file", "同时把 JSON 汇总写入该文件")))
	f.StringVar(&o.HTML, "html", "", helpText(finding.T("also write the load report (throughput, percentiles, labels, errors over time; latency distribution) to this HTML file", "同时把压测报告（随时间变化的吞吐、百分位延迟、各标签、错误；延迟分布）写入该 HTML 文件")))
	f.StringVar(&o.Versus, "versus", "", helpText(finding.T("also load this second running service (URL), alternating with the first in windows (A B B A ...), and compare the two with intervals", "同时对第二个正在运行的服务（URL）施加负载，与第一个按窗口交替（A B B A ……），并以置信区间比较两者")))
	f.DurationVar(&o.Window, "window", 2*time.Second, helpText(finding.T("--versus: each side's turn", "--versus：每侧一次轮到的时长")))
	f.Float64Var(&o.FailOnRegPct, "fail-on-regression", 0, helpText(finding.T("--versus: exit 3 when the second service is significantly slower beyond this percent (4: inconclusive), as compare", "--versus：第二个服务显著变慢且超过该百分比时退出码为 3（4：无法判断），与 compare 相同")))
	f.BoolVar(&o.NoKeepAlive, "no-keepalive", false, helpText(finding.T("open a new connection for every request", "每个请求都新建连接")))
	f.BoolVarP(&o.Insecure, "insecure", "k", false, helpText(finding.T("do not verify TLS certificates", "不校验 TLS 证书")))
	f.BoolVar(&o.HTTP2, "http2", false, helpText(finding.T("use HTTP/2 where the server offers it over TLS (Go net/http client: slower per request)", "服务端通过 TLS 提供 HTTP/2 时使用 HTTP/2（走 Go net/http 客户端：单个请求开销更大）")))
	f.BoolVarP(&o.Quiet, "quiet", "q", false, helpText(finding.T("no live status line", "不显示实时状态行")))
	langFlag(f, &o.Lang)
	o.Engine.flags(cmd)
	return cmd
}

// RunLoad is the work of `tuneloop load`.
func RunLoad(ctx context.Context, env *Env, o *LoadOptions) error {
	if _, err := langOpt(env, o.Lang); err != nil {
		return err
	}
	if _, err := outputFormat(o.Output, report.LoadFormats()); err != nil {
		return err
	}
	if o.Import != "" {
		if o.URL != "" || o.Scenario != "" || o.JMX != "" {
			return usageErr(finding.T("--import summarises a file: give no URL or scenario with it", "--import 用于汇总文件：不要同时给出 URL 或场景文件"))
		}
		return importJTL(env, o)
	}
	ec, err := chooseEngine(o.Engine, o.JMX, o.JProps, o.JMXSkip, env)
	if err != nil {
		return err
	}
	if ec.Install != nil {
		if o.Versus != "" || o.FailOnRegPct != 0 {
			return usageErr(finding.T("--versus runs on the built-in generator: give --engine builtin", "--versus 使用内置负载生成器：请给出 --engine builtin"))
		}
		return runLoadJMeter(ctx, env, o, ec)
	}
	if o.Versus != "" || o.FailOnRegPct != 0 {
		return runVersus(ctx, env, o)
	}
	cfg, err := loadConfig(o, env)
	if err != nil {
		return err
	}
	live := newLiveStatus(env, env.Stderr, o.Quiet)
	var onSecond func(loadgen.Progress)
	if live.on {
		onSecond = func(p loadgen.Progress) { live.show(report.LoadLiveLine(p, env.Lang())) }
	}
	sum, rec, err := session.Load(ctx, cfg, o.files(env), onSecond)
	live.clear()
	if err != nil {
		return loadErr(sessionErr(err))
	}
	return emitSummary(env, o, sum, rec)
}

// files are where the summary and samples go besides standard output.
func (o *LoadOptions) files(env *Env) session.LoadFiles {
	return session.LoadFiles{JTL: o.JTL, HTML: o.HTML, Save: o.Save, Lang: env.Lang()}
}

func importJTL(env *Env, o *LoadOptions) error {
	sum, err := session.ImportJTL(o.Import, func(line string) { fmt.Fprintln(env.Stderr, line) })
	if err != nil {
		return loadErr(err)
	}
	return emitSummary(env, o, sum, nil)
}

// emitSummary writes the summary (text or JSON, and the --save and --html
// files); rec, when the samples were recorded, gives the page its series.
func emitSummary(env *Env, o *LoadOptions, s *loadgen.Summary, rec *report.LoadRecorder) error {
	if err := session.SaveLoad(s, rec, o.files(env)); err != nil {
		return loadErr(err)
	}
	format, _ := report.LoadFormats().Parse(o.Output) // validated by RunLoad
	if err := report.WriteLoad(env.Stdout, s, format, env.Lang()); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return loadErr(err)
	}
	return loadErr(s.NoSuccess()) // nothing succeeded: not a measurement
}

// loadErr is a load that failed (exit 1), unless err already carries its
// exit code.
func loadErr(err error) error {
	var ee *ExitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: ExitFailure, Err: err}
}
