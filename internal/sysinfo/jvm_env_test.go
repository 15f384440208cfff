package sysinfo

import (
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// A JVM's options may come from its environment (JDK_JAVA_OPTIONS,
// JAVA_TOOL_OPTIONS, _JAVA_OPTIONS): the audit must see them, or
// `JDK_JAVA_OPTIONS=-Xms64m java -Xmx64m` looks as if it had no -Xms.
func TestCollectJVMOptionsFromEnviron(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"proc/5555/comm":    "java\n",
		"proc/5555/cmdline": "/usr/lib/jvm/java-17-openjdk-amd64/bin/java\x00-Xmx64m\x00-cp\x00/tmp/x\x00Sleep\x00",
		"proc/5555/environ": "PATH=/usr/bin\x00JDK_JAVA_OPTIONS=-Xms64m\x00JAVA_TOOL_OPTIONS=-XX:+HeapDumpOnOutOfMemoryError\x00HOME=/root\x00",
		"proc/5555/status":  "Name:\tjava\nUid:\t0\t0\t0\t0\nVmRSS:\t 1024 kB\nThreads:\t20\nCpus_allowed_list:\t0-1\n",
		"proc/6666/comm":    "java\n",
		"proc/6666/cmdline": "/opt/jdk8/bin/java\x00-Xmx64m\x00Main\x00",
		"proc/6666/environ": "JDK_JAVA_OPTIONS=-Xms64m\x00",
		"proc/6666/status":  "Name:\tjava\nUid:\t0\t0\t0\t0\nVmRSS:\t 1024 kB\nThreads:\t20\n",
		"opt/jdk8/release":  "JAVA_VERSION=\"1.8.0_392\"\n",
	})
	h := hostfs.Under(dir)
	jf := collectJVMs(h, scanProcs(h))
	if !jf.OK || len(jf.Value) != 2 {
		t.Fatalf("jvms %+v", jf)
	}
	byPID := map[int]JVM{}
	for _, j := range jf.Value {
		byPID[j.PID] = j
	}
	j := byPID[5555]
	if j.Options.XmsBytes != 64<<20 || j.Options.XmxBytes != 64<<20 || !j.Options.Bools["HeapDumpOnOutOfMemoryError"] || j.Options.Main != "Sleep" {
		t.Errorf("options from the environment not applied: %+v", j.Options)
	}
	if len(j.Options.FromEnv) != 2 {
		t.Errorf("FromEnv = %q", j.Options.FromEnv)
	}
	if j.Version != "17" || j.VersionFrom != "install path" {
		t.Errorf("version %q from %q, want 17 from the install path", j.Version, j.VersionFrom)
	}
	// JDK 8's launcher does not read JDK_JAVA_OPTIONS.
	if j8 := byPID[6666]; j8.Options.XmsBytes != 0 || j8.VersionFrom != "JAVA_HOME/release" {
		t.Errorf("JDK 8: Xms %d, version from %q", j8.Options.XmsBytes, j8.VersionFrom)
	}
}

func TestJavaOptionsEnv(t *testing.T) {
	env := javaOptionsEnv([]byte("A=1\x00_JAVA_OPTIONS=-Xmx1g\x00JAVA_TOOL_OPTIONS\x00JAVA_TOOL_OPTIONSX=-Xms1g\x00"))
	if len(env) != 1 || env["_JAVA_OPTIONS"] != "-Xmx1g" {
		t.Errorf("env = %q", env)
	}
	if env := javaOptionsEnv(nil); env != nil {
		t.Errorf("empty environ: %q", env)
	}
}
