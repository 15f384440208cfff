//go:build jmeter

// The check against JMeter itself (scripts/jmeter-check.sh sets JMETER_HOME
// to a JMeter 5.6.3 assembled from Maven Central): the same plan, the same
// local server, JMeter's JTL and tuneloop's summary compared label by label.

package jmx

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

func TestJMeterCounts(t *testing.T) {
	home := os.Getenv("JMETER_HOME")
	if home == "" {
		t.Skip("JMETER_HOME is not set: run scripts/jmeter-check.sh")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	props := map[string]string{"port": port, "users": "4", "loops": "25", "think": "0"}
	plan, _ := filepath.Abs("testdata/local-plan.jmx")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jtl")
	args := []string{"-jar", filepath.Join(home, "bin", "ApacheJMeter.jar"), "-n", "-t", plan, "-l", out, "-j", filepath.Join(dir, "jmeter.log")}
	for k, v := range props {
		args = append(args, "-J"+k+"="+v)
	}
	cmd := exec.Command("java", args...)
	cmd.Dir = home
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jmeter: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jm, err := jtl.Import(f)
	if err != nil {
		t.Fatal(err)
	}
	_, cfg, _, err := Load("testdata/local-plan.jmx", props)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := loadgen.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, l := range jm.Summary.Labels {
		want[l.Label] = l.Requests
	}
	got := map[string]int64{}
	for _, l := range tl.Labels {
		got[l.Label] = l.Requests
	}
	fmt.Printf("%-10s %8s %8s\n", "label", "jmeter", "tuneloop")
	for k, v := range want {
		fmt.Printf("%-10s %8d %8d\n", k, v, got[k])
	}
	if jm.Summary.Requests != tl.Requests {
		t.Errorf("total: JMeter %d, tuneloop %d", jm.Summary.Requests, tl.Requests)
	}
	// Requests are drawn by weight, not in plan order: per label, equal on
	// average (see Plan.Config); allow 5 standard deviations of a binomial.
	for k, v := range want {
		p := float64(v) / float64(jm.Summary.Requests)
		sd := 5 * math.Sqrt(float64(jm.Summary.Requests)*p*(1-p))
		if d := float64(got[k] - v); d > sd+1 || -d > sd+1 {
			t.Errorf("%s: JMeter %d, tuneloop %d", k, v, got[k])
		}
	}
}
