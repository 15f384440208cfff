//go:build jmeter

// The check against JMeter itself (scripts/jmeter-check.sh sets JMETER_HOME
// to a JMeter 5.6.3 assembled from Maven Central): the same plan, the same
// 127.0.0.1 server, JMeter's JTL and tuneloop's JTL read back by the same
// importer and compared label by label. Plans are bounded by loops, not
// time, so the counts must be equal, not close.

package jmx

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

func TestJMeterCounts(t *testing.T) {
	home := os.Getenv("JMETER_HOME")
	if home == "" {
		t.Skip("JMETER_HOME is not set: run scripts/jmeter-check.sh")
	}
	var mu sync.Mutex
	served := map[string]int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served[r.URL.Path]++
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, tc := range []struct {
		plan    string
		props   map[string]string
		rewrite func(string) string // a public plan pointed at the local server and given loops
	}{
		// Ours: CSV data set, header managers, a loop controller of 2, an assertion.
		{plan: "local-plan.jmx", props: map[string]string{"port": port, "users": "4", "loops": "25", "think": "0"}},
		// Apache JMeter's xdocs/demos/SimpleTestPlan.jmx: four samplers under two
		// simple controllers, two of them labelled "Home Page"; its server
		// replaced by the local one, 1 user x 1 loop made 3 users x 20 loops.
		{plan: "SimpleTestPlan.jmx", rewrite: func(s string) string {
			s = strings.Replace(s, `<stringProp name="HTTPSampler.domain">jakarta.apache.org</stringProp>`,
				`<stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>`, 1)
			s = strings.Replace(s, `<stringProp name="HTTPSampler.port"></stringProp>`, `<stringProp name="HTTPSampler.port">`+port+`</stringProp>`, 1)
			s = strings.Replace(s, `<stringProp name="LoopController.loops">1</stringProp>`, `<stringProp name="LoopController.loops">20</stringProp>`, 1)
			return strings.Replace(s, `<stringProp name="ThreadGroup.num_threads">1</stringProp>`, `<stringProp name="ThreadGroup.num_threads">3</stringProp>`, 1)
		}},
	} {
		t.Run(tc.plan, func(t *testing.T) {
			dir := t.TempDir()
			plan, _ := filepath.Abs(filepath.Join("testdata", tc.plan))
			if tc.rewrite != nil {
				b, err := os.ReadFile(plan)
				if err != nil {
					t.Fatal(err)
				}
				plan = filepath.Join(dir, tc.plan)
				if err := os.WriteFile(plan, []byte(tc.rewrite(string(b))), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				// The CSV file is relative to the plan.
				b, _ := os.ReadFile(filepath.Join("testdata", "local-users.csv"))
				os.WriteFile(filepath.Join(dir, "local-users.csv"), b, 0o644)
				b, _ = os.ReadFile(plan)
				plan = filepath.Join(dir, tc.plan)
				os.WriteFile(plan, b, 0o644)
			}
			mu.Lock()
			clear(served)
			mu.Unlock()
			jmOut := filepath.Join(dir, "jmeter.jtl")
			args := []string{"-jar", filepath.Join(home, "bin", "ApacheJMeter.jar"), "-n", "-t", plan, "-l", jmOut, "-j", filepath.Join(dir, "jmeter.log")}
			for k, v := range tc.props {
				args = append(args, "-J"+k+"="+v)
			}
			cmd := exec.Command("java", args...)
			cmd.Dir = home
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("jmeter: %v\n%s", err, b)
			}
			mu.Lock()
			jmServed := fmt.Sprint(served)
			clear(served)
			mu.Unlock()

			p, cfg, notes, err := Load(plan, tc.props)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.Unsupported {
				t.Logf("skipped: %s", it)
			}
			for _, n := range notes {
				t.Logf("note: %s", n.EN)
			}
			tlOut := filepath.Join(dir, "tuneloop.jtl")
			f, err := os.Create(tlOut)
			if err != nil {
				t.Fatal(err)
			}
			jw := loadgen.NewJTLWriter(f)
			cfg.Sink = jw
			if _, err := loadgen.Generate(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			if err := jw.Flush(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			mu.Lock()
			tlServed := fmt.Sprint(served)
			mu.Unlock()

			jm, tl := readJTL(t, jmOut), readJTL(t, tlOut)
			var labels []string
			for k := range jm {
				labels = append(labels, k)
			}
			for k := range tl {
				if _, ok := jm[k]; !ok {
					labels = append(labels, k)
				}
			}
			sort.Strings(labels)
			fmt.Printf("%s\n| label | JMeter | tuneloop |\n|---|---:|---:|\n", tc.plan)
			for _, k := range labels {
				fmt.Printf("| %s | %d | %d |\n", k, jm[k], tl[k])
				if jm[k] != tl[k] {
					t.Errorf("%s: JMeter %d, tuneloop %d", k, jm[k], tl[k])
				}
			}
			fmt.Printf("server saw, JMeter: %s\nserver saw, tuneloop: %s\n", jmServed, tlServed)
			if jmServed != tlServed {
				t.Errorf("the server saw different paths: JMeter %s, tuneloop %s", jmServed, tlServed)
			}
		})
	}
}

// readJTL is a JTL's requests per label, read by tuneloop's importer.
func readJTL(t *testing.T, path string) map[string]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := jtl.Import(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m := map[string]int64{}
	for _, l := range res.Summary.Labels {
		m[l.Label] = l.Requests
	}
	return m
}
