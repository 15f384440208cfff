package jvmopts

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const (
	k = int64(1) << 10
	m = int64(1) << 20
	g = int64(1) << 30
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		line string // split on blanks
		want Options
	}{
		{
			name: "package doc sample",
			line: "java -server -Xms4g -Xmx4g -XX:+UseG1GC -XX:MaxGCPauseMillis=200 -Xloggc:/var/log/app/gc.log -Dlogback.configurationFile=/etc/app/logback.xml -jar app.jar",
			want: Options{
				Launcher: "java", XmsBytes: 4 * g, XmxBytes: 4 * g, GC: "G1",
				Bools:     map[string]bool{"UseG1GC": true},
				Values:    map[string]string{"MaxGCPauseMillis": "200"},
				Props:     map[string]string{"logback.configurationFile": "/etc/app/logback.xml"},
				GCLogging: true, GCLogFile: "/var/log/app/gc.log",
				Main: "app.jar", JarFile: true, Other: []string{"-server"},
			},
		},
		{
			name: "bisheng jdk8 parallel, app args after main",
			line: "/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java -Xms2g -Xmx8g -XX:+UseParallelGC -cp /opt/app/lib/* com.bank.core.Main --port 8080 -Xmx1g",
			want: Options{
				Launcher: "/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java", XmsBytes: 2 * g, XmxBytes: 8 * g,
				GC: "Parallel", Bools: map[string]bool{"UseParallelGC": true},
				ClassPath: "/opt/app/lib/*", Main: "com.bank.core.Main",
				AppArgs: []string{"--port", "8080", "-Xmx1g"},
			},
		},
		{
			name: "no argv0, suffix cases, KB thread stack, last wins",
			line: "-Xmx512M -Xms256m -Xss1M -XX:ThreadStackSize=256 -Xmn128K -XX:MaxHeapSize=1T Main",
			want: Options{
				XmsBytes: 256 * m, XmxBytes: 1 << 40, XssBytes: 256 * k, XmnBytes: 128 * k,
				Values: map[string]string{"ThreadStackSize": "256", "MaxHeapSize": "1T"},
				Main:   "Main",
			},
		},
		{
			name: "plain bytes and hex",
			line: "java -Xmx1073741824 -XX:InitialHeapSize=0x10000000 Main",
			want: Options{
				Launcher: "java", XmxBytes: g, XmsBytes: 256 * m,
				Values: map[string]string{"InitialHeapSize": "0x10000000"}, Main: "Main",
			},
		},
		{
			name: "RAM percentages, ZGC generational, xlog to file",
			line: "java -XX:MaxRAMPercentage=75.0 -XX:InitialRAMPercentage=50 -XX:+UseZGC -XX:+ZGenerational -Xlog:gc*:file=/logs/gc.log:time,uptime -m app/app.Main a b",
			want: Options{
				Launcher: "java", MaxRAMPercentage: 75, InitialRAMPercentage: 50, GC: "ZGC",
				Bools:     map[string]bool{"UseZGC": true, "ZGenerational": true},
				Values:    map[string]string{"MaxRAMPercentage": "75.0", "InitialRAMPercentage": "50"},
				GCLogging: true, GCLogFile: "/logs/gc.log",
				Other: []string{"-Xlog:gc*:file=/logs/gc.log:time,uptime"},
				Main:  "app/app.Main", Module: true, AppArgs: []string{"a", "b"},
			},
		},
		{
			name: "jdk8 CMS with PrintGCDetails and agents",
			line: "/usr/java/jdk1.8.0_181/bin/java -XX:+UseConcMarkSweepGC -XX:+UseParNewGC -XX:+PrintGCDetails -javaagent:/opt/sw/agent.jar=x -agentlib:jdwp=transport=dt_socket,server=y -agentpath:/opt/ap/libasyncProfiler.so=start Main",
			want: Options{
				Launcher: "/usr/java/jdk1.8.0_181/bin/java", GC: "CMS",
				Bools:     map[string]bool{"UseConcMarkSweepGC": true, "UseParNewGC": true, "PrintGCDetails": true},
				GCLogging: true,
				Agents:    []string{"-javaagent:/opt/sw/agent.jar=x", "-agentlib:jdwp=transport=dt_socket,server=y", "-agentpath:/opt/ap/libasyncProfiler.so=start"},
				Main:      "Main",
			},
		},
		{
			name: "collector conflict: last wins",
			line: "java -XX:+UseParallelGC -XX:+UseG1GC Main",
			want: Options{Launcher: "java", GC: "G1", GCConflict: true,
				Bools: map[string]bool{"UseParallelGC": true, "UseG1GC": true}, Main: "Main"},
		},
		{
			name: "ParallelOld is Parallel, no conflict",
			line: "java -XX:+UseParallelGC -XX:+UseParallelOldGC Main",
			want: Options{Launcher: "java", GC: "Parallel",
				Bools: map[string]bool{"UseParallelGC": true, "UseParallelOldGC": true}, Main: "Main"},
		},
		{
			name: "disabling the chosen collector restores ergonomics",
			line: "java -XX:+UseG1GC -XX:-UseG1GC Main",
			want: Options{Launcher: "java", Bools: map[string]bool{"UseG1GC": false}, Main: "Main"},
		},
		{
			name: "PrintGC turned off again; xlog disable",
			line: "java -XX:+PrintGC -XX:-PrintGC -Xlog:gc -Xlog:disable Main",
			want: Options{Launcher: "java", Bools: map[string]bool{"PrintGC": false},
				Other: []string{"-Xlog:gc", "-Xlog:disable"}, Main: "Main"},
		},
		{
			name: "xlog without gc tag is not gc logging; verbose:gc is",
			line: "java -Xlog:safepoint=info:file=sp.log -Xlog:gc=off -verbose:gc Main",
			want: Options{Launcher: "java", GCLogging: true,
				Other: []string{"-Xlog:safepoint=info:file=sp.log", "-Xlog:gc=off"}, Main: "Main"},
		},
		{
			name: "module path options take values; --add-opens= form",
			line: "java -p mods --add-opens java.base/java.lang=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --module=app/app.Main",
			want: Options{Launcher: "java",
				Other: []string{"-p=mods", "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"},
				Main:  "app/app.Main", Module: true},
		},
		{
			name: "props",
			line: "java -Dfile.encoding=UTF-8 -Dflag -Da=b=c Main",
			want: Options{Launcher: "java", Props: map[string]string{"file.encoding": "UTF-8", "flag": "", "a": "b=c"}, Main: "Main"},
		},
		{
			name: "malformed goes to Unparsed, keeps earlier values",
			line: "java -Xmx2g -Xmx -Xmxfoo -Xms4q -XX:MaxRAMPercentage=abc -XX: -XX:+ -XX:Bad -XX:+Bad-Name -D -Xfoo --bogus @args.txt -jar",
			want: Options{Launcher: "java", XmxBytes: 2 * g,
				Values: map[string]string{"MaxRAMPercentage": "abc"},
				Unparsed: []string{"-Xmx", "-Xmxfoo", "-Xms4q", "-XX:MaxRAMPercentage=abc", "-XX:", "-XX:+", "-XX:Bad",
					"-XX:+Bad-Name", "-D", "-Xfoo", "--bogus", "@args.txt", "-jar"}},
		},
		{
			name: "overflow",
			line: "java -Xmx99999999999t -XX:ThreadStackSize=9007199254740992 Main",
			want: Options{Launcher: "java", Values: map[string]string{"ThreadStackSize": "9007199254740992"},
				Unparsed: []string{"-Xmx99999999999t", "-XX:ThreadStackSize=9007199254740992"}, Main: "Main"},
		},
		{
			name: "JDK 8 CMS shorthand",
			line: "java -Xconcgc Main",
			want: Options{Launcher: "java", GC: "CMS", Other: []string{"-Xconcgc"}, Main: "Main"},
		},
		{
			name: "empty",
			line: "",
			want: Options{},
		},
		{
			name: "launcher only",
			line: "java",
			want: Options{Launcher: "java"},
		},
		{
			name: "recognised flags kept in Other",
			line: "javaw.exe -ea -Xshare:auto -XX:+UseSerialGC -Xverify:none -XshowSettings:vm -Xint Main",
			want: Options{Launcher: "javaw.exe", GC: "Serial", Bools: map[string]bool{"UseSerialGC": true},
				Other: []string{"-ea", "-Xshare:auto", "-Xverify:none", "-XshowSettings:vm", "-Xint"}, Main: "Main"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(strings.Fields(tt.line))
			if !reflect.DeepEqual(got, tt.want) {
				gj, _ := json.MarshalIndent(got, "", " ")
				wj, _ := json.MarshalIndent(tt.want, "", " ")
				t.Errorf("Parse(%q)\n got %s\nwant %s", tt.line, gj, wj)
			}
		})
	}
}

func TestParseProcCmdline(t *testing.T) {
	// /proc/PID/cmdline as read: NUL-separated with a trailing NUL.
	raw := "java\x00-Xmx256m\x00-XX:+UseSerialGC\x00-cp\x00/tmp/x\x00Sleep\x00"
	got := Parse(strings.Split(raw, "\x00"))
	if got.XmxBytes != 256*m || got.GC != "Serial" || got.Main != "Sleep" || got.ClassPath != "/tmp/x" || got.AppArgs != nil {
		t.Errorf("got %+v", got)
	}
}

func TestMajorVersion(t *testing.T) {
	tests := map[string]int{
		"1.8.0_342": 8, "17.0.15": 17, "21": 21, "11.0.2+9": 11, "25-ea": 25, "1.7.0_80": 7,
		"bisheng-jdk1.8.0_342": 8, "jdk1.8.0_181": 8, "java-17-openjdk-amd64": 17, `"1.8.0_121"`: 8,
		"": 0, "abc": 0, "1": 1, "9": 9,
	}
	for in, want := range tests {
		if got := MajorVersion(in); got != want {
			t.Errorf("MajorVersion(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestDefaultGC(t *testing.T) {
	tests := []struct {
		ver  string
		cpus int
		mem  int64
		want string
	}{
		{"1.8.0_342", 128, 512 * g, "Parallel"},
		{"1.8.0_121", 1, 8 * g, "Serial"},
		{"1.8.0_121", 2, 1 * g, "Serial"},
		{"1.8.0_121", 2, 2*g - 256*m, "Parallel"}, // HotSpot's 256 MB slack
		{"1.8.0_121", 2, 2*g - 257*m, "Serial"},
		{"17.0.15", 2, 4 * g, "G1"},
		{"11", 1, 4 * g, "Serial"},
		{"21", 16, 64 * g, "G1"},
		{"", 16, 64 * g, ""},
		{"17", 0, 64 * g, ""},
		{"17", 4, 0, ""},
	}
	for _, tt := range tests {
		if got := DefaultGC(tt.ver, tt.cpus, tt.mem); got != tt.want {
			t.Errorf("DefaultGC(%q, %d, %d) = %q, want %q", tt.ver, tt.cpus, tt.mem, got, tt.want)
		}
	}
}

func TestParseCommandLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \n\t ", nil},
		{"java -Xmx1g -jar app.jar", []string{"java", "-Xmx1g", "-jar", "app.jar"}},
		{`java -Dapp.name="core bank" -Dq='it''s' -Dx=a\ b Main`, []string{"java", "-Dapp.name=core bank", "-Dq=its", "-Dx=a b", "Main"}},
		{`java "-Dp=\"q\" \$HOME \\ \n"`, []string{"java", `-Dp="q" $HOME \ \n`}},
		{"nohup /opt/jdk/bin/java -Xms4g -jar app.jar > /logs/out.log 2>&1 &",
			[]string{"/opt/jdk/bin/java", "-Xms4g", "-jar", "app.jar"}},
		{"java -jar a.jar >>out.log 2>err.log </dev/null &>all.log", []string{"java", "-jar", "a.jar"}},
		{"java \\\n  -Xmx1g \\\r\n  -jar x.jar", []string{"java", "-Xmx1g", "-jar", "x.jar"}},
		{`JAVA_OPTS="-Xms2g -Xmx2g -XX:+UseG1GC"; java $JAVA_OPTS -cp 'lib/*' com.example.Main`,
			[]string{"java", "-Xms2g", "-Xmx2g", "-XX:+UseG1GC", "-cp", "lib/*", "com.example.Main"}},
		{"export JAVA_OPTS='-server -Xmx8g -XX:+UseParallelGC'", []string{"-server", "-Xmx8g", "-XX:+UseParallelGC"}},
		{"JAVA_OPTS=\"-Xmx1g\"\nMEM_OPTS=-Xss512k\nexec java ${JAVA_OPTS} \"$MEM_OPTS\" $UNSET Main arg",
			[]string{"java", "-Xmx1g", "-Xss512k", "$UNSET", "Main", "arg"}},
		{"cd /app && JAVA_HOME=/opt/jdk java -Xmx1g Main | tee log", []string{"java", "-Xmx1g", "Main"}},
		{"# start\njava -Xmx1g Main # trailing comment", []string{"java", "-Xmx1g", "Main"}},
		{"-Xms1g -Xmx1g -XX:+UseG1GC", []string{"-Xms1g", "-Xmx1g", "-XX:+UseG1GC"}},
		{`'nohup' "A=b" java`, []string{"nohup", "A=b", "java"}},
		{`java '' ""`, []string{"java", "", ""}},
		{`java "unterminated -Xmx1g`, []string{"java", "unterminated -Xmx1g"}},
		{`java a#b`, []string{"java", "a#b"}},
		{"java 2 > x", []string{"java", "2"}}, // the fd number must touch the >
	}
	for _, tt := range tests {
		got := ParseCommandLine(tt.in)
		if !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("ParseCommandLine(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestQuoteCommandLineRoundTrip(t *testing.T) {
	args := []string{"java", "-Dx=a b", "it's", "", "$HOME", "nohup", "A=b", "a\nb", "\\", "#c", "x>y", "~", "\xff"}
	s := QuoteCommandLine(args)
	if got := ParseCommandLine(s); !slices.Equal(got, args) {
		t.Errorf("round trip via %q\n got %q\nwant %q", s, got, args)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"java -server -Xms4g -Xmx4g -XX:+UseG1GC -jar app.jar a b",
		"/usr/java/jdk1.8.0_181/bin/java\x00-Xss512k\x00-XX:ThreadStackSize=0x7fffffffffffffff\x00Main\x00",
		"-Xlog:gc*:file=x -Xlog:disable -Xloggc: -XX:-UseZGC -m",
		"java\x00\x00-cp\x00",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		if strings.Contains(s, " ") && !strings.Contains(s, "\x00") {
			args = strings.Fields(s)
		}
		o := Parse(args)
		if o.XmsBytes < 0 || o.XmxBytes < 0 || o.XssBytes < 0 || o.XmnBytes < 0 ||
			o.MaxRAMPercentage < 0 || o.MaxRAMPercentage > 100 {
			t.Fatalf("negative or out-of-range size: %+v", o)
		}
		if len(o.AppArgs) > 0 && !slices.Equal(o.AppArgs, args[len(args)-len(o.AppArgs):]) {
			// Trailing "" are trimmed before parsing, so compare on the trimmed input.
			trimmed := args
			for len(trimmed) > 0 && trimmed[len(trimmed)-1] == "" {
				trimmed = trimmed[:len(trimmed)-1]
			}
			if !slices.Equal(o.AppArgs, trimmed[len(trimmed)-len(o.AppArgs):]) {
				t.Fatalf("AppArgs %q not a suffix of %q", o.AppArgs, args)
			}
		}
		if !reflect.DeepEqual(o, Parse(args)) {
			t.Fatalf("Parse not deterministic for %q", args)
		}
		if o.GCLogFile != "" && !o.GCLogging {
			t.Fatalf("log file %q without GCLogging", o.GCLogFile)
		}
		// Adding argv[0] changes nothing but Launcher.
		if len(args) == 0 || !IsLauncher(args[0]) {
			o2 := Parse(append([]string{"java"}, args...))
			o2.Launcher = o.Launcher
			if !reflect.DeepEqual(o, o2) {
				t.Fatalf("argv[0] changed the result for %q:\n%+v\n%+v", args, o, o2)
			}
		}
		if _, err := json.Marshal(o); err != nil {
			t.Fatalf("marshal: %v", err)
		}
	})
}

func FuzzParseCommandLine(f *testing.F) {
	for _, s := range []string{
		`nohup java -Dx="a b" -jar app.jar > out 2>&1 &`,
		`JAVA_OPTS="-Xmx1g"; java $JAVA_OPTS ${JAVA_OPTS} "$JAVA_OPTS" Main`,
		"export A='x y'\nB=2",
		"java \\\n -Xmx1g # c",
		`'unterminated "x`,
		`a&>b|c||d&&e;f`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := ParseCommandLine(s)
		// Quoting the result and splitting again gives the same words.
		q := QuoteCommandLine(args)
		again := ParseCommandLine(q)
		if !slices.Equal(args, again) {
			t.Fatalf("not idempotent: %q -> %q -> %q -> %q", s, args, q, again)
		}
		// Parse accepts whatever came out.
		_ = Parse(args)
	})
}

func BenchmarkParse(b *testing.B) {
	args := strings.Fields("/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java -server -Xms8g -Xmx8g -Xss512k -XX:+UseG1GC " +
		"-XX:MaxGCPauseMillis=200 -XX:+PrintGCDetails -XX:+PrintGCDateStamps -Xloggc:/logs/gc.log " +
		"-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=/logs -Dfile.encoding=UTF-8 -Dspring.profiles.active=prod " +
		"-javaagent:/opt/sw/agent.jar -cp /opt/app/lib/* com.bank.core.Main --port 8080")
	b.ReportAllocs()
	for b.Loop() {
		_ = Parse(args)
	}
}

func BenchmarkParseCommandLine(b *testing.B) {
	s := `JAVA_OPTS="-server -Xms8g -Xmx8g -XX:+UseG1GC -Dfile.encoding=UTF-8"; nohup /opt/jdk/bin/java $JAVA_OPTS -Dapp.name="core bank" -jar /opt/app/app.jar > /logs/out.log 2>&1 &`
	b.ReportAllocs()
	for b.Loop() {
		_ = ParseCommandLine(s)
	}
}
