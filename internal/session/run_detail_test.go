package session

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// The load's detail is kept in the run folder when the load ends, also
// when it was cut short (Ctrl-C): what was recorded until then, the same
// requests as load.json, read back by verdict.Load. The warm-up is not in it.
func TestRunKeepsLoadDetail(t *testing.T) {
	if testing.Short() {
		t.Skip("loads for 1 s")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hooks := RunHooks{OnLoad: func(p loadgen.Progress) {
		if p.Elapsed >= time.Second {
			cancel()
		}
	}}
	res, err := LoadAndRecord(ctx, RunOptions{Target: srv.URL, Load: loadgen.Config{Rate: 100, Duration: 20 * time.Second,
		Requests: []loadgen.Request{{URL: srv.URL, Label: "home"}, {URL: srv.URL + "/missing", Label: "missing"}}},
		WarmUp: 300 * time.Millisecond, Interval: 250 * time.Millisecond, Out: dir, Profile: rules.JavaWeb, NoCatalog: true,
		Detail: report.NewLoadRecorder()}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	if res.Folder.Manifest.Status != runfolder.Interrupted || res.Load == nil || !res.Load.Interrupted {
		t.Fatalf("status %s, load %+v", res.Folder.Manifest.Status, res.Load)
	}
	L, err := verdict.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := L.LoadDetail
	if d == nil {
		t.Fatalf("no %s: problems %v", loaddetail.File, L.Problems)
	}
	var n, errs int64
	for _, r := range d.Rows {
		n, errs = n+r.N, errs+r.Errors
	}
	if n != L.Load.Requests || errs != L.Load.Errors || n < 50 || n > 400 {
		t.Errorf("detail %d requests %d errors, load.json %d %d", n, errs, L.Load.Requests, L.Load.Errors)
	}
	if len(d.Labels) != 2 || d.Width != 1 || len(d.Rows) > 4 {
		t.Errorf("%d labels, width %d, %d rows", len(d.Labels), d.Width, len(d.Rows))
	}
}
