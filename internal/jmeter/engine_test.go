package jmeter

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// JMeter's command line: $JVM_ARGS before -jar, the result settings the
// follower needs unless the user set them, -J properties for the
// controller and -G for remote engines, samples sent back each second.
func TestArgs(t *testing.T) {
	in := &Install{Jar: "/jm/bin/ApacheJMeter.jar", JVMArgs: []string{"-Xmx512m"}}
	a := Args(Options{Install: in, Plan: "/p.jmx", Dir: "/d", Props: []string{"users=5", "jmeter.save.saveservice.url=false"}}, 4455)
	s := strings.Join(a, " ")
	if !strings.HasPrefix(s, "-Xmx512m -jar /jm/bin/ApacheJMeter.jar -n -t /p.jmx -l /d/results.jtl -j /d/jmeter.log ") {
		t.Errorf("start: %s", s)
	}
	for _, want := range []string{"-Jjmeter.save.saveservice.output_format=csv", "-Jsampleresult.timestamp.start=true",
		"-Jjmeterengine.nongui.port=4455", "-Jusers=5", "-Jjmeter.save.saveservice.url=false"} {
		if !slices.Contains(a, want) {
			t.Errorf("missing %s in %s", want, s)
		}
	}
	if slices.Contains(a, "-Jjmeter.save.saveservice.url=true") || slices.Contains(a, "-R") || strings.Contains(s, "-G") {
		t.Errorf("user's setting overridden, or remote arguments without engines: %s", s)
	}
	a = Args(Options{Install: in, Plan: "/p.jmx", Dir: "/d", Props: []string{"users=5"}, Remote: []string{"h1:1099", "h2:2000"}}, 4455)
	s = strings.Join(a, " ")
	for _, want := range []string{"-R h1:1099,h2:2000", "-Gusers=5", "-Gtime_threshold=1000"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in %s", want, s)
		}
	}
}

func TestParseRemote(t *testing.T) {
	got, err := ParseRemote(" 10.0.0.7:1099, host-b ,[::1]:2000")
	if err != nil || strings.Join(got, ",") != "10.0.0.7:1099,host-b:1099,[::1]:2000" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", ",", "h:0", "h:99999", "user@h:1", "a/b:1"} {
		if _, err := ParseRemote(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	specs, err := ParseRemoteSpecs("eng1:2000=/opt/apache-jmeter-5.6.3, eng2")
	if err != nil || len(specs) != 2 || specs[0] != (RemoteSpec{Addr: "eng1:2000", Host: "eng1", Home: "/opt/apache-jmeter-5.6.3"}) ||
		specs[1] != (RemoteSpec{Addr: "eng2:1099", Host: "eng2"}) {
		t.Fatalf("%+v %v", specs, err)
	}
	if _, err := ParseRemoteSpecs("eng1=jmeter"); err == nil {
		t.Error("a relative JMETER_HOME accepted")
	}
}

// Find: --jmeter as a home, its jar or its bin/jmeter; JMETER_HOME; a
// folder without the launcher is refused, naming what was looked at.
func TestFind(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "bin"), 0o755)
	jar := filepath.Join(home, "bin", "ApacheJMeter.jar")
	os.WriteFile(jar, []byte("PK"), 0o644)
	os.WriteFile(filepath.Join(home, "bin", "jmeter"), []byte("#!/bin/sh\n"), 0o755)
	java := filepath.Join(t.TempDir(), "bin", "java")
	os.MkdirAll(filepath.Dir(java), 0o755)
	os.WriteFile(java, []byte("#!/bin/sh\n"), 0o755)
	env := map[string]string{"JAVA_HOME": filepath.Dir(filepath.Dir(java)), "JVM_ARGS": "-Xmx1g -Xss512k"}
	getenv := func(k string) string { return env[k] }
	for _, p := range []string{home, jar, filepath.Join(home, "bin", "jmeter")} {
		in, err := Find(p, getenv)
		if err != nil || in.Home != home || in.Jar != jar || in.Java != java || strings.Join(in.JVMArgs, " ") != "-Xmx1g -Xss512k" {
			t.Errorf("%s: %+v %v", p, in, err)
		}
	}
	env["JMETER_HOME"] = home
	if in, err := Find("", getenv); err != nil || in.Home != home {
		t.Errorf("JMETER_HOME: %+v %v", in, err)
	}
	if _, err := Find(t.TempDir(), getenv); err == nil || !strings.Contains(err.Error(), "ApacheJMeter.jar") {
		t.Errorf("an empty folder: %v", err)
	}
}
