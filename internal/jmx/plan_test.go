package jmx

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

func readFixture(t *testing.T, name string, props map[string]string) *Plan {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Read(f, props)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

func labels(p *Plan) []string {
	var out []string
	for _, g := range p.Groups {
		for _, q := range g.Requests {
			out = append(out, q.Label)
		}
	}
	return out
}

func unsupported(p *Plan) []string {
	var out []string
	for _, it := range p.Unsupported {
		out = append(out, it.Element+":"+it.Name)
	}
	return out
}

// The public plans: what a user would check is which requests run, how
// much, and what is refused.
func TestReadPublicPlans(t *testing.T) {
	for _, tc := range []struct {
		file        string
		labels      []string
		users       int
		maxRequests int64
		duration    time.Duration
		unsupported []string
		noRun       bool
	}{
		{file: "SimpleTestPlan.jmx", labels: []string{"Home Page", "News Page", "Home Page", "History Page"}, users: 1, maxRequests: 4},
		{file: "AssertionTestPlan.jmx", labels: []string{"HTTP Request"}, users: 1, maxRequests: 1},
		{file: "HeaderManagerTestPlan.jmx", labels: []string{"HTTP Request"}, users: 1, maxRequests: 1},
		{file: "build-web-test-plan.jmx", labels: []string{"Home Page", "Page Returning 404"}, users: 5, duration: time.Minute,
			unsupported: []string{"CookieManager:HTTP Cookie Manager"}},
		{file: "build-adv-web-test-plan.jmx", labels: []string{"Home Page", "Changes", "BugDetail Page"}, users: 1, maxRequests: 6,
			unsupported: []string{"CookieManager:HTTP Cookie Manager", "RegexExtractor:randomBugIdExtractor"}},
		{file: "TestCookieManager.jmx", users: 4, maxRequests: 8,
			labels: []string{"HTTP-Request-HC4", "HTTPS-Request-HC4", "HTTP-Request-Java", "HTTPS-Request-Java",
				"HTTP-NonManagedCookie-HC4", "HTTPS-NonManagedCookie-HC4", "HTTP-NonManagedCookie-Java", "HTTPS-NonManagedCookie-Java"},
			unsupported: []string{"SetupThreadGroup:setUp Thread Group", "CookieManager:HTTP Cookie Manager",
				"ResponseAssertion:Request Assertion", "CookieManager:HTTP Cookie Manager", "PostThreadGroup:tearDown Thread Group"}},
		{file: "jdbc.jmx", noRun: true,
			unsupported: []string{"JDBCDataSource:JDBC Connection Configuration", "JDBCSampler:JDBC Request"}},
		{file: "CSVSample.jmx", noRun: true, unsupported: []string{"JavaSampler:Dummy Login", "JavaSampler:Java Request",
			"WhileController:While Controller", "JavaSampler:Logout", "JavaSampler:Java Request"}},
		{file: "simple-http-request-test-plan.jmx", noRun: true, unsupported: []string{"HTTPSamplerProxy:HTTP Request"}},
		{file: "recording-with-think-time.jmx", noRun: true, unsupported: []string{"CookieManager:HTTP Cookie Manager"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := readFixture(t, tc.file, nil)
			if got := labels(p); !slices.Equal(got, tc.labels) {
				t.Errorf("labels %q, want %q", got, tc.labels)
			}
			if got := unsupported(p); !slices.Equal(got, tc.unsupported) {
				t.Errorf("unsupported %q, want %q", got, tc.unsupported)
			}
			cfg, _, err := p.Config()
			if tc.noRun {
				if err == nil {
					t.Fatal("a plan without HTTP requests gave a config")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Users != tc.users || cfg.MaxRequests != tc.maxRequests || cfg.Duration != tc.duration {
				t.Errorf("users %d requests %d duration %v, want %d %d %v", cfg.Users, cfg.MaxRequests, cfg.Duration,
					tc.users, tc.maxRequests, tc.duration)
			}
		})
	}
}

func TestReadDetails(t *testing.T) {
	p := readFixture(t, "build-adv-web-test-plan.jmx", nil)
	q := p.Groups[0].Requests[0]
	if q.URL != "http://site.example/" || q.Method != "GET" || q.ExpectBody != "<title>Apache JMeter - Apache JMeter&trade;</title>" {
		t.Errorf("home page %+v", q)
	}
	if !slices.Contains(q.Headers, loadgen.Header{Name: "Accept-Language", Value: "fr,en;q=0.8,fr-fr;q=0.5,en-us;q=0.3"}) {
		t.Errorf("headers %v", q.Headers)
	}
	// BugDetail uses https from its own protocol and a variable set by a
	// regular expression extractor: left as written.
	if got := p.Groups[0].Requests[2].URL; got != "https://bz.site.example/bugzilla/show_bug.cgi?id=${bugId}" {
		t.Errorf("bug detail URL %q", got)
	}
	if th := p.Groups[0].Think; th <= 0 {
		t.Errorf("the template's think time (flow control actions with random timers) was lost: %v", th)
	}
	w := readFixture(t, "build-web-test-plan.jmx", nil)
	if got := w.Groups[0].Requests[1].ExpectStatus; !slices.Equal(got, []int{404}) {
		t.Errorf("404 assertion: %v", got)
	}
}

func TestLocalPlanWithProperties(t *testing.T) {
	_, cfg, notes, err := Load(filepath.Join("testdata", "local-plan.jmx"), map[string]string{"port": "9001", "users": "3", "loops": "5"})
	if err != nil {
		t.Fatal(err)
	}
	want := []loadgen.Request{
		{Label: "home", Method: "GET", URL: "http://127.0.0.1:9001/", Weight: 1, ExpectStatus: []int{200},
			Headers: []loadgen.Header{{Name: "X-Client", Value: "jmx-check"}}},
		{Label: "balance", Method: "GET", URL: "http://127.0.0.1:9001/api/balance?acct=${account}", Weight: 1,
			Headers: []loadgen.Header{{Name: "X-Client", Value: "jmx-check"}}},
		{Label: "login", Method: "POST", URL: "http://127.0.0.1:9001/api/login", Weight: 2, Body: []byte(`{"user":"${user}"}`),
			Headers: []loadgen.Header{{Name: "X-Client", Value: "jmx-check"}, {Name: "Content-Type", Value: "application/json"}}},
	}
	if len(cfg.Requests) != len(want) {
		t.Fatalf("requests %+v", cfg.Requests)
	}
	for i := range want {
		g, w := cfg.Requests[i], want[i]
		if g.Label != w.Label || g.Method != w.Method || g.URL != w.URL || g.Weight != w.Weight || !bytes.Equal(g.Body, w.Body) ||
			!slices.Equal(g.Headers, w.Headers) || !slices.Equal(g.ExpectStatus, w.ExpectStatus) {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	// 3 users x 5 loops x (1 + 1 + 2 in the loop controller).
	if cfg.Users != 3 || cfg.MaxRequests != 60 || cfg.RampUp != time.Second || cfg.Think != 10*time.Millisecond {
		t.Errorf("users %d requests %d ramp %v think %v", cfg.Users, cfg.MaxRequests, cfg.RampUp, cfg.Think)
	}
	if cfg.Vars == nil || !slices.Equal(cfg.Vars.Names, []string{"user", "account"}) || len(cfg.Vars.Rows) != 3 ||
		cfg.Vars.Rows[1][1] != "6222020200002" {
		t.Errorf("vars %+v", cfg.Vars)
	}
	if !cfg.Sequence || !slices.Equal(cfg.Groups, []loadgen.UserGroup{{Users: 3, Requests: 3, Loops: 5}}) {
		t.Errorf("not in plan order: sequence %v groups %+v", cfg.Sequence, cfg.Groups)
	}
	for _, n := range notes {
		if strings.Contains(n.EN, "random") {
			t.Errorf("a note says requests are not in plan order: %v", n.EN)
		}
	}
}

// countingServer counts requests per path on 127.0.0.1.
func countingServer(t *testing.T) (port string, counts func() map[string]int) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	_, port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	return port, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}

// The local plan in plan order: 3 users x 5 loops of home, balance and a
// loop controller of 2 around login send exactly 15, 15 and 30.
func TestLocalPlanRunsExactCounts(t *testing.T) {
	port, counts := countingServer(t)
	_, cfg, _, err := Load(filepath.Join("testdata", "local-plan.jmx"), map[string]string{"port": port, "users": "3", "loops": "5", "think": "0"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadgen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, l := range s.Labels {
		got[l.Label] = l.Requests
	}
	if got["home"] != 15 || got["balance"] != 15 || got["login"] != 30 || s.Errors != 0 {
		t.Errorf("labels %v errors %d", got, s.Errors)
	}
	if c := counts(); c["/"] != 15 || c["/api/balance"] != 15 || c["/api/login"] != 30 {
		t.Errorf("server saw %v", c)
	}
}

func TestExpand(t *testing.T) {
	x := &expander{props: map[string]string{"host": "svc", "p": "8443"}, vars: map[string]string{"v": "1"}, keep: map[string]bool{"col": true}}
	for in, want := range map[string]string{
		"${__P(host,localhost)}":          "svc",
		"${__P(missing,dflt)}":            "dflt",
		"${__P(missing)}":                 "1",
		"${__property(p,,80)}":            "8443",
		"${__property(nope,,80)}":         "80",
		"${__P(missing,${v}0)}":           "10",
		"a${v}b${col}c${undefined}":       "a1b${col}c${undefined}",
		"${__P(missing,a\\,b)}":           "a,b",
		"${__time()} ${__Random(1,9)} ok": "${__time()} ${__Random(1,9)} ok",
		"${unclosed":                      "${unclosed",
	} {
		if got := x.expand(in); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
	if !slices.Contains(x.funcs, "${__time()}") || !slices.Contains(x.funcs, "${__Random(1,9)}") {
		t.Errorf("functions not reported: %q", x.funcs)
	}
}

const planHead = `<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="t"/><hashTree>`
const planTail = `</hashTree></hashTree></jmeterTestPlan>`

func group(users, loops string, body string) string {
	return `<ThreadGroup testclass="ThreadGroup" testname="g` + users + `"><elementProp name="ThreadGroup.main_controller" elementType="LoopController">` +
		`<stringProp name="LoopController.loops">` + loops + `</stringProp></elementProp>` +
		`<stringProp name="ThreadGroup.num_threads">` + users + `</stringProp></ThreadGroup><hashTree>` + body + `</hashTree>`
}

func sampler(name, method, path, kids string) string {
	return `<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="` + name + `"><stringProp name="HTTPSampler.domain">h</stringProp>` +
		`<stringProp name="HTTPSampler.method">` + method + `</stringProp><stringProp name="HTTPSampler.path">` + path + `</stringProp>` +
		`</HTTPSamplerProxy><hashTree>` + kids + `</hashTree>`
}

func TestSeveralGroupsInPlanOrder(t *testing.T) {
	port, counts := countingServer(t)
	sampler := func(name, path string) string {
		return `<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="` + name + `"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>` +
			`<stringProp name="HTTPSampler.port">` + port + `</stringProp><stringProp name="HTTPSampler.path">` + path + `</stringProp>` +
			`</HTTPSamplerProxy><hashTree/>`
	}
	plan := planHead + group("6", "10", sampler("a", "/a")+sampler("b", "/b")) + group("2", "5", sampler("c", "/c")) + planTail
	p, err := Read(strings.NewReader(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := p.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Users != 8 || cfg.MaxRequests != 6*10*2+2*5 {
		t.Errorf("users %d requests %d", cfg.Users, cfg.MaxRequests)
	}
	s, err := loadgen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// 6 users send a then b 10 times; 2 users send c 5 times.
	if c := counts(); c["/a"] != 60 || c["/b"] != 60 || c["/c"] != 10 || s.Requests != 130 {
		t.Errorf("server saw %v, tuneloop counted %d", c, s.Requests)
	}
}

func TestArgumentsAndAssertions(t *testing.T) {
	args := `<elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">` +
		`<elementProp name="q" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">true</boolProp>` +
		`<stringProp name="Argument.name">q</stringProp><stringProp name="Argument.value">a b&amp;c</stringProp></elementProp>` +
		`</collectionProp></elementProp>`
	get := strings.Replace(sampler("get", "GET", "/s", ""), "</HTTPSamplerProxy>", args+"</HTTPSamplerProxy>", 1)
	post := strings.Replace(sampler("post", "POST", "/p", ""), "</HTTPSamplerProxy>", args+"</HTTPSamplerProxy>", 1)
	assertion := func(field, typ, s string) string {
		return `<ResponseAssertion testclass="ResponseAssertion" testname="as"><collectionProp name="Asserion.test_strings"><stringProp name="1">` + s +
			`</stringProp></collectionProp><stringProp name="Assertion.test_field">` + field + `</stringProp><intProp name="Assertion.test_type">` + typ + `</intProp></ResponseAssertion><hashTree/>`
	}
	plan := planHead + group("1", "1", get+post+
		sampler("codes", "GET", "/c", assertion("Assertion.response_code", "8", "201"))+
		sampler("body", "GET", "/b", assertion("Assertion.response_data", "16", "ok"))+
		sampler("not", "GET", "/n", assertion("Assertion.response_data", "6", "error"))) + planTail
	p, err := Read(strings.NewReader(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Groups[0].Requests
	if r[0].URL != "http://h/s?q=a+b%26c" || len(r[0].Body) != 0 {
		t.Errorf("GET arguments: %q %q", r[0].URL, r[0].Body)
	}
	if string(r[1].Body) != "q=a+b%26c" || !slices.Contains(r[1].Headers, loadgen.Header{Name: "Content-Type", Value: "application/x-www-form-urlencoded"}) {
		t.Errorf("POST form: %q %v", r[1].Body, r[1].Headers)
	}
	if !slices.Equal(r[2].ExpectStatus, []int{201}) || r[3].ExpectBody != "ok" {
		t.Errorf("assertions: %v %q", r[2].ExpectStatus, r[3].ExpectBody)
	}
	if got := unsupported(p); !slices.Equal(got, []string{"ResponseAssertion:as"}) {
		t.Errorf("a NOT assertion must be refused, got %q", got)
	}
}

func TestReadCSV(t *testing.T) {
	v, err := ReadCSV(strings.NewReader("\ufeffname|id\r\nann|1\nbo\n\n"), &CSVDataSet{Delimiter: "|"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Names, []string{"name", "id"}) || len(v.Rows) != 2 || v.Rows[1][1] != "" {
		t.Errorf("%+v", v)
	}
	v, err = ReadCSV(strings.NewReader("h1,h2\n\"a,b\",c,extra\n"), &CSVDataSet{Delimiter: ",", Names: []string{"x", "y"}, IgnoreFirstLine: true, Quoted: true})
	if err != nil || !slices.Equal(v.Rows[0], []string{"a,b", "c"}) {
		t.Errorf("%+v %v", v, err)
	}
	if _, err := ReadCSV(strings.NewReader(""), &CSVDataSet{Delimiter: ","}); err == nil {
		t.Error("an empty file gave variables")
	}
}

func TestBadInput(t *testing.T) {
	for _, in := range []string{"", "not xml", "<html></html>", "<jmeterTestPlan/>", "<jmeterTestPlan><hashTree>",
		strings.Repeat("<hashTree>", 300)} {
		if _, err := Read(strings.NewReader(in), nil); err == nil {
			t.Errorf("%.30q: no error", in)
		}
	}
	deep := "<jmeterTestPlan>" + strings.Repeat("<hashTree><GenericController/>", 300) + strings.Repeat("</hashTree>", 300) + "</jmeterTestPlan>"
	if _, err := Read(strings.NewReader(deep), nil); err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Errorf("deep nesting: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jmx")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Read(bytes.NewReader(b), map[string]string{"users": "2"})
		if err != nil {
			return
		}
		cfg, _, err := p.Config()
		if err != nil {
			return
		}
		if cfg.Users < 0 || cfg.MaxRequests < 0 || len(cfg.Requests) == 0 {
			t.Fatalf("bad config from a plan: %+v", cfg)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	data, err := os.ReadFile("testdata/TestCookieManager.jmx")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// A loop controller runs its block in turn (c, a, b, a, b), as JMeter does;
// one too long to unroll keeps the counts and says the order differs.
func TestLoopControllerOrder(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	sampler := func(name string) string {
		return `<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="` + name + `"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>` +
			`<stringProp name="HTTPSampler.port">` + port + `</stringProp><stringProp name="HTTPSampler.path">/` + name + `</stringProp>` +
			`</HTTPSamplerProxy><hashTree/>`
	}
	loop := func(n string, body string) string {
		return `<LoopController testclass="LoopController" testname="loop"><stringProp name="LoopController.loops">` + n + `</stringProp></LoopController><hashTree>` + body + `</hashTree>`
	}
	for _, tc := range []struct {
		loops, want string
		note        bool
	}{
		{"2", strings.Repeat("/c /a /b /a /b ", 3), false},
		{"40", strings.Repeat("/c "+strings.Repeat("/a ", 40)+strings.Repeat("/b ", 40), 3), true},
	} {
		mu.Lock()
		paths = nil
		mu.Unlock()
		plan := planHead + group("1", "3", sampler("c")+loop(tc.loops, sampler("a")+sampler("b"))) + planTail
		p, err := Read(strings.NewReader(plan), nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg, notes, err := p.Config()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := loadgen.Generate(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := strings.Join(paths, " ") + " "
		mu.Unlock()
		if got != tc.want {
			t.Errorf("loops %s: sent %q, want %q", tc.loops, got, tc.want)
		}
		said := false
		for _, n := range notes {
			said = said || strings.Contains(n.EN, "in a row")
		}
		if said != tc.note {
			t.Errorf("loops %s: note about the order %v, want %v (%v)", tc.loops, said, tc.note, notes)
		}
	}
}
