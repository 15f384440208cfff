package experiment

import (
	"os/exec"
	"strings"
	"testing"
)

func TestOverlayCommandReachesTheService(t *testing.T) {
	knobs := []Knob{
		{Name: "heap", Kind: KindJVM, Values: []string{"-Xmx256m -Xms256m"}},
		{Name: "pool", Kind: KindProperty, Key: "pool.size", Values: []string{"32"}},
		{Name: "msg", Kind: KindEnv, Key: "GREETING", Values: []string{"it's $HOME `x`"}},
		{Name: "swap", Kind: KindSysctl, Key: "vm.swappiness", Values: []string{"1"}},
	}
	o := overlayOf(knobs, []string{"-Xmx256m -Xms256m", "32", "it's $HOME `x`", "1"})
	getenv := func(k string) string {
		if k == overlayVar {
			return "-Dexisting=1"
		}
		return ""
	}
	// The start command itself is a list (cd && ...): the exports reach it all.
	cmd := o.Command(`cd / && printf '%s|%s\n' "$JAVA_TOOL_OPTIONS" "$GREETING"`, getenv)
	out, err := exec.Command("/bin/sh", "-c", cmd).Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	want := "-Dexisting=1 -Xmx256m -Xms256m -Dpool.size=32|it's $HOME `x`\n"
	if string(out) != want {
		t.Errorf("service saw %q, want %q", out, want)
	}
	if strings.Contains(cmd, "swappiness") {
		t.Errorf("a host knob leaked into the launch: %s", cmd)
	}
}

// VM.flags -all of a JDK 17 started with -Xmx64m on its command line and
// -Xmx256m -XX:+UseParallelGC through JAVA_TOOL_OPTIONS (trimmed).
const flagsAll = `[Global flags]
     bool UseG1GC                                  = false                                     {product} {default}
     bool UseParallelGC                            = true                                      {product} {environment}
   size_t MaxHeapSize                              = 67108864                                  {product} {command line}
   size_t InitialHeapSize                          = 67108864                                  {product} {ergonomic}
    uintx MaxNewSize                              := 22347776                            {product}
`

func TestCheckFlags(t *testing.T) {
	flags := parseFlagsAll(flagsAll)
	if flags["MaxNewSize"] != "22347776" || flags["UseParallelGC"] != "true" {
		t.Fatalf("parsed %v", flags)
	}
	ex, unchecked := expectations([]string{"-Xmx256m", "-XX:+UseParallelGC", "-Dpool.size=32", "-verbose:gc"})
	if len(unchecked) != 1 || unchecked[0] != "-verbose:gc" {
		t.Errorf("unchecked %v", unchecked)
	}
	props := parseProperties("#Wed Nov 25\njava.version=17.0.9\npool.size=8\npath\\:x=a\\=b\n")
	if props["path:x"] != "a=b" {
		t.Errorf("properties %v", props)
	}
	cmdline := []string{"java", "-Xmx64m", "-Dpool.size=8", "-jar", "zoo.jar"}
	bad := checkFlags(ex, flags, props, cmdline)
	if len(bad) != 2 {
		t.Fatalf("mismatches: %v", bad)
	}
	if !strings.Contains(bad[0].EN, "-Xmx256m did not take effect: the JVM runs with MaxHeapSize=67108864") ||
		!strings.Contains(bad[0].EN, "command line sets -Xmx64m") || !strings.Contains(bad[0].ZH, "-Xmx64m") {
		t.Errorf("heap: %+v", bad[0])
	}
	if !strings.Contains(bad[1].EN, "pool.size=8") || !strings.Contains(bad[1].EN, "-Dpool.size=8") {
		t.Errorf("property: %+v", bad[1])
	}
	// What did take effect passes, a size rounded up to alignment too.
	ok, _ := expectations([]string{"-Xmx255m", "-XX:+UseParallelGC", "-XX:-UseG1GC"})
	flags["MaxHeapSize"] = "268435456"
	if bad := checkFlags(ok, flags, nil, nil); len(bad) != 0 {
		t.Errorf("false refusal: %v", bad)
	}
	// Another collector on the command line is named as the conflict.
	g1, _ := expectations([]string{"-XX:+UseParallelGC"})
	bad = checkFlags(g1, map[string]string{"UseParallelGC": "false"}, nil, []string{"java", "-XX:+UseG1GC"})
	if len(bad) != 1 || !strings.Contains(bad[0].EN, "sets -XX:+UseG1GC") {
		t.Errorf("collector conflict: %v", bad)
	}
}
