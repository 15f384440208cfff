package threaddump

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func addSeeds(f *testing.F, files ...string) {
	for _, n := range files {
		b, err := os.ReadFile("testdata/" + n)
		if err != nil {
			continue
		}
		if len(b) > 16<<10 {
			b = b[:16<<10]
		}
		f.Add(b)
	}
}

// exercise runs everything downstream of a parse; none of it may panic.
func exercise(t *testing.T, ds []*Dump) {
	var rs []*Report
	for _, d := range ds {
		r := Analyze(d)
		Findings(r, "fuzz")
		rs = append(rs, r)
	}
	names := make([]string, len(rs))
	FindingsOver(rs, names)
	if len(ds) > 1 {
		s := AnalyzeSeries(ds)
		SeriesFindings(s, "fuzz")
		CPUDelta(ds[0], ds[1])
	}
	for _, d := range ds {
		Join(d, map[int64]float64{1: 1})
	}
	if err := WriteText(io.Discard, setOf(rs), finding.ZH); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseText(f *testing.F) {
	addSeeds(f, "jdk17_deadlock_jcmd.txt", "jdk25_virtual_jcmd.txt", "jdk17_sigquit_prefixed.log", "jdk25_virtual_threaddump_plain.txt", "jdk17_logbacklike_jcmd.txt",
		"jdk17_zoo_fsync_holder_entering_jcmd.txt", "jdk17_lib_classloading_jcmd.txt", "jdk25_lib_log4j2-asyncroot_jcmd.txt")
	f.Add([]byte("\"a\n\" #1 prio=5 tid=0x1 nid=0x1 runnable\n\tat x.Y.z(Y.java:1)\n\t- locked <0x1> (a x)\n"))
	f.Add([]byte("Found one Java-level deadlock:\n\"a\":\n  waiting to lock monitor 0x1 (object 0x2, a X),\n"))
	f.Add([]byte("PFX Full thread dump x:\nPFX \"t\" #1 prio=5 nid=12 runnable\nPFX    java.lang.Thread.State: BLOCKED (on object monitor)\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		ds, err := ParseText(bytes.NewReader(in))
		if err != nil && len(ds) > 0 {
			return // a callback error cannot happen here; parse errors return no dumps
		}
		for _, d := range ds {
			if len(d.Threads) == 0 {
				t.Fatalf("empty dump emitted")
			}
			for _, th := range d.Threads {
				if th.Line <= 0 {
					t.Fatalf("thread %q without line", th.Name)
				}
			}
		}
		exercise(t, ds)
	})
}

func FuzzParseJSON(f *testing.F) {
	addSeeds(f, "jdk25_contention_threaddump.json", "jdk25_virtual_threaddump.json")
	f.Add([]byte(`{"threadDump":{"processId":"1","threadContainers":[{"container":"<root>","threads":[{"tid":"1","name":"a","state":"BLOCKED","blockedOn":"java.lang.Object@1","monitorsOwned":[{"depth":0,"locks":["java.lang.Object@2"]}],"parkBlocker":{"object":"x.Sync@3","owner":"1"},"carrier":"1"}]}]}}`))
	// Cut short: the seeds above are cut at 16 KiB already; these mid-thread.
	if b, err := os.ReadFile("testdata/jdk25_virtual_threaddump.json"); err == nil {
		f.Add(b[:3000])
		f.Add(b[:len(b)-40])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ds, err := Parse("f.json", bytes.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json: ") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		exercise(t, ds)
		// The same input cut in half reads at most the threads of the
		// whole, the first ones.
		cut, err := Parse("f.json", bytes.NewReader(in[:len(in)/2]))
		if err != nil || len(cut) == 0 {
			return
		}
		if len(cut[0].Threads) > len(ds[0].Threads) {
			t.Fatalf("cut: %d threads, whole %d", len(cut[0].Threads), len(ds[0].Threads))
		}
		for i, th := range cut[0].Threads {
			if th.Name != ds[0].Threads[i].Name {
				t.Fatalf("cut: thread %d %q, whole %q", i, th.Name, ds[0].Threads[i].Name)
			}
		}
		exercise(t, cut)
	})
}

func FuzzPoolName(f *testing.F) {
	for _, s := range []string{"http-nio-8080-exec-12", "RMI TCP Connection(23)-127.0.1.1", "a(1)(2)", "9", "x.1", "]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := PoolName(s)
		if p == s {
			return
		}
		if PoolName(p) != p && !strings.Contains(p, "(N)") {
			// Normalising twice changes nothing but a new trailing counter.
			if strings.HasSuffix(strings.TrimRight(p, "]) "), "N") {
				return
			}
		}
	})
}

func FuzzJavacore(f *testing.F) {
	addSeeds(f, "openj9_docs_deadlock_javacore.txt", "openj9_docs_hang_javacore.txt", "samurai_ibm142_javacore.txt")
	f.Add([]byte("0SECTION x\n3XMTHREADINFO \"a\" state:B\n3XMTHREADBLOCK Blocked on: A@0x1 Owned by: \"a\"\n2LKDEADLOCKTHR Thread \"a\"\n4LKDEADLOCKOBJ x\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !isJavacore(in) {
			in = append([]byte("0SECTION       THREADS\n"), in...)
		}
		ds, _ := Parse("fuzz", bytes.NewReader(in))
		for _, d := range ds {
			if len(d.Threads) == 0 {
				t.Fatal("a dump without threads")
			}
		}
		exercise(t, ds)
	})
}

func FuzzVisualVMHPUX(f *testing.F) {
	addSeeds(f, "jdk17_visualvm_jmx.tdump", "samurai_hpux_hp.dmp")
	f.Add([]byte("\"a\" - Thread t@1\n   java.lang.Thread.State: BLOCKED on java.lang.Object@1 owned by: a\n\tat x.Y.z(Y.java:1)\n"))
	f.Add([]byte("\"a\" prio=10 tid=00000000 nid=1 lwp_id=2 waiting on monitor [7fffe000..7fffec30]\n\tat java.lang.Thread.sleep(Native Method)\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		ds, _ := ParseText(bytes.NewReader(in))
		exercise(t, ds)
	})
}
