package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeJMeterHome is a JMETER_HOME with a launcher and a JAVA_HOME with a
// java, enough for Find (nothing is run).
func fakeJMeterHome(t *testing.T) map[string]string {
	t.Helper()
	home, jh := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, "bin"), 0o755)
	os.WriteFile(filepath.Join(home, "bin", "ApacheJMeter.jar"), []byte("PK"), 0o644)
	os.MkdirAll(filepath.Join(jh, "bin"), 0o755)
	os.WriteFile(filepath.Join(jh, "bin", "java"), []byte("#!/bin/sh\n"), 0o755)
	return map[string]string{"JMETER_HOME": home, "JAVA_HOME": jh}
}

// --engine: auto takes the built-in generator for a plan it runs whole and
// JMeter for one it cannot (saying why), or the generator again when no
// JMeter is found or --jmx-skip-unsupported asks for it; builtin never
// takes JMeter; --jmeter-remote means JMeter; bad combinations are usage
// errors.
func TestChooseEngine(t *testing.T) {
	supported := filepath.Join("..", "jmx", "testdata", "SimpleTestPlan.jmx")
	unsupported := filepath.Join("..", "jmx", "testdata", "build-adv-web-test-plan.jmx")
	vars := fakeJMeterHome(t)
	for _, tc := range []struct {
		name     string
		eo       engineOptions
		plan     string
		skip     bool
		noJMeter bool
		jmeter   bool   // JMeter chosen
		usage    string // a usage error containing this
	}{
		{name: "auto, supported", eo: engineOptions{Engine: "auto"}, plan: supported},
		{name: "default, unsupported", plan: unsupported, jmeter: true},
		{name: "auto, unsupported, skip", eo: engineOptions{Engine: "auto"}, plan: unsupported, skip: true},
		{name: "auto, unsupported, no JMeter", eo: engineOptions{Engine: "auto"}, plan: unsupported, noJMeter: true},
		{name: "builtin", eo: engineOptions{Engine: "builtin"}, plan: unsupported},
		{name: "jmeter, supported", eo: engineOptions{Engine: "jmeter"}, plan: supported, jmeter: true},
		{name: "remote", eo: engineOptions{Remote: "127.0.0.1:24101,h2"}, plan: supported, jmeter: true},
		{name: "remote with builtin", eo: engineOptions{Engine: "builtin", Remote: "h1:1099"}, plan: supported, usage: "--jmeter-remote needs --engine jmeter"},
		{name: "jmeter without a plan", eo: engineOptions{Engine: "jmeter"}, usage: "give --jmx PLAN"},
		{name: "jmeter not found", eo: engineOptions{Engine: "jmeter"}, plan: supported, noJMeter: true, usage: "JMeter not found"},
		{name: "bad engine", eo: engineOptions{Engine: "wrk"}, plan: supported, usage: `--engine "wrk"`},
		{name: "bad remote", eo: engineOptions{Remote: "a/b:1"}, plan: supported, usage: "want host:port"},
		{name: "remote home without --host", eo: engineOptions{Remote: "h1:1099=/opt/jmeter,h2"}, plan: supported, usage: "starts over SSH"},
		{name: "remote home with --host", eo: engineOptions{Remote: "h1:1099=/opt/jmeter,h2", hosts: true}, plan: supported, jmeter: true},
		{name: "remote relative home", eo: engineOptions{Remote: "h1:1099=opt/jmeter", hosts: true}, plan: supported, usage: "absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errb := testEnv()
			env.Getenv = func(k string) string {
				if tc.noJMeter || k == "PATH" {
					return ""
				}
				return vars[k]
			}
			t.Setenv("PATH", "") // no jmeter found on this host's PATH
			c, err := chooseEngine(tc.eo, tc.plan, nil, tc.skip, env)
			if tc.usage != "" {
				if Code(env, err) != ExitUsage || !strings.Contains(err.Error(), tc.usage) {
					t.Fatalf("want a usage error with %q, got %v", tc.usage, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Install != nil; got != tc.jmeter {
				t.Fatalf("JMeter chosen %v, want %v (stderr %s)", got, tc.jmeter, errb)
			}
			if tc.jmeter && tc.eo.Engine == "" && tc.eo.Remote == "" && !strings.Contains(c.Why.EN, `CookieManager "HTTP Cookie Manager"`) {
				t.Errorf("auto does not say why: %q", c.Why.EN)
			}
			if tc.eo.Remote != "" && len(c.Engines) != 2 {
				t.Errorf("engines %v", c.Engines)
			}
			if tc.noJMeter && !strings.Contains(errb.String(), "JMeter not found") {
				t.Errorf("auto without JMeter says nothing: %s", errb)
			}
		})
	}
}
