package stacks

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// threadMixRecordings are real recordings of testdata/ThreadMix.java.txt
// (testdata/thread-mix.md): one thread per way of spending time.
var threadMixRecordings = []string{"testdata/thread-mix-jdk17.jfr", "testdata/thread-mix-jdk25.jfr"}

// threadTime is one thread's events summed: time by kind (samples weighted
// by their period), and per kind the frames seen with how often.
type threadTime struct {
	ns     map[EventKind]int64
	n      map[EventKind]int
	frames map[EventKind]map[Frame]int // every frame of every stack
	leaf   map[EventKind]map[Frame]int
	class  map[EventKind]map[string]int
	other  map[string]int
	peer   map[string]int
	path   map[string]int
	// first, last: the earliest start and the latest end of its events.
	first, last int64
}

func (t *threadTime) dominant() EventKind {
	var best EventKind
	for k, v := range t.ns {
		if best == "" || v > t.ns[best] {
			best = k
		}
	}
	return best
}

func readThreadTimes(t *testing.T, path string) (map[string]*threadTime, JFRThreadRead) {
	t.Helper()
	buf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var events []ThreadEvent
	read, err := JFRThreadEvents(buf, func(e ThreadEvent) { events = append(events, e) })
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]*threadTime{}
	for _, e := range events {
		tt := out[e.Thread]
		if tt == nil {
			tt = &threadTime{ns: map[EventKind]int64{}, n: map[EventKind]int{}, frames: map[EventKind]map[Frame]int{},
				leaf: map[EventKind]map[Frame]int{}, class: map[EventKind]map[string]int{}, other: map[string]int{}, peer: map[string]int{}, path: map[string]int{}}
			out[e.Thread] = tt
		}
		if e.Kind.Sampled() {
			if e.Duration != 0 {
				t.Errorf("%s: a %s sample with a duration %d", path, e.Kind, e.Duration)
			}
			tt.ns[e.Kind] += read.PeriodOrDefault(e.Kind)
		} else {
			tt.ns[e.Kind] += e.Duration
		}
		tt.n[e.Kind]++
		if tt.first == 0 || e.Start < tt.first {
			tt.first = e.Start
		}
		tt.last = max(tt.last, e.Start+e.Duration)
		if tt.frames[e.Kind] == nil {
			tt.frames[e.Kind], tt.leaf[e.Kind], tt.class[e.Kind] = map[Frame]int{}, map[Frame]int{}, map[string]int{}
		}
		for _, f := range e.Stack {
			tt.frames[e.Kind][f]++
		}
		if len(e.Stack) > 0 {
			tt.leaf[e.Kind][e.Stack[0]]++
		}
		tt.class[e.Kind][e.Class]++
		tt.other[e.Other]++
		switch e.Kind {
		case EvSocketRead, EvSocketWrite:
			tt.peer[e.Peer]++
		case EvFileRead, EvFileWrite, EvFileForce:
			tt.path[e.Path]++
		}
	}
	return out, read
}

// The threads of ThreadMix each spend their time one way: the dominant kind
// of each, and the application frame and line it is spent at, are read back.
func TestJFRThreadEventsThreadMix(t *testing.T) {
	type want struct {
		kind  EventKind
		frame Frame  // in the stack of most of the thread's events of that kind
		class string // monitor/parked class, "" to skip
	}
	wants := map[string]want{
		"spinner": {EvCPU, Frame{"ThreadMix.spin", 17}, ""},
		"sleeper": {EvSleep, Frame{"ThreadMix.nap", 20}, ""},
		"parker":  {EvPark, Frame{"ThreadMix.rest", 23}, "java.lang.Object"},
		"holder":  {EvSleep, Frame{"ThreadMix.hold", 26}, ""},
		"blocked": {EvMonitor, Frame{"ThreadMix.enter", 29}, "java.lang.Object"},
		"waiter":  {EvWait, Frame{"ThreadMix.await", 32}, "java.lang.Object"},
		"reader":  {EvSocketRead, Frame{"ThreadMix.fetch", 35}, ""},
		"writer":  {EvSocketWrite, Frame{"ThreadMix.send", 38}, ""},
	}
	for _, path := range threadMixRecordings {
		threads, read := readThreadTimes(t, path)
		for name, w := range wants {
			tt := threads[name]
			if tt == nil {
				t.Errorf("%s: no events of thread %q", path, name)
				continue
			}
			if got := tt.dominant(); got != w.kind {
				t.Errorf("%s: thread %s spends most time in %s (%v), want %s", path, name, got, tt.ns, w.kind)
			}
			if n := tt.frames[w.kind][w.frame]; 2*n <= tt.n[w.kind] {
				t.Errorf("%s: thread %s: %s in %d of %d %s events; frames %v", path, name, w.frame, n, tt.n[w.kind], w.kind, tt.leaf[w.kind])
			}
			if w.class != "" && 2*tt.class[w.kind][w.class] <= tt.n[w.kind] {
				t.Errorf("%s: thread %s: class %v, want mostly %s", path, name, tt.class[w.kind], w.class)
			}
		}
		// The spinner's samples stand at the loop's line, as the leaf.
		sp := threads["spinner"]
		if leaf := sp.leaf[EvCPU][Frame{"ThreadMix.spin", 17}]; 2*leaf <= sp.n[EvCPU] {
			t.Errorf("%s: spinner: spin:17 is the leaf of %d of %d samples: %v", path, leaf, sp.n[EvCPU], sp.leaf[EvCPU])
		}
		// The monitor was held by the holder; the reader's and writer's
		// peer is the loopback server; the syncer forces its temp file.
		if b := threads["blocked"]; 2*b.other["holder"] <= b.n[EvMonitor] {
			t.Errorf("%s: blocked: previous owners %v, want holder", path, b.other)
		}
		for _, name := range []string{"reader", "writer"} {
			for peer := range threads[name].peer {
				host, port, ok := strings.Cut(peer, ":")
				if !ok || (host != "localhost" && host != "127.0.0.1") || port == "0" || port == "" {
					t.Errorf("%s: %s: peer %q", path, name, peer)
				}
			}
		}
		sy := threads["syncer"]
		if sy == nil || sy.n[EvFileForce] == 0 || sy.frames[EvFileForce][Frame{"ThreadMix.sync", 41}] != sy.n[EvFileForce] {
			t.Errorf("%s: syncer: no fsync events at ThreadMix.sync:41: %+v", path, sy)
		} else {
			for p := range sy.path {
				if !strings.Contains(p, "threadmix") || !strings.HasSuffix(p, ".dat") {
					t.Errorf("%s: syncer path %q", path, p)
				}
			}
		}
		// settings=profile: samples every 10 ms (Java) and 20 ms (native),
		// every kind read here on.
		if read.Period[EvCPU] != 10_000_000 || read.Period[EvNative] != 20_000_000 {
			t.Errorf("%s: periods %v", path, read.Period)
		}
		for k := range jfrThreadEventKindsByKind() {
			if !read.Enabled[k] && k != EvCPUTime {
				t.Errorf("%s: %s not seen enabled: %v", path, k, read.Enabled)
			}
		}
		// JDK 25's CPU-time sampler exists, off in settings=profile; JDK 17
		// has no such event.
		if on, known := read.Enabled[EvCPUTime]; on || known != strings.Contains(path, "jdk25") {
			t.Errorf("%s: cpu-time enabled %v, said %v", path, on, known)
		}
		// profile.jfc: 10 ms for locks; for socket and file I/O 10 ms in
		// JDK 17, 1 ms in JDK 25.
		io := int64(10_000_000)
		if strings.Contains(path, "jdk25") {
			io = 1_000_000
		}
		if read.Threshold[EvMonitor] != 10_000_000 || read.Threshold[EvSocketRead] != io || read.Threshold[EvFileForce] != 10_000_000 {
			t.Errorf("%s: thresholds %v", path, read.Threshold)
		}
		if read.Chunks != 1 || read.Truncated {
			t.Errorf("%s: %d chunks, truncated %v", path, read.Chunks, read.Truncated)
		}
		// The program ran 6 s after JFR started (the recording also holds
		// the JVM's start and exit): every event within the span.
		if span := read.End - read.Start; span < 6e9 || span > 60e9 {
			t.Errorf("%s: span %d ns", path, span)
		}
		for name, tt := range threads {
			if tt.first < read.Start || tt.last > read.End {
				t.Errorf("%s: %s: events from %d to %d outside the recording's %d..%d", path, name, tt.first, tt.last, read.Start, read.End)
			}
		}
	}
}

func jfrThreadEventKindsByKind() map[EventKind]string {
	out := map[EventKind]string{}
	for t, k := range jfrThreadEventKinds {
		out[k] = t
	}
	return out
}

// The counts read agree with `jfr summary` (JDK 25) of each recording.
func TestJFRThreadEventsCountsMatchJFRSummary(t *testing.T) {
	for path, want := range map[string]map[EventKind]int{
		"testdata/thread-mix-jdk17.jfr": {EvCPU: 238, EvNative: 269, EvSleep: 296, EvWait: 142, EvPark: 141, EvSocketRead: 58,
			EvFileForce: 53, EvMonitor: 13, EvFileWrite: 7, EvSocketWrite: 7},
		"testdata/thread-mix-jdk25.jfr": {EvCPU: 387, EvNative: 279, EvSleep: 305, EvWait: 143, EvPark: 142, EvSocketRead: 57,
			EvFileForce: 44, EvMonitor: 11, EvFileWrite: 51, EvSocketWrite: 18},
		"../verdict/testdata/runs/sync-logging-jfr/raw/recording.jfr": {EvPark: 5209, EvNative: 346, EvCPU: 197, EvSocketWrite: 192,
			EvMonitor: 8, EvFileWrite: 3, EvSocketRead: 3, EvWait: 1},
		"testdata/socket-wait-jdk17.jfr": {EvCPU: 543, EvNative: 289},
		"testdata/virtual-mix-jdk25.jfr": {EvCPU: 222, EvNative: 2, EvPark: 215, EvSleep: 513, EvCPUTime: 158},
	} {
		buf, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		read, err := JFRThreadEvents(buf, func(ThreadEvent) {})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for k := range jfrThreadEventKindsByKind() {
			if read.Events[k] != want[k] {
				t.Errorf("%s: %d %s events, jfr summary says %d", path, read.Events[k], k, want[k])
			}
		}
	}
}

// A Tomcat service whose request threads queue on logback's appender lock
// (the verdict's sync-logging fixture): every request thread's time goes
// mostly to parking on a ReentrantLock, inside logback, at a known line.
func TestJFRThreadEventsSyncLogging(t *testing.T) {
	threads, _ := readThreadTimes(t, "../verdict/testdata/runs/sync-logging-jfr/raw/recording.jfr")
	workers := 0
	for name, tt := range threads {
		if !strings.Contains(name, "-exec-") {
			continue
		}
		workers++
		if got := tt.dominant(); got != EvPark {
			t.Errorf("%s: dominant %s (%v), want park", name, got, tt.ns)
		}
		if 2*tt.class[EvPark]["java.util.concurrent.locks.ReentrantLock$NonfairSync"] < tt.n[EvPark] {
			t.Errorf("%s: parked on %v", name, tt.class[EvPark])
		}
		logback := 0
		for f, n := range tt.frames[EvPark] {
			if strings.HasPrefix(f.Method, "ch.qos.logback.core.OutputStreamAppender.") && f.Line > 0 {
				logback += n
			}
		}
		if logback == 0 {
			t.Errorf("%s: no park inside logback's OutputStreamAppender", name)
		}
	}
	if workers < 4 {
		t.Errorf("%d request threads, want the pool's", workers)
	}
}

// Not a recording, a recording cut short, a corrupt one: an error or the
// whole chunks, never a panic.
func TestJFRThreadEventsBadInput(t *testing.T) {
	if _, err := JFRThreadEvents([]byte("hello"), func(ThreadEvent) {}); !errors.Is(err, ErrNotJFR) {
		t.Errorf("not JFR: %v", err)
	}
	buf, err := os.ReadFile(threadMixRecordings[0])
	if err != nil {
		t.Fatal(err)
	}
	// One chunk cut short: nothing whole is left.
	if _, err := JFRThreadEvents(buf[:len(buf)/2], func(ThreadEvent) {}); err == nil || !strings.Contains(err.Error(), "chunk size") {
		t.Errorf("cut short: %v", err)
	}
	// Two chunks, the second cut: the first is read, Truncated says so.
	two := append(append([]byte(nil), buf...), buf[:len(buf)/3]...)
	n := 0
	read, err := JFRThreadEvents(two, func(ThreadEvent) { n++ })
	if err != nil || !read.Truncated || read.Chunks != 1 || n == 0 {
		t.Errorf("second chunk cut: %d events, %+v, %v", n, read, err)
	}
	// Every byte flipped in turn in a window of the event area: an error or
	// events, never a panic.
	for i := 1000; i < 1400; i++ {
		bad := append([]byte(nil), buf...)
		bad[i] ^= 0xff
		_, _ = JFRThreadEvents(bad, func(ThreadEvent) {})
	}
}

// Corrupt recordings give an error, never a panic.
func FuzzJFRThreadEvents(f *testing.F) {
	f.Add([]byte("FLR\x00\x00\x02\x00\x01"))
	f.Add(handMadeRecording())
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = JFRThreadEvents(b, func(e ThreadEvent) {
			if e.Kind == "" || len(e.Stack) > MaxFrames {
				t.Fatalf("event %+v", e)
			}
		})
	})
}

func BenchmarkJFRThreadEvents(b *testing.B) {
	buf, err := os.ReadFile("../verdict/testdata/runs/sync-logging-jfr/raw/recording.jfr")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		if _, err := JFRThreadEvents(buf, func(ThreadEvent) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// Virtual threads: their events carry their (empty or given) name, no OS
// thread and Virtual; JDK 25's CPU-time samples carry their period and
// find the spinning platform and virtual threads at the loop's line.
func TestJFRThreadEventsVirtual(t *testing.T) {
	buf, err := os.ReadFile("testdata/virtual-mix-jdk25.jfr")
	if err != nil {
		t.Fatal(err)
	}
	sleepers := map[uint64]string{}
	var platformSpin, platformAll, virtualSpin int
	periods := map[int64]int{}
	read, err := JFRThreadEvents(buf, func(e ThreadEvent) {
		switch {
		case e.Kind == EvSleep && e.Thread != "main":
			if !e.Virtual || e.OSThreadID != 0 || e.JavaThreadID == 0 {
				t.Errorf("sleep of %q: virtual %v, os thread %d, java thread %d", e.Thread, e.Virtual, e.OSThreadID, e.JavaThreadID)
			}
			sleepers[e.JavaThreadID] = e.Thread
		case e.Kind == EvCPUTime:
			periods[e.Period]++
			if e.Duration != 0 {
				t.Errorf("cpu-time sample: duration %d", e.Duration)
			}
			spin := len(e.Stack) > 0 && e.Stack[0] == (Frame{"VirtualMix.spin", 12})
			if e.Thread == "platform-spinner" {
				platformAll++
				if spin {
					platformSpin++
				}
				if e.Virtual {
					t.Errorf("platform thread taken for virtual")
				}
			}
			if e.Virtual && spin {
				virtualSpin++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, n := range sleepers {
		if n == "named-virtual" {
			named++
		} else if n != "" {
			t.Errorf("an unnamed virtual thread's name: %q", n)
		}
	}
	if len(sleepers) != 5 || named != 1 {
		t.Errorf("sleeping virtual threads %v, want 4 unnamed and named-virtual", sleepers)
	}
	if platformAll == 0 || 2*platformSpin <= platformAll || virtualSpin == 0 {
		t.Errorf("cpu-time samples at VirtualMix.spin:12: platform %d of %d, virtual %d", platformSpin, platformAll, virtualSpin)
	}
	// Each sample's own samplingPeriod, as jfr print shows them.
	if len(periods) != 2 || periods[10_000_000] != 155 || periods[20_000_000] != 3 {
		t.Errorf("cpu-time periods %v, want 155 of 10 ms and 3 of 20 ms", periods)
	}
	if read.LostCPUTimeSamples != 31 || !read.Enabled[EvCPUTime] {
		t.Errorf("lost cpu-time samples %d (jfr print: 31), enabled %v", read.LostCPUTimeSamples, read.Enabled[EvCPUTime])
	}
}

// The socket-wait recordings (testdata/socket-wait.md): the clients blocked
// in a socket read are seen only as native samples (the read never ends, so
// no jdk.SocketRead is written), inside SocketWait.readReply at line 11;
// the burner's CPU samples stand at SocketWait.burn:15.
func TestJFRThreadEventsSocketWait(t *testing.T) {
	for _, path := range socketWaitRecordings {
		threads, _ := readThreadTimes(t, path)
		clients := 0
		for name, tt := range threads {
			if !strings.HasPrefix(name, "client-") {
				continue
			}
			clients++
			if tt.dominant() != EvNative || tt.n[EvSocketRead] != 0 {
				t.Errorf("%s: %s: %v", path, name, tt.n)
			}
			if n := tt.frames[EvNative][Frame{"SocketWait.readReply", 11}]; n != tt.n[EvNative] {
				t.Errorf("%s: %s: readReply:11 in %d of %d native samples", path, name, n, tt.n[EvNative])
			}
		}
		if clients != 8 {
			t.Errorf("%s: %d clients, want 8", path, clients)
		}
		b := threads["burner"]
		if b == nil || b.dominant() != EvCPU || 2*b.leaf[EvCPU][Frame{"SocketWait.burn", 15}] <= b.n[EvCPU] {
			t.Errorf("%s: burner: %+v", path, b)
		}
	}
}

// A file of several chunks (what JFR writes when it rotates, and what
// concatenated recordings are): each chunk's events resolve against its own
// pools, the counts add up and the span covers both.
func TestJFRThreadEventsChunks(t *testing.T) {
	var all []byte
	want := map[EventKind]int{}
	var reads []JFRThreadRead
	for _, p := range threadMixRecordings {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := JFRThreadEvents(b, func(ThreadEvent) {})
		if err != nil {
			t.Fatal(err)
		}
		for k, n := range r.Events {
			want[k] += n
		}
		reads = append(reads, r)
		all = append(all, b...)
	}
	spinner := map[int]int{} // spin:17 samples per chunk, told apart by time
	read, err := JFRThreadEvents(all, func(e ThreadEvent) {
		if e.Thread == "spinner" && e.Kind == EvCPU && len(e.Stack) > 0 && e.Stack[0] == (Frame{"ThreadMix.spin", 17}) {
			if e.Start >= reads[1].Start {
				spinner[1]++
			} else {
				spinner[0]++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if read.Chunks != 2 || read.Start != min(reads[0].Start, reads[1].Start) || read.End != max(reads[0].End, reads[1].End) {
		t.Errorf("%d chunks, span %d..%d", read.Chunks, read.Start, read.End)
	}
	for k, n := range want {
		if read.Events[k] != n {
			t.Errorf("%s: %d events, the chunks alone %d", k, read.Events[k], n)
		}
	}
	if spinner[0] == 0 || spinner[1] == 0 {
		t.Errorf("spinner's samples at spin:17 by chunk: %v", spinner)
	}
}

// Every recording of the repository reads whole, each event within its
// recording's span, durations and samples well formed.
func TestJFRThreadEventsAllRecordings(t *testing.T) {
	for _, p := range realJFRs(t) {
		buf, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var events []ThreadEvent
		read, err := JFRThreadEvents(buf, func(e ThreadEvent) { events = append(events, e) })
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		bad := 0
		for _, e := range events {
			if e.Duration < 0 || (e.Kind.Sampled() && e.Duration != 0) || e.Start < read.Start || e.Start > read.End || len(e.Stack) > MaxFrames {
				bad++
			}
		}
		if bad > 0 || read.Chunks == 0 {
			t.Errorf("%s: %d of %d events malformed, %d chunks", p, bad, len(events), read.Chunks)
		}
		t.Logf("%s: %d events %v", p, len(events), read.Events)
	}
}
