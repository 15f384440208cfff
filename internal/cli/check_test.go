package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

const hostsDir = "../../testdata/hosts"

// fixtureTrees are the captured or constructed host trees (see testdata/hosts/README.md).
var fixtureTrees = []string{"build-vm-amd64", "kunpeng920-2s4n", "centos7-3.10-cgv1", "container-quota", "empty", "garbage"}

func testEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, &out, &errb
}

func fixedNow() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }

// isolated keeps a check in a test from the user's probes: an empty
// catalog and probe folder unless the test gives its own. A probe of this
// machine in the user's catalog (the golden fixtures were captured from a
// build VM of the same host name) had put its figures into the goldens.
func isolated(t testing.TB, o *CheckOptions) *CheckOptions {
	t.Helper()
	if o.Catalog == "" {
		o.Catalog = filepath.Join(t.TempDir(), "runs.db")
	}
	if o.Probe == "" && o.ProbeRoot == "" {
		o.ProbeRoot = t.TempDir()
	}
	return o
}

func runCheck(t *testing.T, o CheckOptions) (string, error) {
	t.Helper()
	env, out, _ := testEnv()
	isolated(t, &o)
	o.Now = fixedNow
	if o.Output == "" {
		o.Output = "text"
	}
	if o.Profile == "" {
		o.Profile = "java-web"
	}
	err := RunCheck(context.Background(), env, &o)
	return out.String(), err
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; if the change is intended, run go test ./internal/cli -update\n%s",
			path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
}

// Every tree in every format matches its golden output; this pins the
// readers, the knowledge base and the renderers together.
func TestCheckGolden(t *testing.T) {
	for _, tree := range fixtureTrees {
		for _, c := range []struct{ output, lang, ext string }{
			{"text", "en", "txt"}, {"text", "zh", "zh.txt"}, {"markdown", "en", "md"}, {"json", "en", "json"},
		} {
			t.Run(tree+"/"+c.ext, func(t *testing.T) {
				got, err := runCheck(t, CheckOptions{Root: filepath.Join(hostsDir, tree), Output: c.output, Lang: c.lang})
				if err != nil {
					t.Fatal(err)
				}
				golden(t, "check/"+tree+"."+c.ext, got)
			})
		}
	}
}

func loadSchema(t *testing.T) *jsonschema.Schema { return compileSchema(t, "check-v1.schema.json") }

// compileSchema compiles one published schema of docs/schema, the others
// loaded under their $id so references between them resolve offline.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	files, err := filepath.Glob("../../docs/schema/*.schema.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := c.AddResource("https://tuneloop.dev/schema/"+filepath.Base(f), doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile("https://tuneloop.dev/schema/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validateJSON checks a JSON document against a published schema.
func validateJSON(t *testing.T, schema *jsonschema.Schema, name string, doc []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("output does not match docs/schema/%s: %v", name, err)
	}
}

// The JSON output of every tree, every profile and the live host validates
// against the published schema.
func TestCheckJSONSchema(t *testing.T) {
	schema := loadSchema(t)
	validate := func(t *testing.T, o CheckOptions) *report.Check {
		o.Output = "json"
		got, err := runCheck(t, o)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(got))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Fatalf("output does not match docs/schema/check-v1.schema.json: %v", err)
		}
		var doc report.Check
		if err := json.Unmarshal([]byte(got), &doc); err != nil {
			t.Fatal(err)
		}
		return &doc
	}
	for _, tree := range fixtureTrees {
		for _, p := range []string{"java-web", "database", "latency"} {
			t.Run(tree+"/"+p, func(t *testing.T) {
				validate(t, CheckOptions{Root: filepath.Join(hostsDir, tree), Profile: p})
			})
		}
	}
	t.Run("live", func(t *testing.T) {
		doc := validate(t, CheckOptions{ProcRoot: "/proc", SysRoot: "/sys", EtcRoot: "/etc"})
		if doc.Host.Source != "live" || doc.Host.Logical < 1 || doc.Host.Kernel == "" {
			t.Errorf("live host summary incomplete: %+v", doc.Host)
		}
	})
}

// An empty tree and a tree of garbage audit without error, and every check
// that needs input says unavailable or skipped instead of failing.
func TestCheckUnreadableTreesGiveUnavailable(t *testing.T) {
	for _, tree := range []string{"empty", "garbage"} {
		t.Run(tree, func(t *testing.T) {
			got, err := runCheck(t, CheckOptions{Root: filepath.Join(hostsDir, tree), Output: "json"})
			if err != nil {
				t.Fatal(err)
			}
			var doc report.Check
			if err := json.Unmarshal([]byte(got), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Summary.Unavailable < 20 {
				t.Errorf("only %d unavailable checks on %s; unreadable inputs must be reported", doc.Summary.Unavailable, tree)
			}
			if tree == "empty" && doc.Summary.Fail != 0 {
				for _, f := range doc.Findings {
					if f.Status == finding.Fail {
						t.Errorf("empty tree: %s failed (%s) with nothing to read", f.Key(), f.Observed.EN)
					}
				}
			}
			for _, f := range doc.Findings {
				if f.Status == finding.Unavailable && (f.Reason.EN == "" || f.Reason.ZH == "") {
					t.Errorf("%s unavailable without a reason in both languages", f.Key())
				}
			}
		})
	}
}

func TestCheckFailOnExitCode(t *testing.T) {
	root := filepath.Join(hostsDir, "kunpeng920-2s4n")
	_, err := runCheck(t, CheckOptions{Root: root, FailOn: "warning"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFindings {
		t.Fatalf("--fail-on warning on the Kunpeng tree: got %v, want exit %d", err, ExitFindings)
	}
	env, _, errb := testEnv()
	if code := Code(env, err); code != ExitFindings || errb.Len() != 0 {
		t.Errorf("exit code %d, stderr %q; want %d and nothing printed", code, errb.String(), ExitFindings)
	}
	// Without --fail-on the same audit exits 0 whatever it found.
	if _, err := runCheck(t, CheckOptions{Root: root}); err != nil {
		t.Errorf("without --fail-on: %v", err)
	}
}

func TestCheckUsageErrors(t *testing.T) {
	for _, o := range []CheckOptions{
		{Output: "xml"}, {Lang: "fr"}, {Profile: "redis"}, {FailOn: "info"}, {FailOn: "bad"},
	} {
		_, err := runCheck(t, o)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%+v: got %v, want a usage error", o, err)
		}
	}
}

// The language comes from LANG when --lang is not given.
func TestCheckLangFromEnv(t *testing.T) {
	env, out, _ := testEnv()
	env.Getenv = func(k string) string {
		if k == "LANG" {
			return "zh_CN.UTF-8"
		}
		return ""
	}
	o := isolated(t, &CheckOptions{Root: filepath.Join(hostsDir, "kunpeng920-2s4n"), Output: "text", Profile: "java-web", Now: fixedNow})
	if err := RunCheck(context.Background(), env, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "主机检查") {
		t.Errorf("LANG=zh_CN.UTF-8 did not give Chinese output:\n%.300s", out.String())
	}
}

// docs/rules.md is what `check --list --output markdown` prints.
func TestRulesDocUpToDate(t *testing.T) {
	got, err := runCheck(t, CheckOptions{List: true, Output: "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/rules.md is stale: run make docs\n%s", firstDiff(string(want), got))
	}
}

// docs/findings.md is what `check --list --all --output markdown` prints:
// every rule of every set.
func TestFindingsDocUpToDate(t *testing.T) {
	got, err := runCheck(t, CheckOptions{List: true, All: true, Output: "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/findings.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/findings.md is stale: run make docs\n%s", firstDiff(string(want), got))
	}
}

func TestCheckListAllCoversEverySet(t *testing.T) {
	got, err := runCheck(t, CheckOptions{List: true, All: true, Output: "json"})
	if err != nil {
		t.Fatal(err)
	}
	var sets []report.RuleSet
	if err := json.Unmarshal([]byte(got), &sets); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, s := range sets {
		n[s.Name] = len(s.Rules)
	}
	for _, name := range []string{"check", "run", "gc", "threaddump", "threaddump-series", "logconf"} {
		if n[name] == 0 {
			t.Errorf("set %s missing or empty: %v", name, n)
		}
	}
	text, err := runCheck(t, CheckOptions{List: true, All: true, Lang: "zh"})
	if err != nil || !strings.Contains(text, "GC 日志") || !strings.Contains(text, "gc.safepoint-ttsp") || !strings.Contains(text, "run.irq.softirq-concentrated") {
		t.Errorf("text list (%v):\n%.400s", err, text)
	}
}

func TestCheckListCoversKnowledgeBase(t *testing.T) {
	got, err := runCheck(t, CheckOptions{List: true, Output: "json"})
	if err != nil {
		t.Fatal(err)
	}
	var rs []report.RuleInfo
	if err := json.Unmarshal([]byte(got), &rs); err != nil {
		t.Fatal(err)
	}
	if len(rs) < 50 {
		t.Errorf("knowledge base has %d rules, want at least 50", len(rs))
	}
}

func findingsOf(t *testing.T, tree, profile string) []finding.Finding {
	t.Helper()
	got, err := runCheck(t, CheckOptions{Root: filepath.Join(hostsDir, tree), Output: "json", Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	var doc report.Check
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Findings
}

func statusOf(fs []finding.Finding, key string) (finding.Status, finding.Severity) {
	for _, f := range fs {
		if f.Key() == key {
			return f.Status, f.Severity
		}
	}
	return "", 0
}

// The acceptance cases, as a user reads them in the report.
func TestCheckKunpengIRQAndNUMA(t *testing.T) {
	fs := findingsOf(t, "kunpeng920-2s4n", "java-web")
	top := fs[0]
	if top.Key() != "nic.irq.concentration/enp125s0f0" || top.Severity != finding.Critical {
		t.Fatalf("top finding is %s (%s), want the NIC IRQ concentration, critical", top.Key(), top.Severity)
	}
	if !strings.Contains(top.Fix.Apply, "/proc/irq/107/smp_affinity_list") || !strings.Contains(top.Fix.Revert, "echo 0 >") {
		t.Errorf("IRQ fix does not spread IRQ 107 and restore CPU 0: apply %q revert %q", top.Fix.Apply, top.Fix.Revert)
	}
	for _, key := range []string{"nic.queues/enp125s0f0", "numa.topology", "jvm.numa.bind/pid 4127", "jvm.numa.use-numa/pid 4127"} {
		if st, _ := statusOf(fs, key); st != finding.Fail {
			t.Errorf("%s: status %q, want fail", key, st)
		}
	}
}

// The captured build VM: no cpufreq is not a failure, THP madvise passes for
// java-web, no swap passes, and nothing is critical.
func TestCheckBuildVMIsSensible(t *testing.T) {
	fs := findingsOf(t, "build-vm-amd64", "java-web")
	if st, _ := statusOf(fs, "cpu.governor"); st == finding.Fail {
		t.Error("cpu.governor failed on a VM without cpufreq")
	}
	for _, key := range []string{"mem.thp.enabled", "mem.swap.used"} {
		if st, _ := statusOf(fs, key); st != finding.Pass {
			t.Errorf("%s: %q, want pass", key, st)
		}
	}
	if w, any := finding.Worst(fs); any && w == finding.Critical {
		t.Error("critical finding on the build VM")
	}
	if st, _ := statusOf(fs, "virt.hypervisor"); st != finding.Fail {
		t.Errorf("VM advice missing: virt.hypervisor %q", st)
	}
	// THP: the database profile recommends never, so madvise now fails.
	if st, _ := statusOf(findingsOf(t, "build-vm-amd64", "database"), "mem.thp.enabled"); st != finding.Fail {
		t.Errorf("database profile: mem.thp.enabled %q, want fail (THP never for databases)", st)
	}
}

// A --root that does not exist, is a file, or holds no host tree is a usage
// error naming the problem, not 60 lines of "not present".
func TestCheckBadRoot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "host.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	empty := t.TempDir()
	// A path made missing here: a fixed one such as /nonexistent can exist
	// on a shared machine (a root process may have made it).
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, c := range []struct {
		o      CheckOptions
		en, zh string
	}{
		{CheckOptions{Root: missing}, "--root: stat " + missing + ": no such file or directory", "--root：stat " + missing + ": 没有那个文件或目录"},
		{CheckOptions{Root: file}, "--root " + file + ": not a directory", "--root " + file + "：不是目录"},
		{CheckOptions{Root: empty}, "--root " + empty + ": holds none of proc/, sys/ and etc/", "不是采集下来的主机目录树"},
		{CheckOptions{ProcRoot: missing + "/proc", SysRoot: "/sys", EtcRoot: "/etc"}, "--proc-root: stat " + missing + "/proc", "--proc-root：stat"},
	} {
		out, err := runCheck(t, c.o)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), c.en) || out != "" {
			t.Errorf("%+v: %v (stdout %d bytes)", c.o, err, len(out))
			continue
		}
		if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, c.zh) {
			t.Errorf("zh: %q, want %q in it", zh, c.zh)
		}
	}
}
