// Package jmx reads JMeter test plans (.jmx) and turns their HTTP parts into
// a load generator configuration: thread groups, HTTP samplers and their
// defaults, header managers, a CSV data set, response assertions, timers,
// user-defined variables and ${__P(...)} properties. Whatever the generator
// cannot do as JMeter would is listed by element type and name (Unsupported),
// and where it does something close but not the same, a Note says what.
package jmx

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// Plan is what was read from a test plan.
type Plan struct {
	Name   string
	Groups []Group
	CSV    *CSVDataSet // nil: none
	// Unsupported elements: refused unless the user skips them, then left
	// out (with their children, except a transaction controller's).
	Unsupported []Item
	Notes       []finding.Text // where the run differs from JMeter's
	Timeout     time.Duration  // the longest response timeout a sampler sets
	NoKeepAlive bool           // every sampler turns keep-alive off
	keepAlive   int            // samplers with keep-alive on
}

// Group is one thread group.
type Group struct {
	Name     string
	Users    int
	RampUp   time.Duration
	Loops    int           // iterations per user; -1 = until Duration
	Duration time.Duration // scheduler duration; 0 = none
	Think    time.Duration // mean timer delay before a request
	// Requests in plan order (loop controllers unrolled); Weight is how
	// often each is sent in a row (a loop controller kept rolled up).
	Requests []loadgen.Request
	pause    time.Duration // timers and flow control pauses per iteration
}

// CSVDataSet is a CSV Data Set Config.
type CSVDataSet struct {
	Name, Filename, Delimiter string
	Names                     []string // empty: the file's first line names the columns
	Recycle, IgnoreFirstLine  bool
	Quoted, StopThread        bool
	ShareMode                 string
}

// Item is a plan element the generator does not run.
type Item struct {
	Element string // test class, e.g. JDBCSampler
	Name    string // testname, as written in the plan
	Why     finding.Text
}

// String is the item for a message (sanitised: names come from the file).
func (it Item) String() string {
	return finding.SafeLine(it.Element) + " \"" + finding.SafeLine(it.Name) + "\""
}

// Read parses a test plan. props are JMeter properties (-J name=value).
// It does no I/O beyond r: the CSV file is read by Load.
func Read(r io.Reader, props map[string]string) (*Plan, error) {
	top, err := readTree(r)
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	x := &expander{props: props, vars: map[string]string{}, keep: map[string]bool{}}
	w := &walker{p: p, x: x}
	// CSV columns are substituted per request, so a user variable of the
	// same name must not replace them.
	visit(top, func(e elem) {
		if e.n.class() == "CSVDataSet" {
			for _, n := range strings.Split(e.n.str("variableNames"), ",") {
				if n = strings.TrimSpace(n); n != "" {
					x.keep[n] = true
				}
			}
		}
	})
	for _, e := range top {
		if !e.n.enabled() || ignored[e.n.class()] {
			continue
		}
		if e.n.class() != "TestPlan" {
			w.unsupported(e.n, finding.T("outside the test plan", "不在测试计划之内"))
			continue
		}
		p.Name = e.n.name()
		w.userVars(e.n.prop("TestPlan.user_defined_variables"))
		if e.n.boolean("TestPlan.serialize_threadgroups") {
			w.note(finding.T("the plan runs its thread groups one after another; they run together here",
				"计划要求线程组依次执行；这里它们同时执行"))
		}
		// User Defined Variables elements apply to the whole plan, wherever they sit.
		visit(e.kids, func(k elem) {
			if k.n.class() == "Arguments" {
				w.userVars(k.n)
			}
		})
		w.level(e.kids, scope{}, nil)
	}
	if len(x.funcs) > 0 {
		seen := map[string]bool{}
		for _, f := range x.funcs {
			if !seen[f] {
				seen[f] = true
				p.Unsupported = append(p.Unsupported, Item{Element: "function", Name: f,
					Why: finding.T("evaluated by JMeter at run time; sent as written", "由 JMeter 在运行时求值；这里按原文发送")})
			}
		}
	}
	if p.keepAlive == 0 && p.NoKeepAlive {
		p.NoKeepAlive = true
	} else {
		p.NoKeepAlive = false
	}
	return p, nil
}

// visit calls f on every enabled element, depth first.
func visit(es []elem, f func(elem)) {
	for _, e := range es {
		if e.n.enabled() {
			f(e)
			visit(e.kids, f)
		}
	}
}

// scope is what applies to the samplers below an element: JMeter applies
// config elements, timers and assertions to every sampler in their subtree.
type scope struct {
	defaults   []*node // HTTP Request Defaults, outermost first
	headers    []loadgen.Header
	think      time.Duration
	assertions []*node
}

type walker struct {
	p *Plan
	x *expander
}

func (w *walker) unsupported(n *node, why finding.Text) {
	w.p.Unsupported = append(w.p.Unsupported, Item{Element: n.class(), Name: n.name(), Why: why})
}

func (w *walker) note(t finding.Text) {
	for _, n := range w.p.Notes {
		if n == t {
			return
		}
	}
	w.p.Notes = append(w.p.Notes, t)
}

func (w *walker) userVars(args *node) {
	if args == nil {
		return
	}
	for _, a := range args.prop("Arguments.arguments").props() {
		name := a.str("Argument.name")
		if name == "" || w.x.keep[name] {
			continue
		}
		w.x.vars[name] = w.x.expand(a.raw("Argument.value"))
	}
}

// listeners and elements JMeter does not run as part of a test: ignored.
var ignored = map[string]bool{
	"ResultCollector": true, "Summariser": true, "BackendListener": true, "ResultSaver": true,
	"JSR223Listener": true, "BeanShellListener": true, "MailerResultCollector": true,
	"WorkBench": true, "ProxyControl": true, "HttpMirrorControl": true, "PropertyDisplay": true,
	"TestFragmentController": true, "Arguments": true, // read before the walk
}

func isSampler(class string) bool {
	return class == "HTTPSamplerProxy" || class == "HTTPSampler" || class == "HTTPSampler2"
}

func isThreadGroup(class string) bool { return strings.HasSuffix(class, "ThreadGroup") }

// level handles the elements of one hashTree: first what is in scope for
// the whole level, then samplers, controllers and thread groups in order.
func (w *walker) level(es []elem, sc scope, g *Group) {
	sc = w.scoped(es, sc)
	for _, e := range es {
		n := e.n
		c := n.class()
		if !n.enabled() || ignored[c] || scopedClass(n) {
			continue
		}
		switch {
		case isThreadGroup(c):
			if g != nil {
				w.unsupported(n, finding.T("a thread group inside another element", "线程组嵌套在其他元素中"))
				continue
			}
			if c != "ThreadGroup" {
				w.unsupported(n, finding.T("only the standard Thread Group is supported", "仅支持标准线程组（Thread Group）"))
				continue
			}
			w.threadGroup(e, sc)
		case g == nil:
			w.unsupported(n, finding.T("outside a thread group", "不在线程组内"))
		case isSampler(c):
			w.sampler(e, sc, g)
		case c == "GenericController" || c == "RecordingController":
			w.level(e.kids, sc, g) // a simple controller only groups
		case c == "LoopController":
			loops, err := strconv.Atoi(w.x.expand(n.str("LoopController.loops")))
			if err != nil || loops < 0 {
				w.unsupported(n, finding.T("a loop controller that loops forever or a number not known before the run",
					"无限循环或循环次数在运行前未知的循环控制器"))
				continue
			}
			w.loop(e, sc, g, loops)
		case c == "TestAction" && isPause(e, w.x):
			// A Flow Control Action pausing the thread: the think time
			// pattern of JMeter's templates; it records no sample.
			inner := w.scoped(e.kids, sc)
			ms, _ := strconv.Atoi(w.x.expand(n.str("ActionProcessor.duration")))
			g.pause += inner.think + time.Duration(ms)*time.Millisecond
		case c == "TransactionController":
			w.unsupported(n, finding.T("transaction samples are not recorded; skipped, its requests still run",
				"不记录事务样本；跳过时其中的请求照常执行"))
			w.level(e.kids, sc, g)
		default:
			w.unsupported(n, kindWhy(c))
		}
	}
}

// maxUnrolled bounds the requests a loop controller is unrolled into: each
// is a request of the generator, with its own histograms.
const maxUnrolled = 64

// loop adds a loop controller's requests to g as JMeter sends them: its
// block of samplers loops times over (a, b, a, b). A block of one sampler,
// or one that would unroll past maxUnrolled requests, is kept once with
// its weight multiplied instead: the same counts, each request sent loops
// times in a row (a, a, b, b).
func (w *walker) loop(e elem, sc scope, g *Group, loops int) {
	start, pause := len(g.Requests), g.pause
	w.level(e.kids, sc, g)
	block := g.Requests[start:]
	g.pause = pause + (g.pause-pause)*time.Duration(loops)
	switch n := len(block); {
	case loops == 0:
		g.Requests = g.Requests[:start]
	case n == 1 || n*loops > maxUnrolled:
		for i := range block {
			block[i].Weight *= loops
		}
		if n > 1 {
			w.note(finding.T("a loop controller's samplers are each sent its count of times in a row (a, a, b, b) rather than in turn: the same counts",
				"循环控制器中的每个取样器连续发送其次数（a, a, b, b），而不是轮流发送：数量相同"))
		}
	default:
		once := append([]loadgen.Request(nil), block...)
		for range loops - 1 {
			g.Requests = append(g.Requests, once...)
		}
	}
}

// isPause reports a Flow Control Action that pauses the current thread.
func isPause(e elem, x *expander) bool {
	a := x.expand(e.n.str("ActionProcessor.action"))
	t := x.expand(e.n.str("ActionProcessor.target"))
	return a == "1" && (t == "" || t == "0")
}

func kindWhy(c string) finding.Text {
	switch {
	case strings.HasSuffix(c, "Controller"):
		return finding.T("logic controller: not run; skipped with what it contains", "逻辑控制器：不支持；跳过时连同其内容一起跳过")
	case strings.HasSuffix(c, "Sampler") || c == "TestAction":
		return finding.T("not an HTTP request sampler", "不是 HTTP 请求取样器")
	default:
		return finding.T("not supported by tuneloop's load generator", "tuneloop 负载生成器不支持")
	}
}

// scopedClass reports elements that apply to a scope rather than run.
func scopedClass(n *node) bool {
	switch c := n.class(); {
	case isSampler(c), isThreadGroup(c), strings.HasSuffix(c, "Controller") && c != "ResultCollector" && c != "MailerResultCollector",
		ignored[c], c == "TestAction", strings.HasSuffix(c, "Sampler"):
		return false
	}
	return true
}

// scoped reads the config elements, timers, assertions and processors of a
// level into the scope its samplers see.
func (w *walker) scoped(es []elem, sc scope) scope {
	sc.headers = append([]loadgen.Header(nil), sc.headers...)
	sc.assertions = append([]*node(nil), sc.assertions...)
	sc.defaults = append([]*node(nil), sc.defaults...)
	var headers []loadgen.Header
	for _, e := range es {
		n := e.n
		if !n.enabled() || !scopedClass(n) {
			continue
		}
		switch c := n.class(); c {
		case "ConfigTestElement":
			if n.attr("guiclass") == "HttpDefaultsGui" || n.prop("HTTPSampler.domain") != nil || n.prop("HTTPSampler.path") != nil {
				sc.defaults = append(sc.defaults, n)
			} else {
				w.unsupported(n, kindWhy(c))
			}
		case "HeaderManager":
			for _, h := range n.prop("HeaderManager.headers").props() {
				name := strings.TrimSpace(w.x.expand(h.str("Header.name")))
				if name != "" {
					headers = setHeader(headers, name, strings.TrimSpace(w.x.expand(h.raw("Header.value"))))
				}
			}
		case "ConstantTimer", "UniformRandomTimer", "GaussianRandomTimer":
			sc.think += w.timer(n)
		case "ResponseAssertion":
			sc.assertions = append(sc.assertions, n)
		case "CSVDataSet":
			w.csv(n)
		case "CookieManager":
			w.unsupported(n, finding.T("the load generator keeps no cookies: every request is sent without them",
				"负载生成器不保存 Cookie：每个请求都不带 Cookie"))
		default:
			w.unsupported(n, kindWhy(c))
		}
	}
	// Inner header managers override outer ones header by header.
	for _, h := range headers {
		sc.headers = setHeader(sc.headers, h.Name, h.Value)
	}
	return sc
}

func setHeader(hs []loadgen.Header, name, value string) []loadgen.Header {
	for i := range hs {
		if strings.EqualFold(hs[i].Name, name) {
			hs[i].Value = value
			return hs
		}
	}
	return append(hs, loadgen.Header{Name: name, Value: value})
}

// timer is the mean delay of a timer.
func (w *walker) timer(n *node) time.Duration {
	ms := func(prop string) float64 {
		s := w.x.expand(n.str(prop))
		if s == "" {
			return 0
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 {
			w.unsupported(n, finding.T("a delay that is not a number of milliseconds", "延迟不是毫秒数"))
			return 0
		}
		return v
	}
	d := ms("ConstantTimer.delay")
	switch n.class() {
	case "UniformRandomTimer":
		d += ms("RandomTimer.range") / 2
		w.note(finding.T("random timers: every pause is the timer's mean (the generator has a constant think time)",
			"随机定时器：每次停顿取其平均值（负载生成器只有固定的思考时间）"))
	case "GaussianRandomTimer":
		ms("RandomTimer.range")
		w.note(finding.T("random timers: every pause is the timer's mean (the generator has a constant think time)",
			"随机定时器：每次停顿取其平均值（负载生成器只有固定的思考时间）"))
	}
	return time.Duration(d * float64(time.Millisecond))
}

func (w *walker) csv(n *node) {
	if w.p.CSV != nil {
		w.unsupported(n, finding.T("only one CSV data set per plan", "每个计划只支持一个 CSV 数据集"))
		return
	}
	d := &CSVDataSet{Name: n.name(), Filename: w.x.expand(n.str("filename")), Delimiter: w.x.expand(n.raw("delimiter")),
		Recycle: n.str("recycle") != "false", IgnoreFirstLine: n.boolean("ignoreFirstLine"),
		Quoted: n.boolean("quotedData"), StopThread: n.boolean("stopThread"), ShareMode: n.str("shareMode")}
	for _, name := range strings.Split(n.str("variableNames"), ",") {
		if name = strings.TrimSpace(name); name != "" {
			d.Names = append(d.Names, name)
		}
	}
	if d.Delimiter == "" {
		d.Delimiter = ","
	}
	if d.Filename == "" {
		w.unsupported(n, finding.T("no file name", "没有文件名"))
		return
	}
	if !d.Recycle {
		w.note(finding.T("CSV data set: rows are reused from the top when they run out (the generator always recycles)",
			"CSV 数据集：数据行用完后从头复用（负载生成器总是循环使用）"))
	}
	if d.ShareMode != "" && d.ShareMode != "shareMode.all" {
		w.note(finding.T("CSV data set: rows are shared by all users (the generator has one cursor)",
			"CSV 数据集：所有用户共用数据行（负载生成器只有一个游标）"))
	}
	w.p.CSV = d
}

func (w *walker) threadGroup(e elem, sc scope) {
	n := e.n
	g := Group{Name: n.name(), Loops: -1}
	num := func(prop string) (int, bool) {
		s := w.x.expand(n.str(prop))
		if s == "" {
			return 0, true
		}
		v, err := strconv.Atoi(strings.TrimSpace(s))
		return v, err == nil && v >= 0
	}
	users, ok1 := num("ThreadGroup.num_threads")
	ramp, ok2 := num("ThreadGroup.ramp_time")
	if !ok1 || !ok2 {
		w.unsupported(n, finding.T("users or ramp-up is not a whole number", "用户数或启动时间不是整数"))
		return
	}
	g.Users, g.RampUp = users, time.Duration(ramp)*time.Second
	lc := n.prop("ThreadGroup.main_controller")
	if s := w.x.expand(lc.str("LoopController.loops")); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			w.unsupported(n, finding.T("the loop count is not a whole number", "循环次数不是整数"))
			return
		}
		if v >= 0 {
			g.Loops = v
		}
	}
	if n.boolean("ThreadGroup.scheduler") {
		d, ok := num("ThreadGroup.duration")
		if !ok {
			w.unsupported(n, finding.T("the duration is not a whole number of seconds", "持续时间不是整数秒"))
			return
		}
		g.Duration = time.Duration(d) * time.Second
		if delay, _ := num("ThreadGroup.delay"); delay > 0 {
			w.note(finding.T("a thread group's startup delay is ignored: every group starts at once",
				"线程组的启动延迟被忽略：所有线程组同时开始"))
		}
	}
	w.level(e.kids, sc, &g)
	// Timers run before each sampler in their scope; the generator pauses
	// after each response, which spaces an iteration's requests the same.
	if n := totalWeight(g.Requests); n > 0 {
		g.Think = g.pause / time.Duration(n)
		if g.pause > 0 && len(g.Requests) > 1 {
			w.note(finding.T("pauses (timers, flow control actions) are spread evenly after every request: an iteration pauses as long in total",
				"停顿（定时器、流程控制动作）平均分摊到每个请求之后：每次迭代的总停顿时间不变"))
		}
	}
	if g.Users == 0 || len(g.Requests) == 0 || g.Loops == 0 {
		return // sends nothing, as in JMeter
	}
	w.p.Groups = append(w.p.Groups, g)
}

// sampler turns an HTTP Request sampler into a request of g.
func (w *walker) sampler(e elem, sc scope, g *Group) {
	n := e.n
	sc = w.scoped(e.kids, sc) // its own headers, timers, assertions
	for _, k := range e.kids {
		if k.n.enabled() && !scopedClass(k.n) && !ignored[k.n.class()] {
			w.unsupported(k.n, kindWhy(k.n.class()))
		}
	}
	field := func(prop string) string {
		if v := w.x.expand(n.str(prop)); v != "" {
			return v
		}
		for i := len(sc.defaults) - 1; i >= 0; i-- {
			if v := w.x.expand(sc.defaults[i].str(prop)); v != "" {
				return v
			}
		}
		return ""
	}
	if n.boolean("HTTPSampler.DO_MULTIPART_POST") || len(n.prop("HTTPsampler.Files").prop("HTTPFileArgs.files").props()) > 0 {
		w.unsupported(n, finding.T("multipart or file upload", "multipart 或文件上传"))
		return
	}
	if n.boolean("HTTPSampler.image_parser") || (n.prop("HTTPSampler.image_parser") == nil && anyBool(sc.defaults, "HTTPSampler.image_parser")) {
		w.unsupported(n, finding.T("downloading embedded resources", "下载页面内嵌资源"))
		return
	}
	method := strings.ToUpper(w.x.expand(n.str("HTTPSampler.method")))
	if method == "" {
		method = "GET"
	}
	path := field("HTTPSampler.path")
	var raw string
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		raw = path
	} else {
		host := field("HTTPSampler.domain")
		if host == "" {
			w.unsupported(n, finding.T("no server name: set it in the sampler or in HTTP Request Defaults (JMeter fails this request too)",
				"没有服务器名：请在取样器或 HTTP 请求默认值中设置（JMeter 也会让该请求失败）"))
			return
		}
		scheme := strings.ToLower(field("HTTPSampler.protocol"))
		if scheme == "" {
			scheme = "http"
		}
		if scheme != "http" && scheme != "https" {
			w.unsupported(n, finding.T("protocol is not http or https", "协议不是 http 或 https"))
			return
		}
		if port := field("HTTPSampler.port"); port != "" {
			host += ":" + port
		}
		if path != "" && !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		raw = scheme + "://" + host + path
	}
	q := loadgen.Request{Label: w.x.expand(n.name()), Method: method, URL: raw, Weight: 1,
		Headers: append([]loadgen.Header(nil), sc.headers...)}
	w.arguments(n, sc, &q)
	for _, a := range sc.assertions {
		w.assertion(a, &q)
	}
	if t := field("HTTPSampler.response_timeout"); t != "" {
		if ms, err := strconv.Atoi(t); err == nil && ms > 0 {
			w.p.Timeout = max(w.p.Timeout, time.Duration(ms)*time.Millisecond)
		}
	}
	if n.boolean("HTTPSampler.follow_redirects") || n.boolean("HTTPSampler.auto_redirects") {
		w.note(finding.T("redirects are not followed: a 3xx answer is the request's result (JMeter follows them)",
			"不跟随重定向：3xx 响应即为该请求的结果（JMeter 会跟随）"))
	}
	if n.prop("HTTPSampler.use_keepalive") != nil && !n.boolean("HTTPSampler.use_keepalive") {
		w.p.NoKeepAlive = true
	} else {
		w.p.keepAlive++
	}
	g.pause += time.Duration(q.Weight) * sc.think
	g.Requests = append(g.Requests, q)
}

func anyBool(ns []*node, prop string) bool {
	for _, n := range ns {
		if n.boolean(prop) {
			return true
		}
	}
	return false
}

func totalWeight(qs []loadgen.Request) int {
	t := 0
	for _, q := range qs {
		t += q.Weight
	}
	return t
}

// arguments puts a sampler's parameters (and the defaults') into the query
// or the body, as JMeter does for the method.
func (w *walker) arguments(n *node, sc scope, q *loadgen.Request) {
	args := n.prop("HTTPsampler.Arguments").prop("Arguments.arguments").props()
	for i := len(sc.defaults) - 1; i >= 0; i-- {
		args = append(args, sc.defaults[i].prop("HTTPsampler.Arguments").prop("Arguments.arguments").props()...)
	}
	if len(args) == 0 {
		return
	}
	if n.boolean("HTTPSampler.postBodyRaw") {
		var b strings.Builder
		for _, a := range args {
			b.WriteString(w.x.expand(a.raw("Argument.value")))
		}
		q.Body = []byte(b.String())
		return
	}
	var parts []string
	seen := map[string]bool{}
	for _, a := range args {
		name := w.x.expand(a.str("Argument.name"))
		if seen[name] || name == "" && a.raw("Argument.value") == "" {
			continue
		}
		seen[name] = true
		value := w.x.expand(a.raw("Argument.value"))
		if a.boolean("HTTPArgument.always_encode") {
			name, value = encodeLiteral(name), encodeLiteral(value)
		}
		if a.prop("HTTPArgument.use_equals") != nil && !a.boolean("HTTPArgument.use_equals") && value == "" {
			parts = append(parts, name)
		} else {
			parts = append(parts, name+"="+value)
		}
	}
	enc := strings.Join(parts, "&")
	switch q.Method {
	case "POST", "PUT", "PATCH":
		q.Body = []byte(enc)
		if !hasHeader(q.Headers, "Content-Type") {
			q.Headers = append(q.Headers, loadgen.Header{Name: "Content-Type", Value: "application/x-www-form-urlencoded"})
		}
	default:
		if strings.Contains(q.URL, "?") {
			q.URL += "&" + enc
		} else {
			q.URL += "?" + enc
		}
	}
}

// encodeLiteral form-encodes s except its ${name} references, which the
// generator fills in per request.
func encodeLiteral(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(url.QueryEscape(s))
			return b.String()
		}
		end := closing(s, i+2)
		if end < 0 {
			b.WriteString(url.QueryEscape(s))
			return b.String()
		}
		b.WriteString(url.QueryEscape(s[:i]))
		b.WriteString(s[i : end+1])
		s = s[end+1:]
	}
}

func hasHeader(hs []loadgen.Header, name string) bool {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return true
		}
	}
	return false
}

// Response assertion test types (JMeter's bit flags).
const (
	tMatch    = 1
	tContains = 2
	tNot      = 4
	tEquals   = 8
	tSubstr   = 16
	tOr       = 32
)

// assertion maps a Response Assertion onto the generator's two checks: the
// status code is one of a list, the body contains a text.
func (w *walker) assertion(n *node, q *loadgen.Request) {
	typ, _ := strconv.Atoi(n.str("Assertion.test_type"))
	var tests []string
	for _, s := range n.prop("Asserion.test_strings").props() { // sic: JMeter's spelling
		tests = append(tests, w.x.expand(s.Text))
	}
	field := n.str("Assertion.test_field")
	bad := func(why finding.Text) {
		for _, it := range w.p.Unsupported {
			if it.Element == n.class() && it.Name == n.name() && it.Why == why {
				return
			}
		}
		w.unsupported(n, why)
	}
	if typ&tNot != 0 {
		bad(finding.T("a negated assertion (NOT)", "取反断言（NOT）"))
		return
	}
	if len(tests) == 0 {
		return
	}
	switch field {
	case "Assertion.response_code":
		var codes []int
		for _, s := range tests {
			c, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || c < 100 || c > 599 {
				bad(finding.T("a response code pattern other than a plain code", "响应码模式不是具体的状态码"))
				return
			}
			codes = append(codes, c)
		}
		if len(codes) > 1 && typ&tOr == 0 {
			bad(finding.T("several response codes that must all match", "要求同时匹配多个响应码"))
			return
		}
		q.ExpectStatus = append(q.ExpectStatus, codes...)
	case "Assertion.response_data", "":
		if len(tests) > 1 || q.ExpectBody != "" {
			bad(finding.T("more than one text to find in a response body", "在响应体中查找多个文本"))
			return
		}
		s := tests[0]
		if typ&(tMatch|tEquals) != 0 || typ&tContains != 0 && strings.ContainsAny(s, `.*+?()[]{}|^$\`) {
			bad(finding.T("a body pattern other than contained text", "响应体模式不是“包含文本”"))
			return
		}
		q.ExpectBody = s
	default:
		bad(finding.T(fmt.Sprintf("checks %s, not the response code or body", field), fmt.Sprintf("检查 %s，而不是响应码或响应体", field)))
	}
}
