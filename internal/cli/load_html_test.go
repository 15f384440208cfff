package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// load --html writes the load report: self-contained, its series from the
// samples (p90 per second, per label), in the language asked for; with
// --import, from the JTL's summary.
func TestLoadHTML(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/login" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dir := t.TempDir()
	page := filepath.Join(dir, "load.html")
	env, _, errb := loadEnv()
	o := &LoadOptions{JMX: filepath.Join("..", "jmx", "testdata", "local-plan.jmx"), JProps: []string{"port=" + port, "users=2", "loops=3", "think=0"},
		Output: "text", HTML: page, JTL: filepath.Join(dir, "r.jtl"), Lang: "zh"}
	if err := RunLoad(context.Background(), env, o); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`lang="zh"`, "tuneloop 压测报告", "按标签", "home", "balance", "login", "每秒延迟 p50、p90、p99", "各标签每秒 p90 延迟", ">503<", "延迟分布"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(s, "http://") && !strings.Contains(s, "http://127.0.0.1:"+port) || strings.Contains(s, "<link") || strings.Contains(s, "src=\"http") {
		t.Error("the page refers to something outside itself")
	}
	if _, err := os.Stat(o.JTL); err != nil {
		t.Errorf("--jtl beside --html: %v", err)
	}

	// From a JTL: the summary's series, said on the page.
	env, _, _ = loadEnv()
	page2 := filepath.Join(dir, "import.html")
	if err := RunLoad(context.Background(), env, &LoadOptions{Import: o.JTL, Output: "text", HTML: page2}); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(page2)
	if err != nil || !strings.Contains(string(b), "from the summary&#39;s per-second series") || !strings.Contains(string(b), "login") {
		t.Errorf("imported page: %v\n%.400s", err, b)
	}
}
