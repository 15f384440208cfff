package jvmopts

import (
	"errors"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func TestJDKSources(t *testing.T) {
	tests := []struct {
		name       string
		got        JDK
		label      string
		vendor     string
		confidence Confidence
	}{
		{"release JDK 8", FromVersion(`"1.8.0_342"`, "Huawei Technologies Co., Ltd", SourceRelease), "8u342", "Bisheng", High},
		{"release JDK 17", FromVersion("17.0.15", "Eclipse Adoptium", SourceRelease), "17", "Temurin", High},
		{"java.version 21", FromVersion("21.0.2", "Tencent", SourceProperty), "21", "Kona", High},
		{"user", Given(11), "11", "", High},
		{"nothing", FromVersion("", "", SourceRelease), "unknown", "", Unknown},
		{"dump JDK 17", FromThreadDump("Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):"), "17", "OpenJDK", High},
		{"dump JDK 8 (HotSpot 25.x)", FromThreadDump("Full thread dump Java HotSpot(TM) 64-Bit Server VM (25.181-b13 mixed mode):"), "8u181", "Oracle", High},
		{"dump JDK 25", FromThreadDump("Full thread dump OpenJDK 64-Bit Server VM (25.0.3+9-LTS mixed mode, sharing):"), "25", "OpenJDK", High},
		{"dump Dragonwell 11", FromThreadDump("Full thread dump OpenJDK 64-Bit Server VM (11.0.20.16-AJDK+1-Alibaba mixed mode):"), "11", "Dragonwell", High},
		{"not a dump", FromThreadDump("hello"), "unknown", "", Unknown},
		{"path bisheng 8", FromPath("/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java"), "8u342", "Bisheng", Medium},
		{"path 17", FromPath("/usr/lib/jvm/java-17-openjdk-amd64"), "17", "OpenJDK", Medium},
		{"path semeru", FromPath("/opt/ibm-semeru-open-jdk-11/bin/java"), "11", "OpenJ9", Medium},
		{"ZGC => 11+", FromOptions(Parse(strings.Fields("java -Xmx4g -XX:+UseZGC -jar app.jar"))), "11+", "", Low},
		{"generational ZGC => 21+", FromOptions(Parse(strings.Fields("java -XX:+UseZGC -XX:+ZGenerational Main"))), "21+", "", Low},
		{"-Xlog => 9+", FromOptions(Parse(strings.Fields("java -Xlog:gc*:file=gc.log Main"))), "9+", "", Low},
		{"--add-opens => 9+", FromOptions(Parse(strings.Fields("java --add-opens java.base/java.lang=ALL-UNNAMED Main"))), "9+", "", Low},
		{"JDK 8 GC logging => 8-", FromOptions(Parse(strings.Fields("java -XX:+PrintGCDateStamps -Xloggc:gc.log Main"))), "8 or older", "", Low},
		{"CMS => 14-", FromOptions(Parse(strings.Fields("java -XX:+UseConcMarkSweepGC Main"))), "14 or older", "", Low},
		{"Shenandoah: no bound (8u backports)", FromOptions(Parse(strings.Fields("java -XX:+UseShenandoahGC Main"))), "unknown", "", Unknown},
		{"plain options: no bound", FromOptions(Parse(strings.Fields("java -Xmx4g -XX:+UseG1GC Main"))), "unknown", "", Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if l := tt.got.Label(); l != tt.label {
				t.Errorf("Label = %q, want %q (%+v)", l, tt.label, tt.got)
			}
			if tt.got.Vendor != tt.vendor {
				t.Errorf("Vendor = %q, want %q", tt.got.Vendor, tt.vendor)
			}
			if tt.got.Confidence != tt.confidence {
				t.Errorf("Confidence = %v, want %v", tt.got.Confidence, tt.confidence)
			}
		})
	}
}

func TestJDKBounds(t *testing.T) {
	zgc := FromOptions(Parse(strings.Fields("java -XX:+UseZGC Main")))
	if !zgc.AtLeast(9) || !zgc.AtLeast(11) || zgc.AtLeast(12) || zgc.Below(9) || zgc.Known() {
		t.Errorf("ZGC bounds wrong: %+v", zgc)
	}
	old := FromOptions(Parse(strings.Fields("java -XX:+UseGCLogFileRotation Main")))
	if !old.Below(9) || old.AtLeast(9) {
		t.Errorf("JDK 8 flags bounds wrong: %+v", old)
	}
	var none JDK
	if none.AtLeast(9) || none.Below(9) || none.String() != "JDK unknown" {
		t.Errorf("unknown JDK decides something: %+v %q", none, none.String())
	}
}

func TestResolve(t *testing.T) {
	rel := FromVersion("1.8.0_392", "Red Hat, Inc.", SourceRelease)
	path := FromPath("/usr/lib/jvm/java-17-openjdk")
	opts := FromOptions(Parse(strings.Fields("java -Xlog:gc Main")))
	if got := Resolve(Given(21), rel, path, opts); got.Major != 21 || got.Source != SourceUser || got.Vendor != "OpenJDK" {
		t.Errorf("--jdk must win: %+v", got)
	}
	if got := Resolve(Given(0), rel, path, opts); got.Major != 8 || got.Update != 392 || got.Source != SourceRelease {
		t.Errorf("release must win over path and options: %+v", got)
	}
	if got := Resolve(Given(0), JDK{}, path, opts); got.Major != 17 || got.Source != SourcePath {
		t.Errorf("path must win over options: %+v", got)
	}
	if got := Resolve(Given(0), JDK{}, JDK{}, opts); got.Known() || !got.AtLeast(9) || got.Source != SourceOptions {
		t.Errorf("options bound an unknown JDK: %+v", got)
	}
	if s := Resolve(rel).String(); s != "JDK 8u392 (OpenJDK; JAVA_HOME/release)" {
		t.Errorf("String = %q", s)
	}
}

func TestParseWithEnv(t *testing.T) {
	args := []string{"java", "-Xmx64m", "-jar", "app.jar", "-Xms1g"}
	o := ParseWithEnv(args, map[string]string{"JDK_JAVA_OPTIONS": "-Xms64m"}, 17)
	if o.XmsBytes != 64*m || o.XmxBytes != 64*m || o.Main != "app.jar" || len(o.AppArgs) != 1 {
		t.Errorf("JDK_JAVA_OPTIONS -Xms not applied before the main: %+v", o)
	}
	if len(o.FromEnv) != 1 || o.FromEnv[0] != "JDK_JAVA_OPTIONS=-Xms64m" {
		t.Errorf("FromEnv = %q", o.FromEnv)
	}
	if o := ParseWithEnv(args, map[string]string{"JDK_JAVA_OPTIONS": "-Xms64m"}, 8); o.XmsBytes != 0 {
		t.Errorf("JDK 8's launcher ignores JDK_JAVA_OPTIONS, got Xms %d", o.XmsBytes)
	}
	// The command line wins over JAVA_TOOL_OPTIONS; _JAVA_OPTIONS wins over both.
	o = ParseWithEnv([]string{"java", "-Xmx64m", "-XX:+UseG1GC", "Main"},
		map[string]string{"JAVA_TOOL_OPTIONS": "-Xmx1g -Xms32m", "_JAVA_OPTIONS": "-XX:+UseSerialGC"}, 0)
	if o.XmxBytes != 64*m || o.XmsBytes != 32*m || o.GC != "Serial" || o.Main != "Main" {
		t.Errorf("order of environment and command line wrong: %+v", o)
	}
	if o := ParseWithEnv(args, nil, 0); o.XmsBytes != 0 || o.FromEnv != nil {
		t.Errorf("no environment: %+v", o)
	}
}

func TestCheckJava(t *testing.T) {
	for _, ok := range []string{
		"java -Xmx4g -XX:+UseZGC -jar app.jar",
		"/usr/lib/jvm/java-17-openjdk/bin/java -cp x Main",
		"nohup $JAVA_HOME/bin/java -Xmx1g -jar a.jar &",
		"-Xms2g -Xmx2g -XX:+UseG1GC",
		`JAVA_OPTS="-Xmx1g"; "$JAVA" $JAVA_OPTS -jar app.jar`,
	} {
		if err := CheckJava(ParseCommandLine(ok)); err != nil {
			t.Errorf("CheckJava(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"ls -la", "./start.sh", "python3 app.py -Xmx", "", "$CMD --help"} {
		err := CheckJava(ParseCommandLine(bad))
		if !errors.Is(err, ErrNotJava) {
			t.Errorf("CheckJava(%q) = %v, want ErrNotJava", bad, err)
			continue
		}
		if zh := finding.Localize(err, finding.ZH); zh == err.Error() || !strings.Contains(zh, "java") {
			t.Errorf("CheckJava(%q): no Chinese message: %q", bad, zh)
		}
	}
	if err := CheckJava(ParseCommandLine("ls -la")); !strings.Contains(err.Error(), `"ls"`) {
		t.Errorf("the message should name the program: %v", err)
	}
}
