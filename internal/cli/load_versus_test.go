package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sleepy is a service whose every answer takes d: a slowdown that a busy
// host cannot hide or fake.
func sleepy(t *testing.T, d time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(d)
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// load --versus alternates two running services in windows and judges
// them pair by pair: a service three times slower per request is worse,
// and gated it exits 3; the same service against itself is no regression.
// 20 ms against 60 ms: at load 13 on 2 cores, 2 ms against 6 ms drowned in
// the scheduler's own delays and the 6 pairs were rightly inconclusive.
func TestLoadVersus(t *testing.T) {
	fast, slow := sleepy(t, 20*time.Millisecond), sleepy(t, 60*time.Millisecond)
	args := func(b string, extra ...string) []string {
		return append([]string{"load", fast, "--versus", b, "-c", "4", "--window", "1s", "-d", "16s", "--warm-up", "500ms", "-q"}, extra...)
	}
	env, out, errb := testEnv()
	if code := runRoot(t, env, args(slow, "--fail-on-regression", "5", "-o", "json")...); code != ExitFindings {
		t.Fatalf("3x slower, gated at 5%%: exit %d\n%s%s", code, out, errb)
	}
	validateJSON(t, compileSchema(t, "compare-v1.schema.json"), "compare-v1.schema.json", out.Bytes())
	var c struct {
		Design string `json:"design"`
		Pairs  int    `json:"pairs"`
		Stats  []struct {
			Key, Verdict, Method string
			ChangePct            float64 `json:"change_pct"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if c.Design != "windows" || c.Pairs != 8 || len(c.Stats) != 2 || c.Stats[0].Key != "tps" || c.Stats[0].Verdict != "worse" || c.Stats[0].ChangePct > -40 {
		t.Errorf("3x slower: %+v", c)
	}
	// p99 is the pooled windows' (the load's p99): never "better" for the
	// slow one. Its sign is not asserted: on a busy host the scheduler's
	// stalls make the tail of both, and an inconclusive p99 is the truth.
	if p := c.Stats[len(c.Stats)-1]; p.Key != "p99_ms" || p.Method != "bootstrap-over-pairs-pooled-quantile" || p.Verdict == "better" ||
		p.Verdict == "worse" && p.ChangePct <= 0 {
		t.Errorf("3x slower, p99: %+v", p)
	}
	// The same service twice: no regression at a 5% gate; --save keeps the
	// comparison's JSON beside the text.
	save := filepath.Join(t.TempDir(), "aa.json")
	env, out, errb = testEnv()
	if code := runRoot(t, env, args(fast, "--fail-on-regression", "5", "--lang", "zh", "--save", save)...); code == ExitFindings || code == ExitUsage {
		t.Errorf("A/A: exit %d\n%s%s", code, out, errb)
	}
	if !strings.Contains(out.String(), "窗口") || !strings.Contains(out.String(), "各窗口合并") {
		t.Errorf("A/A in Chinese:\n%s", out)
	}
	saved, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	validateJSON(t, compileSchema(t, "compare-v1.schema.json"), "compare-v1.schema.json", saved)
	if err := json.Unmarshal(saved, &c); err != nil || c.Design != "windows" || len(c.Stats) != 2 || c.Stats[1].Method != "bootstrap-over-pairs-pooled-quantile" {
		t.Errorf("A/A saved: %v %+v", err, c)
	}
	// Usage: --fail-on-regression alone, and --versus with a scenario.
	env, _, errb = testEnv()
	if code := runRoot(t, env, "load", fast, "--fail-on-regression", "5"); code != ExitUsage || !strings.Contains(errb.String(), "--versus") {
		t.Errorf("gate without --versus: exit %d %q", code, errb.String())
	}
}
