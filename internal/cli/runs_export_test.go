package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tuneloop/tuneloop/internal/promexport"
)

func TestRunsExportOpenMetrics(t *testing.T) {
	dir := filepath.Join("..", "verdict", "testdata", "runs", "cpu-hot")
	env, _, _ := testEnv()
	err := RunRunsExport(context.Background(), env, &RunsExportOptions{}, dir)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Fatalf("no format chosen: %v, want a usage error", err)
	}
	out := filepath.Join(t.TempDir(), "run.om")
	if err := RunRunsExport(context.Background(), env, &RunsExportOptions{OpenMetrics: true, Out: out}, dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "# EOF\n") || !strings.Contains(string(b), `tuneloop_cpu_busy_ratio{cpu="all"} `) {
		t.Errorf("export:\n%.400s", b)
	}
	if err := RunRunsExport(context.Background(), env, &RunsExportOptions{OpenMetrics: true}, t.TempDir()); err == nil {
		t.Error("an empty folder exported without an error")
	}
}

// TestRecordPrometheus records a short run with both Prometheus outputs on
// and scrapes the live endpoint while it records.
func TestRecordPrometheus(t *testing.T) {
	env, _, errb := testEnv()
	tf := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	scraped := make(chan []byte, 1)
	o := &RecordOptions{Duration: 1200 * time.Millisecond, Interval: 200 * time.Millisecond, Out: filepath.Join(t.TempDir(), "run"),
		NoCatalog: true, Output: "json", Prom: promOptions{Listen: addr, Textfile: tf}}
	o.OnStart = func(string) {
		go func() {
			time.Sleep(800 * time.Millisecond)
			var b []byte
			if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
				b, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			scraped <- b
		}()
	}
	if err := RunRecord(context.Background(), env, o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(tf, promexport.TextfileName))
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if f := fams["tuneloop_cpu_seconds_total"]; f == nil || len(f.Metric) == 0 {
		t.Errorf("textfile without CPU seconds:\n%.500s", b)
	}
	if b := <-scraped; !bytes.Contains(b, []byte("tuneloop_cpu_busy_ratio{cpu=\"all\"}")) {
		t.Errorf("live scrape during the run: %.300q (stderr %q)", b, errb.String())
	}
	if err := RunRecord(context.Background(), env, &RecordOptions{Duration: time.Second, Interval: 200 * time.Millisecond, NoCatalog: true,
		Output: "json", Prom: promOptions{Textfile: filepath.Join(tf, "nope")}}); err == nil {
		t.Error("a missing textfile folder was accepted")
	}
}
