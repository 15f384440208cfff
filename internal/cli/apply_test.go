package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	applypkg "github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
)

// applyHost copies a fixture host tree to a temp dir.
func applyHost(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "..", "testdata", "hosts", "build-vm-amd64"), dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return dir
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApplyDryRunChangesNothing(t *testing.T) {
	host := applyHost(t)
	journal := filepath.Join(t.TempDir(), "journal")
	env, out, _ := testEnv()
	err := RunApply(context.Background(), env, &ApplyOptions{IDs: []string{"net.syn-backlog", "jvm.heapdump-oom", "no.such-rule"},
		Root: host, Journal: journal, Output: "text", Profile: "java-web"})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"Dry run: nothing was changed. Add --yes to apply.", "net.syn-backlog  [would change]",
		"net.ipv4.tcp_max_syn_backlog", "-> 4096",
		"jvm.heapdump-oom/pid 29607  [cannot be applied]", "JVM options and logging configuration need a launch overlay",
		"no.such-rule  [cannot be applied]", "no such finding"} {
		if !strings.Contains(s, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, s)
		}
	}
	if got := readFile(t, filepath.Join(host, "proc/sys/net/ipv4/tcp_max_syn_backlog")); strings.TrimSpace(got) == "4096" {
		t.Error("the dry run changed the knob")
	}
	if _, err := os.Stat(journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dry run created the journal: %v", err)
	}
}

func TestApplyYesThenRevert(t *testing.T) {
	host := applyHost(t)
	knob := filepath.Join(host, "proc/sys/net/ipv4/tcp_max_syn_backlog")
	before := readFile(t, knob)
	journal := filepath.Join(t.TempDir(), "journal")
	env, out, _ := testEnv()
	err := RunApply(context.Background(), env, &ApplyOptions{IDs: []string{"net.syn-backlog"}, Yes: true,
		Root: host, Journal: journal, Output: "json", Profile: "java-web"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DryRun bool   `json:"dry_run"`
		TxID   string `json:"tx"`
		Groups []struct {
			Finding, State string
			Keys           []struct{ Key, Before, Value, After, State string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if doc.DryRun || doc.TxID == "" || len(doc.Groups) != 1 || doc.Groups[0].State != "verified" ||
		doc.Groups[0].Keys[0].After != "4096" || doc.Groups[0].Keys[0].Before != strings.TrimSpace(before) {
		t.Fatalf("apply answer: %s", out)
	}
	if got := readFile(t, knob); got != "4096\n" {
		t.Fatalf("knob = %q after apply", got)
	}

	env, out, _ = testEnv()
	if err := RunRevert(context.Background(), env, &RevertOptions{List: true, Journal: journal}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), doc.TxID) || !strings.Contains(out.String(), "in effect: 1 of 1 keys") {
		t.Errorf("revert --list: %s", out)
	}
	env, out, _ = testEnv()
	if err := RunRevert(context.Background(), env, &RevertOptions{TxID: doc.TxID, Journal: journal}); err != nil {
		t.Fatal(err)
	}
	if want := "net.ipv4.tcp_max_syn_backlog  4096 -> " + strings.TrimSpace(before); !strings.Contains(out.String(), want) {
		t.Errorf("revert output lacks %q:\n%s", want, out)
	}
	if got := readFile(t, knob); got != before {
		t.Errorf("knob = %q after revert, want %q", got, before)
	}
	env, out, _ = testEnv()
	env.Getenv = func(k string) string { return map[string]string{"LANG": "zh_CN.UTF-8"}[k] }
	if err := RunRevert(context.Background(), env, &RevertOptions{All: true, Journal: journal}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "无需回退") {
		t.Errorf("second revert (zh): %s", out)
	}
}

func TestApplyAllSafe(t *testing.T) {
	host := applyHost(t)
	env, out, _ := testEnv()
	err := RunApply(context.Background(), env, &ApplyOptions{AllSafe: true, Root: host, Journal: t.TempDir(), Output: "text", Profile: "java-web"})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"net.syn-backlog", "mem.max-map-count", "net.keepalive", "jvm.limits.nofile/pid 29607  [cannot be applied]", "need the live host"} {
		if !strings.Contains(s, want) {
			t.Errorf("--all-safe lacks %q:\n%s", want, s)
		}
	}
	// Security knobs are lowered on purpose only, advice is not a knob.
	for _, not := range []string{"kernel.perf-event-paranoid", "security.mitigations", "jvm.heapdump-oom"} {
		if strings.Contains(s, not) {
			t.Errorf("--all-safe took %s:\n%s", not, s)
		}
	}
}

func TestRevertDriftNamesTheKey(t *testing.T) {
	host := applyHost(t)
	journal := t.TempDir()
	env, _, _ := testEnv()
	if err := RunApply(context.Background(), env, &ApplyOptions{IDs: []string{"mem.max-map-count"}, Yes: true, Root: host, Journal: journal, Output: "text", Profile: "java-web"}); err != nil {
		t.Fatal(err)
	}
	knob := filepath.Join(host, "proc/sys/vm/max_map_count")
	os.WriteFile(knob, []byte("300000\n"), 0o644)
	env, _, errb := testEnv()
	err := RunRevert(context.Background(), env, &RevertOptions{All: true, Journal: journal})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure {
		t.Fatalf("revert over drift: %v, want exit 1", err)
	}
	for _, want := range []string{"vm.max_map_count", `tuneloop wrote "262144"`, `it is "300000" now`, "--force"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("drift message lacks %q: %s", want, errb)
		}
	}
	if got := readFile(t, knob); got != "300000\n" {
		t.Errorf("drifted key overwritten: %q", got)
	}
	env, _, _ = testEnv()
	if err := RunRevert(context.Background(), env, &RevertOptions{All: true, Force: true, Journal: journal}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, knob); strings.TrimSpace(got) == "300000" {
		t.Errorf("--force did not put the value back: %q", got)
	}
}

func TestApplyConfirmWithinAndWatchdogCommand(t *testing.T) {
	host := applyHost(t)
	journal := t.TempDir()
	knob := filepath.Join(host, "proc/sys/net/ipv4/tcp_keepalive_time")
	before := readFile(t, knob)
	apply := func() string {
		env, out, _ := testEnv()
		// The detached watchdog is `true` here: the hidden command is run
		// below in-process, as the detached one would run it.
		err := RunApply(context.Background(), env, &ApplyOptions{IDs: []string{"net.keepalive"}, Yes: true, ConfirmWithin: time.Second,
			Exe: "/bin/true", Root: host, Journal: journal, Output: "text", Profile: "java-web"})
		if err != nil {
			t.Fatal(err)
		}
		s := out.String()
		i := strings.Index(s, "tuneloop apply --confirm ")
		if i < 0 {
			t.Fatalf("no confirm line:\n%s", s)
		}
		return strings.Fields(s[i+len("tuneloop apply --confirm "):])[0]
	}
	watchdog := func(tx string) {
		env, _, _ := testEnv()
		if code := runRoot(t, env, applypkg.WatchdogCmd, journal, tx, strconv.FormatInt(time.Now().UnixNano(), 10)); code != ExitOK {
			t.Fatalf("watchdog exit %d", code)
		}
	}
	tx := apply()
	watchdog(tx) // not confirmed: reverts
	if got := readFile(t, knob); got != before {
		t.Errorf("unconfirmed change kept: %q", got)
	}
	env, _, _ := testEnv()
	if err := RunApply(context.Background(), env, &ApplyOptions{Confirm: tx, Journal: journal, Output: "text"}); err == nil ||
		!strings.Contains(finding.Localize(err, finding.EN), "too late") {
		t.Errorf("confirm after the timer fired: %v", err)
	}

	tx = apply()
	env, out, _ := testEnv()
	if err := RunApply(context.Background(), env, &ApplyOptions{Confirm: tx, Journal: journal, Output: "text"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "confirmed") {
		t.Errorf("confirm: %s", out)
	}
	watchdog(tx) // confirmed: keeps
	if got := readFile(t, knob); got != "600\n" {
		t.Errorf("confirmed change reverted: %q", got)
	}
	env, out, _ = testEnv()
	if err := RunRevert(context.Background(), env, &RevertOptions{List: true, Journal: journal}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "in effect: 1 of 1 keys; confirmed") || !strings.Contains(s, "reverted; timer fired: reverted") {
		t.Errorf("revert --list:\n%s", s)
	}
}

func TestApplyUsage(t *testing.T) {
	for _, o := range []ApplyOptions{
		{},                                  // nothing named
		{IDs: []string{"x"}, Confirm: "tx"}, // two modes
		{IDs: []string{"x"}, Output: "xml"},
	} {
		o.Journal = t.TempDir()
		if o.Output == "" {
			o.Output = "text"
		}
		env, _, _ := testEnv()
		err := RunApply(context.Background(), env, &o)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
	env, _, _ := testEnv()
	var ee *ExitError
	if err := RunRevert(context.Background(), env, &RevertOptions{Journal: t.TempDir()}); !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Errorf("revert without TX-ID or --all: %v", err)
	}
}

func TestApplyFromRunFolder(t *testing.T) {
	host := applyHost(t)
	run := t.TempDir()
	fs := []finding.Finding{
		{ID: "net.syn-backlog", Status: finding.Fail, Fix: finding.Fix{Apply: "sysctl -w net.ipv4.tcp_max_syn_backlog=4096",
			Changes: []finding.Change{{Kind: finding.ChangeSysctl, Key: "net.ipv4.tcp_max_syn_backlog", Value: "4096"}}}},
		{ID: "kernel.cmdline.iommu", Status: finding.Fail, Fix: finding.Fix{Apply: "grubby --update-kernel=ALL --args=\"iommu.passthrough=1\"", Reboot: true}},
		{ID: "net.somaxconn", Status: finding.Pass},
	}
	b, _ := json.Marshal(fs)
	os.WriteFile(filepath.Join(run, "check.json"), b, 0o644)
	env, out, _ := testEnv()
	err := RunApply(context.Background(), env, &ApplyOptions{From: run, IDs: []string{"net.syn-backlog", "kernel.cmdline.iommu", "net.somaxconn"},
		Root: host, Journal: t.TempDir(), Output: "text"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"net.syn-backlog  [would change]", "kernel.cmdline.iommu  [cannot be applied]", "takes a reboot", "net.somaxconn  [nothing to do]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--from output lacks %q:\n%s", want, out)
		}
	}
	env, _, _ = testEnv()
	if err := RunApply(context.Background(), env, &ApplyOptions{From: t.TempDir(), AllSafe: true, Journal: t.TempDir(), Output: "text"}); err == nil {
		t.Error("--from a folder without check.json succeeded")
	}
}

func TestApplyNothingToChange(t *testing.T) {
	host := applyHost(t)
	journal := t.TempDir()
	o := ApplyOptions{IDs: []string{"net.syn-backlog"}, Yes: true, Root: host, Journal: journal, Output: "text", Profile: "java-web"}
	env, _, _ := testEnv()
	if err := RunApply(context.Background(), env, &o); err != nil {
		t.Fatal(err)
	}
	// The audit now passes: nothing to do, not an error, no transaction.
	env, out, _ := testEnv()
	if err := RunApply(context.Background(), env, &o); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "Nothing to change.") || !strings.Contains(s, "net.syn-backlog  [nothing to do]") {
		t.Errorf("second apply:\n%s", s)
	}
	// A plan whose keys are all at their value already (from a stale run folder).
	run := t.TempDir()
	b, _ := json.Marshal([]finding.Finding{{ID: "net.syn-backlog", Status: finding.Fail,
		Fix: finding.Fix{Changes: []finding.Change{{Kind: finding.ChangeSysctl, Key: "net.ipv4.tcp_max_syn_backlog", Value: "4096"}}}}})
	os.WriteFile(filepath.Join(run, "check.json"), b, 0o644)
	env, out, _ = testEnv()
	o.From = run
	if err := RunApply(context.Background(), env, &o); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "net.syn-backlog  [already set]") {
		t.Errorf("stale run folder:\n%s", s)
	}
	ents, _ := os.ReadDir(journal)
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d transactions, want the first apply's only", n)
	}
}

func TestApplyPersistStep(t *testing.T) {
	host := applyHost(t)
	journal := t.TempDir()
	env, out, _ := testEnv()
	if err := RunApply(context.Background(), env, &ApplyOptions{IDs: []string{"net.syn-backlog"}, Yes: true, Root: host, Journal: journal, Output: "json", Profile: "java-web"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TxID string `json:"tx"`
	}
	json.Unmarshal(out.Bytes(), &doc)
	conf := filepath.Join(host, "etc/sysctl.d/90-tuneloop.conf")
	for _, yes := range []bool{false, true} {
		env, out, _ = testEnv()
		if err := RunApply(context.Background(), env, &ApplyOptions{Persist: doc.TxID, Yes: yes, Journal: journal, Output: "text"}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "/etc/sysctl.d/90-tuneloop.conf:\n") || !strings.Contains(out.String(), "    + net.ipv4.tcp_max_syn_backlog = 4096\n") {
			t.Errorf("persist (yes=%v):\n%s", yes, out)
		}
		_, err := os.Stat(conf)
		if exists := err == nil; exists != yes {
			t.Errorf("yes=%v: the sysctl.d file exists: %v", yes, exists)
		}
	}
	env, _, _ = testEnv()
	if err := RunRevert(context.Background(), env, &RevertOptions{All: true, Journal: journal}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(conf); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("revert left the sysctl.d file: %v", err)
	}
}
