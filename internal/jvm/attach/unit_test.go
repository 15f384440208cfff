package attach

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func TestParseReply(t *testing.T) {
	for _, c := range []struct {
		in   string
		code int
		out  string
		err  bool
	}{
		{"0\nOpenJDK 64-Bit Server VM version 17.0.15\nJDK 17.0.15\n", 0, "OpenJDK 64-Bit Server VM version 17.0.15\nJDK 17.0.15\n", false},
		{"0\n", 0, "", false},
		{"-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n", -1, "java.lang.IllegalArgumentException: Unknown diagnostic command\n", false},
		{"-1\nOperation nosuchop not recognized!", -1, "Operation nosuchop not recognized!", false},
		{"101", 101, "", false},
		{"0\r\nx", 0, "x", false},
		{"", 0, "", true},
		{"\nx", 0, "", true},
		{"OpenJDK\n", 0, "", true},
		{"123456789012345\n", 0, "", true},
	} {
		code, out, err := parseReply([]byte(c.in))
		if (err != nil) != c.err || code != c.code || string(out) != c.out {
			t.Errorf("%q: %d %q %v", c.in, code, out, err)
		}
	}
	if _, _, err := parseReply(nil); !errors.Is(err, errNoReply) {
		t.Errorf("empty: %v", err)
	}
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"0\nJDK 17\n", "-1\nUnknown", "", "\n\n", "1", "0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		code, out, err := parseReply(b)
		if err == nil && len(out) > len(b) {
			t.Fatalf("output longer than input: %d %q", code, out)
		}
		if code2, out2, err2 := readReply(bytes.NewReader(b)); (err == nil) != (err2 == nil) || code2 != code || !bytes.Equal(out, out2) {
			t.Fatalf("readReply differs: %v %v", err, err2)
		}
	})
}

func TestRequest(t *testing.T) {
	b, err := request("jcmd", "Thread.print -l -e")
	if err != nil || string(b) != "1\x00jcmd\x00Thread.print -l -e\x00\x00\x00" {
		t.Errorf("%q %v", b, err)
	}
	b, _ = request("properties")
	if string(b) != "1\x00properties\x00\x00\x00\x00" {
		t.Errorf("%q", b)
	}
	if _, err := request("x", "a", "b", "c", "d"); err == nil {
		t.Error("4 args accepted")
	}
	if _, err := request("jcmd", "a\x00b"); err == nil {
		t.Error("NUL accepted")
	}
}

func TestParseStatusMaps(t *testing.T) {
	status := "Name:\tjava\nState:\tS (sleeping)\nUid:\t1000\t65534\t65534\t65534\nGid:\t1000\t65533\t65533\t65533\n" +
		"NSpid:\t18657\t1\nSigBlk:\t0000000000000000\nSigCgt:\t2000000101005ccd\n"
	var p procInfo
	if err := parseStatus([]byte(status), &p); err != nil {
		t.Fatal(err)
	}
	if p.UID != 65534 || p.GID != 65533 || p.NSPID != 1 || !p.CatchQuit || p.Zombie {
		t.Errorf("%+v", p)
	}
	p = procInfo{}
	_ = parseStatus([]byte("State:\tZ (zombie)\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nSigCgt:\t0000000000000000\n"), &p)
	if !p.Zombie || p.CatchQuit {
		t.Errorf("zombie: %+v", p)
	}
	if err := parseStatus([]byte("Name:\tx\n"), &p); err == nil {
		t.Error("no Uid accepted")
	}
	maps := `55d0c4a00000-55d0c4a01000 r--p 00000000 08:01 1311 /usr/lib/jvm/java-17-openjdk-amd64/bin/java
7f3c2a000000-7f3c2b1e0000 r-xp 00000000 08:01 1312 /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so
7f3c48a00000-7f3c48a08000 rw-s 00000000 08:01 4411 /tmp/hsperfdata_app/1
7ffd1c9f0000-7ffd1ca11000 rw-p 00000000 00:00 0 [stack]
`
	p = procInfo{}
	parseMaps([]byte(maps), &p)
	if !strings.HasSuffix(p.LibJVM, "/server/libjvm.so") || p.PerfData != "/tmp/hsperfdata_app/1" || p.OpenJ9 {
		t.Errorf("%+v", p)
	}
	p = procInfo{}
	parseMaps([]byte("7f-8f r-xp 0 08:01 1 /opt/ibm/java/jre/lib/amd64/compressedrefs/libj9vm29.so\n"), &p)
	if !p.OpenJ9 || p.LibJVM != "" {
		t.Errorf("OpenJ9: %+v", p)
	}
}

func TestParsePerfData(t *testing.T) {
	for _, c := range []struct {
		file    string
		capable bool
		version string
	}{
		{"testdata/hsperfdata-jdk17-attach-disabled", false, "17.0.15"},
		{"testdata/hsperfdata-jdk25", true, "25.0.3"},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := parsePerfData(b)
		if err != nil {
			t.Fatal(err)
		}
		capable, known := attachCapable(pd)
		if !known || capable != c.capable || pd["java.property.java.version"] != c.version ||
			!strings.Contains(pd["sun.rt.javaCommand"], "Sleeper.java") {
			t.Errorf("%s: capable %v/%v version %q command %q", c.file, capable, known, pd["java.property.java.version"], pd["sun.rt.javaCommand"])
		}
		if pd["sun.rt.createVmBeginTime"] == "" {
			t.Errorf("%s: no long entries", c.file)
		}
		// Truncated: what was read before the damage, no panic.
		if _, err := parsePerfData(b[:1000]); err == nil {
			t.Errorf("%s: truncated file accepted without error", c.file)
		}
	}
	if _, err := parsePerfData([]byte("not perf data at all, but long enough")); !errors.Is(err, errNotPerfData) {
		t.Errorf("garbage: %v", err)
	}
}

func FuzzParsePerfData(f *testing.F) {
	if b, err := os.ReadFile("testdata/hsperfdata-jdk25"); err == nil {
		f.Add(b[:4096])
	}
	f.Add([]byte{0xca, 0xfe, 0xc0, 0xc0, 1, 2, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = parsePerfData(b) })
}

const logList = `Available log levels: off, trace, debug, info, warning, error
Described tag sets:
 logging: Logging for the log framework itself
Log output configuration:
 #0: stdout all=warning uptime,level,tags foldmultilines=false
 #1: stderr all=off uptime,level,tags foldmultilines=false
 #2: file=/tmp/gc.log all=off,gc*=info time,uptime,level,tags filecount=5,filesize=20480K,async=false (reconfigured)
 #3: file="/var/log/my app/gc.log" all=off,gc+heap=debug uptime filecount=5,filesize=20480K
 #4: file=/tmp/sp.log all=off,safepoint=info uptime filecount=5
`

func TestParseLogList(t *testing.T) {
	outs := parseLogList(logList)
	if len(outs) != 5 {
		t.Fatalf("%d outputs: %+v", len(outs), outs)
	}
	want := []struct {
		file string
		gc   bool
	}{{"", false}, {"", false}, {"/tmp/gc.log", true}, {"/var/log/my app/gc.log", true}, {"/tmp/sp.log", false}}
	for i, w := range want {
		if outs[i].Index != i || outs[i].File() != w.file || outs[i].LogsGC() != w.gc {
			t.Errorf("#%d: %+v file %q gc %v", i, outs[i], outs[i].File(), outs[i].LogsGC())
		}
	}
	if o := outs[2]; o.Selection != "all=off,gc*=info" || o.Decorators != "time,uptime,level,tags" || o.Options != "filecount=5,filesize=20480K,async=false" {
		t.Errorf("%+v", o)
	}
	if !(LogOutput{Selection: "all=info"}).LogsGC() {
		t.Error("all=info logs gc")
	}
}

func FuzzParseLogList(f *testing.F) {
	f.Add(logList)
	f.Add(" #9: file=\"x")
	f.Fuzz(func(t *testing.T, s string) {
		for _, o := range parseLogList(s) {
			_ = o.File()
			_ = o.LogsGC()
		}
	})
}

func TestErrorMessages(t *testing.T) {
	e := errPermission(42, "app", os.ErrPermission)
	if !errors.Is(e, ErrPermission) || !errors.Is(e, os.ErrPermission) {
		t.Error("errors.Is")
	}
	en, zh := e.Message(finding.EN), e.Message(finding.ZH)
	if (os.Geteuid() != 0 && !strings.Contains(en, "sudo -u app")) || !strings.Contains(zh, "权限不足") || en == zh {
		t.Errorf("%s\n%s", en, zh)
	}
	for k, txt := range kindText {
		if txt.EN == "" || txt.ZH == "" {
			t.Errorf("%v: missing text", k)
		}
	}
}
