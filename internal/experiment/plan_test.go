package experiment

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

const goodPlan = `
service:
  start: java -jar zoo.jar --scenario gc-pressure --port 18080
  target: http://127.0.0.1:18080/report
load:
  users: 4
  duration: 8s
  warm_up: 3s
repetitions: 2
seed: 7
objective:
  maximize: tps
  constraints: {p99_ms: 500, error_pct: 1}
knobs:
  - name: heap
    kind: jvm
    values: ["-Xmx64m", "-Xmx256m"]
    baseline: "-Xmx64m"
  - name: gc
    kind: jvm
    values: ["-XX:+UseParallelGC"]
  - name: pool
    kind: property
    key: pool.size
    values: ["8", "32"]
`

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan("plan.yaml", []byte(goodPlan))
	if err != nil {
		t.Fatal(err)
	}
	if p.Load.Duration != 8*time.Second || p.Load.WarmUp != 3*time.Second || p.Repetitions != 2 || p.Seed != 7 {
		t.Errorf("load/reps/seed: %+v %d %d", p.Load, p.Repetitions, p.Seed)
	}
	if m, d := p.Objective.Metric(); m != MetricTPS || d != 1 || p.Objective.Constraints.P99MS != 500 {
		t.Errorf("objective: %s %d %+v", m, d, p.Objective)
	}
	if p.HalvingFrom != 5 || p.PowerPct != 5 || p.Service.StartTimeout != 90*time.Second {
		t.Errorf("defaults: %d %g %s", p.HalvingFrom, p.PowerPct, p.Service.StartTimeout)
	}
	// heap 2 values (baseline among them) x gc 2 (unset baseline + one) x pool 3 (unset + two)
	if arms := Arms(p.Knobs); len(arms) != 12 {
		t.Errorf("arms: %d, want 12", len(arms))
	}
}

func TestParsePlanRefuses(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"unknown key with line", "service:\n  start: x\n  target: http://h/\n  strat: y\nknobs: []\n", "plan.yaml:4:"},
		{"unknown top key", "servise: {}\n", "plan.yaml:1:"},
		{"no service", "knobs: [{name: a, kind: env, key: A, values: [x]}]\n", "give start"},
		{"pid with jvm knob", "service: {pid: 42, target: 'http://h/'}\nknobs: [{name: a, kind: jvm, values: [-Xmx1g]}]\n", "needs service.start"},
		{"bad target", "service: {start: x, target: 'ftp://h/'}\nknobs: [{name: a, kind: env, key: A, values: [x]}]\n", "not an http"},
		{"shell in jvm option", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: jvm, values: ['-Xmx1g;rm']}]\n", "not a JVM option"},
		{"bad kind", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: grub, key: A, values: [x]}]\n", "kind \"grub\""},
		{"sysfs outside /sys", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: sysfs, key: /etc/passwd, values: [x]}]\n", "not a /sys attribute"},
		{"overlay var as env", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: env, key: JAVA_TOOL_OPTIONS, values: [x]}]\n", "overlay's own"},
		{"no values", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: env, key: A}]\n", "no values"},
		{"two documents", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: env, key: A, values: [x]}]\n---\nx: 1\n", "more than one"},
		{"empty", "", "empty"},
		{"only the baseline", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: env, key: A, values: [x], baseline: x}]\n", "nothing to compare"},
		{"limit of no resource", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: limit, key: cpu, values: ['1']}]\n", "is not a limit"},
		{"limit not a number", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: limit, key: nofile, values: [lots]}]\n", "is not a limit"},
		{"limit soft above hard", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: limit, key: nofile, values: ['10:5']}]\n", "soft limit is above"},
		{"limit on a pid", "service: {pid: 42, target: 'http://h/'}\nknobs: [{name: a, kind: limit, key: nofile, values: ['4096']}]\n", "needs service.start"},
		{"unknown knob key with line", "service: {start: x, target: 'http://h/'}\nknobs:\n  - name: a\n    kind: limit\n    key: nofile\n    valuez: ['1']\n", "plan.yaml:6:"},
		{"binding with a key", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: binding, key: cpus, values: ['0']}]\n", "has no key"},
		{"binding not a node", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: binding, values: ['node:x']}]\n", "not a NUMA node"},
		{"binding not a list", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: binding, values: ['3-1']}]\n", "not a CPU list"},
		{"two bindings", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: binding, values: ['0']}, {name: b, kind: binding, values: ['1']}]\n", "one binding knob"},
		{"config file missing", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: config-file, key: logback.configurationFile, values: [/nonexistent/logback.xml]}]\n", "not a readable file"},
		{"config file without property", "service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: config-file, values: [/etc/hostname]}]\n", "not a system property"},
		{"both objectives", "service: {start: x, target: 'http://h/'}\nobjective: {maximize: tps, minimize: p99_ms}\nknobs: [{name: a, kind: env, key: A, values: [x]}]\n", "exclude"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePlan("plan.yaml", []byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			var fe *finding.Error
			if !errors.As(err, &fe) || fe.Msg.ZH == "" || fe.Msg.ZH == fe.Msg.EN {
				t.Errorf("not bilingual: %#v", err)
			}
		})
	}
}

func TestParsePlanTooManyArms(t *testing.T) {
	y := "service: {start: x, target: 'http://h/'}\nknobs:\n"
	for _, n := range []string{"A", "B", "C"} {
		y += "  - {name: " + n + ", kind: env, key: " + n + ", values: [1, 2, 3, 4]}\n"
	}
	if _, err := ParsePlan("p", []byte(y)); err == nil || !strings.Contains(err.Error(), "combinations") {
		t.Fatalf("125 arms accepted: %v", err)
	}
}

func FuzzParsePlan(f *testing.F) {
	f.Add([]byte(goodPlan))
	f.Add([]byte("service: {start: x, target: 'http://h/'}\nknobs: [{name: a, kind: sysctl, key: vm.swappiness, values: ['1']}]\n"))
	f.Add([]byte("knobs: [[[[\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePlan("fuzz.yaml", b)
		if err != nil {
			return
		}
		arms := Arms(p.Knobs)
		if len(arms) == 0 || len(arms) > maxArms || arms[0].ID != "base" {
			t.Fatalf("arms of a valid plan: %d", len(arms))
		}
		for _, a := range arms {
			o := overlayOf(p.Knobs, a.Values)
			_ = o.Command(p.Service.Start, func(string) string { return "" })
		}
	})
}
