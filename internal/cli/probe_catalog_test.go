package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// With TUNELOOP_TEST_PROBE=DIR and TUNELOOP_TEST_PROBE_CATALOG=DB the test
// binary is `tuneloop probe --only cpu --out DIR --catalog DB` (the kill test).
func init() {
	dir, db := os.Getenv("TUNELOOP_TEST_PROBE"), os.Getenv("TUNELOOP_TEST_PROBE_CATALOG")
	if dir == "" || db == "" {
		return
	}
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	err := RunProbe(context.Background(), env, &ProbeOptions{Output: "json", Out: dir, Only: "cpu", Sizes: "1", Catalog: db})
	os.Exit(Code(env, err))
}

// TestProbeCatalogued: `probe --quick --only cpu` puts its folder in the
// catalog; `runs` points to it, `runs --probes` lists it (text and JSON)
// with its host, kernel, CPU, parts and folder; check finds it through the
// catalog alone (nothing under ./probes); rm and rebuild (./probes by
// default) drop and add it back.
func TestProbeCatalogued(t *testing.T) {
	if testing.Short() {
		t.Skip("measures this machine")
	}
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	dir := filepath.Join(tmp, "kept", "20261128T080000Z-here")
	env, _, errb := testEnv()
	if err := RunProbe(context.Background(), env, &ProbeOptions{Output: "json", Out: dir, Quick: true, Only: "cpu", Sizes: "1", Catalog: db}); err != nil {
		t.Fatalf("probe: %v\n%s", err, errb)
	}
	r, _, err := probe.Read(dir)
	if err != nil || r.State() != probe.StatusComplete {
		t.Fatalf("probe.json: %v %+v", err, r)
	}

	env, out, _ := testEnv()
	if code := runRoot(t, env, "runs", "--catalog", db); code != ExitOK || !strings.Contains(out.String(), "and 1 probes: tuneloop runs --probes") {
		t.Errorf("runs does not point to the probe: %d\n%s", code, out)
	}
	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "--probes", "--catalog", db); code != ExitOK {
		t.Fatalf("runs --probes: %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "KERNEL") {
		t.Fatalf("runs --probes:\n%s", out)
	}
	for _, want := range []string{"20261128T080000Z-here", "complete", r.Host.Name, r.Host.Kernel, "cpu (quick)", dir} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("probe line lacks %q: %q", want, lines[1])
		}
	}
	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "--probes", "--catalog", db, "-o", "json"); code != ExitOK {
		t.Fatalf("runs --probes -o json: %d", code)
	}
	var es []catalog.ProbeEntry
	if err := json.Unmarshal(out.Bytes(), &es); err != nil || len(es) != 1 || es[0].Dir != dir || es[0].Host != r.Host.Name ||
		es[0].CPUModel != r.Host.CPUModel || es[0].Status != probe.StatusComplete || es[0].Figures == 0 {
		t.Errorf("json: %v %+v", err, es)
	}
	env, out, _ = testEnv()
	if runRoot(t, env, "runs", "--probes", "--catalog", db, "--lang", "zh"); !strings.Contains(out.String(), "内核") || !strings.Contains(out.String(), "完成") {
		t.Errorf("zh:\n%s", out)
	}

	// check: nothing under ./probes, the catalog names it.
	_, stderr := checkFindings(t, CheckOptions{ProbeRoot: t.TempDir(), Catalog: db})
	if !strings.Contains(stderr, "platform figures from the probe "+filepath.Join(dir, probe.File)) || !strings.Contains(stderr, "in the catalog") {
		t.Errorf("check did not find the probe through the catalog: %q", stderr)
	}
	if _, stderr := checkFindings(t, CheckOptions{ProbeRoot: t.TempDir(), Catalog: db, NoCatalog: true}); strings.Contains(stderr, "platform figures") {
		t.Errorf("--no-catalog still looked in the catalog: %q", stderr)
	}

	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "rm", dir, "--catalog", db); code != ExitOK || !strings.Contains(out.String(), "removed") {
		t.Errorf("rm: %d %s", code, out)
	}
	// rebuild's default roots are ./runs and ./probes.
	t.Chdir(tmp)
	if err := os.Rename(filepath.Join(tmp, "kept"), filepath.Join(tmp, "probes")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(tmp, "probes", filepath.Base(dir))
	env, out, errb = testEnv()
	if code := runRoot(t, env, "runs", "rebuild", "--catalog", db); code != ExitOK || !strings.Contains(out.String(), "added probe "+moved) ||
		!strings.Contains(out.String(), "0 run folders and 1 probe folders") {
		t.Errorf("rebuild: %d\n%s%s", code, out, errb)
	}
	// And `runs add` of a probe folder.
	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "add", moved, "--catalog", filepath.Join(tmp, "other.db")); code != ExitOK || !strings.Contains(out.String(), "added probe") {
		t.Errorf("runs add PROBE: %d %s", code, out)
	}
}

// TestProbeKilledIsIncomplete: a probe SIGKILLed mid-way stays in the
// catalog as incomplete (catalogued at its start), its folder says so, a
// rebuilt catalog says so too, and check does not cite it.
func TestProbeKilledIsIncomplete(t *testing.T) {
	if testing.Short() {
		t.Skip("measures this machine")
	}
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	dir := filepath.Join(tmp, "probes", "20261128T090000Z-here")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TUNELOOP_TEST_PROBE="+dir, "TUNELOOP_TEST_PROBE_CATALOG="+db)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Wait until the probe is catalogued, then kill it while it measures.
	deadline := time.Now().Add(30 * time.Second)
	var es []catalog.ProbeEntry
	for time.Now().Before(deadline) {
		if c, err := catalog.Open(context.Background(), db); err == nil {
			es, _ = c.ListProbes(context.Background())
			c.Close()
		}
		if len(es) == 1 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(es) != 1 || !es[0].Incomplete() {
		t.Fatalf("not catalogued at its start: %+v", es)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	env, out, _ := testEnv()
	if code := runRoot(t, env, "runs", "--probes", "--catalog", db); code != ExitOK || !strings.Contains(out.String(), "probing (incomplete)") {
		t.Errorf("the killed probe is not listed as incomplete: %d\n%s", code, out)
	}
	r, _, err := probe.Read(dir)
	if err != nil || r.State() != probe.StatusProbing || r.Host.Name == "" {
		t.Fatalf("the killed probe's folder: %v %+v", err, r)
	}
	fresh := filepath.Join(tmp, "fresh.db")
	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "rebuild", filepath.Join(tmp, "probes"), "--catalog", fresh); code != ExitOK {
		t.Fatalf("rebuild: %d", code)
	}
	env, out, _ = testEnv()
	if runRoot(t, env, "runs", "--probes", "--catalog", fresh); !strings.Contains(out.String(), "probing (incomplete)") {
		t.Errorf("rebuilt catalog lost the incomplete status:\n%s", out)
	}
	for _, o := range []CheckOptions{{ProbeRoot: filepath.Join(tmp, "probes"), Catalog: db}, {Probe: dir, ProbeRoot: t.TempDir(), Catalog: db}} {
		if _, stderr := checkFindings(t, o); strings.Contains(stderr, "platform figures") {
			t.Errorf("check cites a probe that never finished: %q", stderr)
		}
	}
}
