package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func TestDetect(t *testing.T) {
	cases := []struct {
		name, head string
		want       Format
	}{
		{"dump.txt", dumpText, HotSpot},
		{"app.log", "2026-11-21 23:59:01,001 INFO  [stdout] (Thread-1) Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):\n", HotSpot},
		{"bare.txt", "\"main\" #1 prio=5 os_prio=0 tid=0x00007f190c019a40 nid=0x4154 runnable\n", HotSpot},
		{"ti.txt", "\"order-worker-0\" daemon prio=5 Id=13 BLOCKED on java.lang.Object@79efed2d owned by \"x\" Id=12\n", HotSpot},
		{"plain.txt", "1234\n2026-11-22T00:05:27.795498089Z\n25.0.3+9-LTS\n\n#1 \"main\" RUNNABLE 2026-11-22T00:05:27.800142146Z\n", HotSpot},
		{"td.json", "{\n  \"threadDump\": {\n    \"processId\": \"1234\",\n", HotSpotJSON},
		{"vvm.tdump", "2021-10-17 18:06:34\nFull thread dump Java HotSpot(TM) 64-Bit Server VM (25.40-b25 mixed mode):\n\n\"main\" - Thread t@1\n   java.lang.Thread.State: RUNNABLE\n", VisualVM},
		{"hp.txt", "\"main\" prio=10 tid=000000000046a600 nid=1 lwp_id=4128946 waiting on condition [7fffe000..7fffec30]\n", HPUX},
		{"hp.dmp", "Full thread dump:\n\"ListenThread\" prio=10 tid=0x0003fa38 nid=78 lwp_id=3573240 runnable [0x1f229000..0x1f229500]\n", HPUX},
		{"javacore.txt", "0SECTION       TITLE subcomponent dump routine\nNULL           ===============================\n1TICHARSET     UTF-8\n", Javacore},
		{"gc.log", "[0.002s][info][gc] Using G1\n", GCLog},
		{"gc8.log", "2.167: [GC (Allocation Failure) 2.167: [ParNew: 33280K->4160K(37440K), 0.0205240 secs]\n", GCLog},
		{"verbosegc.xml", "<?xml version=\"1.0\" ?>\n\n<verbosegc xmlns=\"http://www.ibm.com/j9/verbosegc\" version=\"R28_jvm.28\">\n", GCLog},
		{"jrockit.log", "[INFO ][memory ] 0.457-0.458: GC 1048576K->1040K (1048576K), 0.928 ms\n", GCLog},
		{"logback.xml", "<configuration>\n  <appender name=\"F\" class=\"ch.qos.logback.core.FileAppender\"><file>x</file></appender>\n  <root level=\"info\"><appender-ref ref=\"F\"/></root>\n</configuration>\n", LogConfig},
		{"rec.jfr", "FLR\x00\x00\x02\x00\x01", JFR},
		{"heap.hprof", "JAVA PROFILE 1.0.2\x00\x00\x00\x00\x08", HeapDump},
		{"hs_err_pid1.log", "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n", HsErr},
		{"histo.txt", "\n num     #instances         #bytes  class name (module)\n", Histogram},
		{"empty.txt", "", Empty},
		{"blank.txt", "\n\n  \n", Empty},
		{"zeros", "\x00\x00\x00\x00", Binary},
		{"random.bin", "\x8f\x01\x02\xfe\xff\x00\x13\x37", Binary},
		{"notes.txt", "Meeting notes\nnothing to see\n", Unknown},
	}
	for _, c := range cases {
		if got := Detect([]byte(c.head), c.name); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A refusal says what the file is, in both languages.
func TestDescribe(t *testing.T) {
	if got := Describe(Unknown, []byte("\n Meeting notes\x1b[31m\n")).In(finding.EN); got != `text of no known format (first line: "Meeting notes\\x1b[31m")` {
		t.Errorf("%q", got)
	}
	for _, f := range []Format{JRockitGC, JFR, OpenJ9GC, Empty, Binary} {
		d := Describe(f, nil)
		if d.EN == "" || d.ZH == "" || d.EN == d.ZH {
			t.Errorf("%s: %+v", f, d)
		}
	}
	if !strings.Contains(JRockitGC.Label().EN, "not supported") || HeapDump.Kind() != KindNone || JFR.Kind() != KindProfile || Javacore.Kind() != KindThreadDump {
		t.Error("labels/kinds")
	}
	if f, ok := ParseFormat("JavaCore"); !ok || f != Javacore {
		t.Errorf("ParseFormat: %q %v", f, ok)
	}
	if _, ok := ParseFormat("hprof"); ok {
		t.Error("hprof is not a format anything reads")
	}
	if f, ok := ParseFormat("collapsed"); !ok || f != Collapsed {
		t.Errorf("ParseFormat(collapsed): %q %v", f, ok)
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(dumpText), "x")
	f.Add([]byte("0SECTION x\n"), "javacore")
	f.Add([]byte("<configuration/>"), "logback.xml")
	f.Add([]byte("\"a\" prio=1 tid=00000000 lwp_id=1\n"), "")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		got := Detect(b, name)
		if got.Label().EN == "unknown" {
			t.Fatalf("format %q without a label", got)
		}
		_ = Describe(got, b)
	})
}

func TestDetectProfiles(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Format
	}{
		{"[main tid=1];java/lang/Thread.run_[j];com/acme/Svc.handle_[j] 42\n[main tid=1];java/lang/Thread.run_[j] 3\n", Collapsed},
		{"# comment\nmain;a;b 1\nmain 2\n", Collapsed},
		{"main 2\nother 3\n", Unknown},                    // no ';': not enough to tell
		{"main;a;b 1\nthis is prose 12 times\n", Unknown}, // a line that is not a stack
		{"FLR\x00\x00\x02\x00\x01", JFR},
	} {
		if got := Detect([]byte(c.in), "x"); got != c.want {
			t.Errorf("Detect(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if Collapsed.Kind() != KindProfile || JFR.Kind() != KindProfile {
		t.Error("profiles are not read by the profile reader")
	}
}

// A JFR recording's bytes come back as stored (no CRLF undone, no line
// cut), gzip undone, and the byte limit holds.
func TestOpenBinary(t *testing.T) {
	dir := t.TempDir()
	raw := append([]byte("FLR\x00\x00\x02\x00\x01\r\n"), bytes.Repeat([]byte{0, 1, '\r', '\n', 0xff}, 1000)...)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	for name, b := range map[string][]byte{"plain.jfr": raw, "zipped.jfr.gz": gz.Bytes()} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(context.Background(), p, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if f.Format != JFR {
			t.Errorf("%s: format %s", name, f.Format)
		}
		rc, err := f.OpenBinary(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("%s: %d bytes (err %v), want the %d stored", name, len(got), err, len(raw))
		}
		f, _ = Open(context.Background(), p, Limits{MaxBytes: 100})
		rc, _ = f.OpenBinary(context.Background())
		if _, err := io.ReadAll(rc); !errors.Is(err, ErrLimit) {
			t.Errorf("%s: past the limit: %v", name, err)
		}
		rc.Close()
	}
}
