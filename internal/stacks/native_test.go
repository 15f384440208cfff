package stacks

import (
	"os"
	"strings"
	"testing"
)

// socketWaitRecordings are real recordings of testdata/SocketWait.java.txt:
// eight client threads blocked reading from a server that never answers
// (in native code), the acceptor blocked in accept, a thread burning CPU.
var socketWaitRecordings = []string{"testdata/socket-wait-jdk17.jfr", "testdata/socket-wait-jdk25.jfr"}

// under is the value of the stacks holding frame with a leaf containing leaf.
func under(p *Profile, frame, leaf string) int64 {
	var v int64
	for _, s := range p.Samples {
		if strings.Contains(s.Stack[len(s.Stack)-1], leaf) && strings.Contains(strings.Join(s.Stack, ";"), frame) {
			v += s.Value
		}
	}
	return v
}

// JFR samples threads in native code as jdk.NativeMethodSample: the wall
// view shows the socket-reading threads under the program's own method;
// the CPU view does not (they use no CPU).
func TestWallViewHasThreadsInNativeCode(t *testing.T) {
	for _, f := range socketWaitRecordings {
		buf, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := JFRProfiles(buf, Wall, CPU)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		w, c := ps[Wall], ps[CPU]
		reads := under(w, "SocketWait.readReply", "read")
		accepts := under(w, "java.net.ServerSocket.accept", "accept")
		burn := under(w, "SocketWait.burn", "SocketWait.burn")
		t.Logf("%s: wall %.1f s (%d native samples): socket reads %.1f s (%.0f%%), accept %.1f s, burn %.1f s",
			f, float64(w.Total)/1e9, w.NativeEvents, float64(reads)/1e9, 100*float64(reads)/float64(w.Total), float64(accepts)/1e9, float64(burn)/1e9)
		if w.NativeEvents == 0 || !w.NativeOn || w.LacksNative() || w.Unit != "nanoseconds" {
			t.Errorf("%s: %d native samples, lacks native %v, unit %s", f, w.NativeEvents, w.LacksNative(), w.Unit)
		}
		// Eight readers against one CPU burner and one acceptor: the reads
		// are most of the wall time.
		if share := float64(reads) / float64(w.Total); share < 0.6 || share > 0.95 {
			t.Errorf("%s: socket reads hold %.0f%% of the wall view, want 60-95%%", f, 100*share)
		}
		// JFR samples one thread in native code per period, in turn: each
		// sample stands for all of them, so eight readers weigh about eight
		// times the one acceptor, not the same.
		if accepts == 0 || reads < 6*accepts || reads > 10*accepts {
			t.Errorf("%s: reads %d ns against accept %d ns, want about 8 times", f, reads, accepts)
		}
		// And against the one thread burning CPU all along (each of its
		// samples one Java period): eight readers, so about eight times its
		// time (a native sample weighed as one period would make it one).
		if burn == 0 || reads < 5*burn || reads > 14*burn {
			t.Errorf("%s: reads %d ns against burn %d ns, want about 8 times", f, reads, burn)
		}
		if under(c, "SocketWait.readReply", "") != 0 || under(c, "", "read0") != 0 {
			t.Errorf("%s: the CPU view holds the socket reads", f)
		}
		if share(c, "SocketWait.burn") < 0.8 {
			t.Errorf("%s: the CPU view: burn %.0f%%", f, 100*share(c, "SocketWait.burn"))
		}
		if c.NativeEvents != 0 {
			t.Errorf("%s: the CPU view counts %d native samples", f, c.NativeEvents)
		}
	}
}

// A recording without native-method samples, nor the setting that takes
// them: the wall view says it lacks those threads.
func TestWallViewWithoutNativeSamples(t *testing.T) {
	buf, err := os.ReadFile("../cli/testdata/profiles/mixed.jfr") // no jdk.NativeMethodSample in it
	if err != nil {
		t.Fatal(err)
	}
	w, err := JFRProfile(buf, Wall)
	if err != nil {
		t.Fatal(err)
	}
	if w.Events == 0 || w.NativeEvents != 0 || w.NativeOn || !w.LacksNative() {
		t.Errorf("%d events, %d native, on %v, lacks native %v", w.Events, w.NativeEvents, w.NativeOn, w.LacksNative())
	}
	if (&Profile{Kind: Wall, Unit: "samples"}).LacksNative() {
		t.Error("wall-clock samples (async-profiler's) said to lack native code")
	}
}

func TestParsePeriod(t *testing.T) {
	for in, want := range map[string]int64{"20 ms": 20e6, "10 ms": 10e6, "1 s": 1e9, "500 us": 500e3, "7 ns": 7, "2 m": 120e9} {
		if got, ok := parsePeriod(in); !ok || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"everyChunk", "0 ms", "-5 ms", "20", "20 parsecs", "99999999999999999 d", ""} {
		if got, ok := parsePeriod(in); ok {
			t.Errorf("%q read as %d", in, got)
		}
	}
}
