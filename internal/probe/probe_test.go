package probe

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// sane asserts what a user would check of any measured figure: it has its
// rounds, a finite positive median, and an interval around the median.
func sane(t *testing.T, f *Figure, rounds int) {
	t.Helper()
	if f.Err != "" {
		t.Errorf("%s: %s", f.ID, f.Err)
		return
	}
	if len(f.Rounds) != rounds {
		t.Errorf("%s: %d rounds, want %d", f.ID, len(f.Rounds), rounds)
	}
	if !(f.Median > 0) || math.IsInf(f.Median, 0) {
		t.Errorf("%s: median %v %s", f.ID, f.Median, f.Unit)
	}
	if !(f.Lo <= f.Median && f.Median <= f.Hi) {
		t.Errorf("%s: interval [%v, %v] does not contain the median %v", f.ID, f.Lo, f.Hi, f.Median)
	}
	if rounds >= 6 && (!f.OK || f.Coverage < 0.95) {
		t.Errorf("%s: %d rounds should give a 95%% interval, got %.3f", f.ID, rounds, f.Coverage)
	}
	if f.OthersBusyPct > 100 {
		t.Errorf("%s: others busy %v%%", f.ID, f.OthersBusyPct)
	}
}

func figures(r *Result, part string) []*Figure {
	var out []*Figure
	for i := range r.Figures {
		if r.Figures[i].Part == part {
			out = append(out, &r.Figures[i])
		}
	}
	return out
}

func TestLoopbackNetwork(t *testing.T) {
	r, err := Measure(context.Background(), Options{Parts: []string{PartNet}, Quick: true, Sizes: []int{1, 1024, 70000}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Peer != PeerInProcess {
		t.Errorf("peer %q", r.Peer)
	}
	want := []string{"net.tcp_lat.1", "net.tcp_bw.1", "net.tcp_lat.1024", "net.tcp_bw.1024", "net.udp_lat.1", "net.udp_bw.1",
		"net.udp_lat.1024", "net.udp_bw.1024", "net.tcp_lat.70000", "net.udp_lat.70000", "net.tcp_conn"}
	for _, id := range want {
		f := r.Figure(id)
		if f == nil {
			t.Errorf("no figure %s", id)
			continue
		}
		sane(t, f, 6)
	}
	// A bigger write moves more bytes per system call: on any host, 1 KiB
	// writes stream faster than 1-byte writes (qperf's small-message effect).
	if a, b := r.Figure("net.tcp_bw.1"), r.Figure("net.tcp_bw.1024"); a != nil && b != nil && !(b.Median > a.Median) {
		t.Errorf("TCP bandwidth: 1 KiB writes %v MB/s, not above 1 B writes %v MB/s", b.Median, a.Median)
	}
	if f := r.Figure("net.udp_lat.70000"); f != nil && !strings.Contains(f.Note.EN, "65507") {
		t.Errorf("a UDP size over the maximum must say it was capped: %q", f.Note.EN)
	}
}

// listen starts a listener with token on a free loopback port and returns
// its address and a stop that waits for it to end.
func listen(t *testing.T, token string, d time.Duration) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := Listen(ctx, ListenOptions{Addr: "127.0.0.1:0", Token: token, For: d, Ready: func(a string) { addr <- a }}); err != nil {
			t.Error(err)
			addr <- ""
		}
	}()
	a := <-addr
	return a, func() { cancel(); wg.Wait() }
}

func TestPeerTokenRefusesStrangers(t *testing.T) {
	addr, stop := listen(t, "s3cret", time.Minute)
	defer stop()
	o := Options{Parts: []string{PartNet}, Quick: true, Rounds: 2, Sizes: []int{64}, Peer: addr}
	for _, tok := range []string{"", "wrong", "s3cret-and-more"} {
		o.Token = tok
		r, err := Measure(context.Background(), o)
		if !errors.Is(err, errRefused) {
			t.Errorf("token %q: want the refusal, got %v (result %v)", tok, err, r != nil)
		}
		if err != nil && !strings.Contains(finding.Localize(err, finding.ZH), "对端拒绝") {
			t.Errorf("the refusal must be said in Chinese too: %q", finding.Localize(err, finding.ZH))
		}
	}
	o.Token = "s3cret"
	r, err := Measure(context.Background(), o)
	if err != nil {
		t.Fatalf("the right token: %v", err)
	}
	if r.Peer != addr {
		t.Errorf("peer %q, want %q", r.Peer, addr)
	}
	sane(t, r.Figure("net.tcp_lat.64"), 2)
	sane(t, r.Figure("net.udp_bw.64"), 2)
}

func TestListenerEndsItsDeadline(t *testing.T) {
	done := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		done <- Listen(context.Background(), ListenOptions{Addr: "127.0.0.1:0", For: 300 * time.Millisecond, Ready: func(a string) { ready <- a }})
	}()
	addr := <-ready
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--for 300ms: the listener still serves after 10 s")
	}
	// And the port is closed.
	if _, err := Measure(context.Background(), Options{Parts: []string{PartNet}, Rounds: 1, Sizes: []int{1}, Peer: addr}); err == nil {
		t.Error("a stopped listener still answered")
	}
}

func TestCPU(t *testing.T) {
	r, err := Measure(context.Background(), Options{Parts: []string{PartCPU}, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"cpu.syscall", "cpu.ctxswitch", "cpu.clock", "cpu.int", "cpu.float", "cpu.crc32", "cpu.memcpy"} {
		f := r.Figure(id)
		if f == nil {
			t.Errorf("no figure %s", id)
			continue
		}
		sane(t, f, 6)
	}
	cpus, _ := allowedCPUs()
	if len(cpus) < 2 {
		if r.Matrix != nil || len(r.Skipped) == 0 {
			t.Error("one CPU: the matrix must be skipped with the reason")
		}
		return
	}
	m := r.Matrix
	if m == nil {
		t.Fatalf("no core-to-core matrix on %d CPUs: %+v", len(cpus), r.Skipped)
	}
	n := min(len(cpus), maxMatrixCPUs)
	if len(m.CPUs) != n || len(m.NS) != n {
		t.Fatalf("matrix over %d CPUs, want %d", len(m.CPUs), n)
	}
	for i := range n {
		for j := range n {
			v := m.NS[i][j]
			switch {
			case i == j && !math.IsNaN(v):
				t.Errorf("diagonal %d: %v", i, v)
			case i != j && !(v > 0):
				t.Errorf("cpu%d-cpu%d: %v ns", m.CPUs[i], m.CPUs[j], v)
			case v != m.NS[j][i] && !math.IsNaN(v):
				t.Errorf("cpu%d-cpu%d: not symmetric", i, j)
			}
		}
	}
	sane(t, r.Figure("cpu.c2c"), 6)
	if len(r.PerCPU) != min(len(cpus), maxSpreadCPUs) {
		t.Errorf("per-CPU kernel on %d CPUs, want %d", len(r.PerCPU), min(len(cpus), maxSpreadCPUs))
	}
	for _, c := range r.PerCPU {
		if !(c.Value > 0) {
			t.Errorf("cpu%d: %v Gop/s", c.CPU, c.Value)
		}
	}
	if f := r.Figure("cpu.int_spread"); f == nil || len(f.Rounds) != 6 || !(f.Median >= 0) || f.Lo > f.Median || f.Median > f.Hi {
		t.Errorf("cpu.int_spread: %+v", f)
	}
	if a, b := r.Figure("cpu.c2c"), r.Figure("cpu.c2c_max"); a.Median > b.Median {
		t.Errorf("the median pair %v is slower than the slowest %v", a.Median, b.Median)
	}
}

func TestMemory(t *testing.T) {
	r, err := Measure(context.Background(), Options{Parts: []string{PartMem}, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	ms := figures(r, PartMem)
	if len(ms) < 3 {
		t.Fatalf("%d memory figures: %+v", len(ms), r.Skipped)
	}
	for _, f := range ms {
		sane(t, f, 6)
	}
	if r.Host.Nodes <= 1 {
		if r.Figure("mem.lat") == nil {
			t.Error("one node: mem.lat expected")
		}
		found := false
		for _, n := range r.Notes {
			found = found || strings.Contains(n.EN, "one NUMA node")
		}
		if !found {
			t.Errorf("one node must be said: %v", r.Notes)
		}
	}
}

// TestMemoryPerNode runs the per-node path on facts that describe this
// host's one node as node 0: the buffer is bound there with mbind.
func TestMemoryPerNode(t *testing.T) {
	cpus, _ := allowedCPUs()
	f := &sysinfo.Facts{NUMA: sysinfo.NUMA{Nodes: sysinfo.Got([]sysinfo.Node{{ID: 0, CPUs: cpus}, {ID: 0}}, "test")}}
	f.NUMA.Nodes.Value = f.NUMA.Nodes.Value[:1]
	// Two entries for the same node would measure "remote" on node 0; one
	// entry is the honest single-node case through the per-node code.
	r, err := Measure(context.Background(), Options{Parts: []string{PartMem}, Quick: true, Rounds: 2, Facts: f})
	if err != nil {
		t.Fatal(err)
	}
	if len(figures(r, PartMem)) == 0 {
		t.Fatalf("nothing measured: %+v", r.Skipped)
	}
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestDiskLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	r, err := Measure(context.Background(), Options{Parts: []string{PartDisk}, Quick: true, Dir: dir, DiskBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) > 0 {
		t.Fatalf("skipped: %+v", r.Skipped)
	}
	for _, id := range []string{"disk.fsync", "disk.fsync_p99", "disk.seq_write", "disk.seq_read", "disk.rand_read", "disk.rand_write"} {
		f := r.Figure(id)
		if f == nil {
			t.Errorf("no figure %s", id)
			continue
		}
		sane(t, f, 6)
	}
	if p50, p99 := r.Figure("disk.fsync"), r.Figure("disk.fsync_p99"); p50.Median > p99.Median {
		t.Errorf("fsync p50 %v above p99 %v", p50.Median, p99.Median)
	}
	var n int64
	for _, b := range r.Figure("disk.fsync").Dist {
		n += b.Count
	}
	if n == 0 {
		t.Error("no fsync latency distribution")
	}
	if left := dirEntries(t, dir); len(left) > 0 {
		t.Errorf("left behind in %s: %v", dir, left)
	}
}

func TestDiskCancelledMidwayLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() {
		r, _ := Measure(ctx, Options{Parts: []string{PartDisk}, Dir: dir, DiskBytes: 64 << 20})
		done <- r
	}()
	// While it runs, its file has no name: nothing shows in the folder.
	deadline := time.Now().Add(400 * time.Millisecond)
	for time.Now().Before(deadline) {
		if left := dirEntries(t, dir); len(left) > 0 {
			t.Errorf("visible while probing: %v", left)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case r := <-done:
		if r != nil && !r.Interrupted {
			t.Error("a cancelled probe must say it was interrupted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the disk probe did not stop within 10 s of its context ending")
	}
	if left := dirEntries(t, dir); len(left) > 0 {
		t.Errorf("left behind in %s: %v", dir, left)
	}
}

func TestDiskBadDir(t *testing.T) {
	r, err := Measure(context.Background(), Options{Parts: []string{PartDisk}, Quick: true, Dir: "/nonexistent/probe"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0].Why.EN, "/nonexistent/probe") {
		t.Errorf("want the disk part skipped naming the folder: %+v", r.Skipped)
	}
}

func TestParseParts(t *testing.T) {
	p, err := ParseParts("disk, net")
	if err != nil || strings.Join(p, ",") != "net,disk" {
		t.Errorf("%v %v", p, err)
	}
	if _, err := ParseParts("net,gpu"); err == nil || !strings.Contains(err.Error(), "gpu") {
		t.Errorf("gpu: %v", err)
	}
	if p, _ := ParseParts(""); len(p) != 4 {
		t.Errorf("all: %v", p)
	}
}

func TestCompare(t *testing.T) {
	fig := func(id string, higher bool, v ...float64) Figure {
		return Figure{ID: id, Unit: "ns", Higher: higher, Rounds: v, Median: v[len(v)/2]}
	}
	vuln := func(s string) *sysinfo.Facts {
		return &sysinfo.Facts{CPU: sysinfo.CPU{Vulnerabilities: sysinfo.Got(map[string]string{"spectre_v2": s}, "test")}}
	}
	a := &Result{Facts: vuln("Mitigation: Retpolines"), Figures: []Figure{
		fig("cpu.syscall", false, 100, 101, 99, 100, 102, 98, 100),
		fig("cpu.int", true, 5, 5.1, 4.9, 5, 5.05, 4.95, 5),
		fig("cpu.clock", false, 20, 30, 25, 22, 28, 21, 26),
		fig("cpu.crc32", true, 9),
	}}
	b := &Result{Facts: vuln("Vulnerable"), Figures: []Figure{
		fig("cpu.syscall", false, 60, 61, 59, 60, 62, 58, 60),
		fig("cpu.int", true, 4, 4.1, 3.9, 4, 4.05, 3.95, 4),
		fig("cpu.clock", false, 21, 29, 26, 23, 27, 20, 25),
		fig("cpu.crc32", true, 9.1),
		fig("cpu.memcpy", true, 9.1, 9),
	}}
	c := Compare(a, b, "a", "b")
	want := map[string]string{"cpu.syscall": Better, "cpu.int": Worse, "cpu.clock": Same, "cpu.crc32": TooFew, "cpu.memcpy": NoValue}
	for _, r := range c.Rows {
		if want[r.ID] != r.Verdict {
			t.Errorf("%s: %s, want %s (%+.1f%% [%+.1f, %+.1f])", r.ID, r.Verdict, want[r.ID], r.ChangePct, r.LoPct, r.HiPct)
		}
		if r.Verdict == Better || r.Verdict == Worse {
			if !(r.LoPct <= r.ChangePct && r.ChangePct <= r.HiPct) {
				t.Errorf("%s: change %v outside [%v, %v]", r.ID, r.ChangePct, r.LoPct, r.HiPct)
			}
		}
	}
	if len(c.Differences) != 1 || !strings.Contains(c.Differences[0].What.EN, "mitigations") {
		t.Fatalf("differences: %+v", c.Differences)
	}
	if len(c.Explain) != 1 || !strings.Contains(c.Explain[0].EN, "cpu.syscall -40%") || c.Explain[0].ZH == "" {
		t.Errorf("explain: %+v", c.Explain)
	}
}

// Two hosts whose TCP congestion control (or buffer limits) differ: the
// setting is listed, and tied to the TCP bandwidth that changed, not to the
// latency that did not.
func TestCompareNamesTCPSettings(t *testing.T) {
	side := func(cc, wmem string, mbs float64) *Result {
		f := &sysinfo.Facts{Sysctl: map[string]sysinfo.Field[string]{
			"net.ipv4.tcp_congestion_control": sysinfo.Got(cc, "test"),
			"net.ipv4.tcp_wmem":               sysinfo.Got(wmem, "test"),
			"net.ipv4.tcp_rmem":               sysinfo.Got("4096 131072 6291456", "test")}}
		return &Result{Facts: f, Figures: []Figure{
			{ID: "net.tcp_bw.65536", Unit: "MB/s", Higher: true, Rounds: []float64{mbs, mbs * 1.01, mbs * 0.99, mbs}, Median: mbs},
			{ID: "net.tcp_lat.1", Unit: "us", Rounds: []float64{7, 7.1, 6.9, 7}, Median: 7}}}
	}
	c := Compare(side("cubic", "4096 16384 4194304", 3000), side("bbr", "4096 16384 4194304", 2400), "a", "b")
	if len(c.Differences) != 1 || c.Differences[0].A != "cubic" || c.Differences[0].B != "bbr" {
		t.Fatalf("differences: %+v", c.Differences)
	}
	if len(c.Explain) != 1 || !strings.Contains(c.Explain[0].EN, "TCP congestion control (net.ipv4.tcp_congestion_control) differs (A: cubic; B: bbr); B is worse on what it moves: net.tcp_bw.65536 -20%") ||
		strings.Contains(c.Explain[0].EN, "tcp_lat") || !strings.Contains(c.Explain[0].ZH, "拥塞控制") {
		t.Errorf("explain: %+v", c.Explain)
	}
	c = Compare(side("cubic", "4096 16384 4194304", 3000), side("cubic", "4096 16384 1048576", 2400), "a", "b")
	if len(c.Differences) != 1 || !strings.Contains(c.Differences[0].What.EN, "tcp_wmem") || c.Differences[0].B != "4096 16384 1048576; 4096 131072 6291456" {
		t.Errorf("buffer limits: %+v", c.Differences)
	}
	if c := Compare(side("cubic", "x", 3000), side("cubic", "x", 3000), "a", "b"); len(c.Differences) != 0 {
		t.Errorf("alike: %+v", c.Differences)
	}
}

func TestCompareSaysNoiseDiffered(t *testing.T) {
	f := func(busy float64) *Result {
		return &Result{Figures: []Figure{{ID: "cpu.syscall", Rounds: []float64{1, 1, 1}, Median: 1, OthersBusyPct: busy}}}
	}
	c := Compare(f(80), f(5), "a", "b")
	if len(c.Explain) != 1 || !strings.Contains(c.Explain[0].EN, "80%") || !strings.Contains(c.Explain[0].ZH, "噪声") {
		t.Errorf("explain: %+v", c.Explain)
	}
	if c := Compare(f(10), f(5), "a", "b"); len(c.Explain) != 0 {
		t.Errorf("similar noise needs no word: %+v", c.Explain)
	}
}

// Network figures against different peers (a listener process, one in
// the prober, an old probe's loopback) compare different paths: said.
func TestCompareSaysPeersDiffered(t *testing.T) {
	f := func(peer string) *Result {
		return &Result{Peer: peer, Figures: []Figure{{ID: "net.tcp_lat.1", Rounds: []float64{20, 21, 20}, Median: 20}}}
	}
	c := Compare(f(PeerOwnProcess), f("loopback"), "a", "b")
	if len(c.Explain) != 1 || !strings.Contains(c.Explain[0].EN, PeerOwnProcess) || !strings.Contains(c.Explain[0].ZH, "环回（监听在独立进程中）") {
		t.Errorf("explain: %+v", c.Explain)
	}
	if c := Compare(f(PeerOwnProcess), f(PeerOwnProcess), "a", "b"); len(c.Explain) != 0 {
		t.Errorf("the same peer needs no word: %+v", c.Explain)
	}
}

// Compare says when the loopback figures' ends sat differently: unpinned
// on one CPU in most rounds of A and few of B, or pinned otherwise.
func TestCompareSaysPlacementDiffered(t *testing.T) {
	f := func(same int, pin *int) *Result {
		return &Result{Peer: PeerOwnProcess, ProberCPU: pin, ListenerCPU: pin, Figures: []Figure{{ID: "net.udp_lat.1", Rounds: []float64{20, 21, 20}, Median: 20,
			Placement: &Placement{Rounds: 7, SameCPU: same}}}}
	}
	said := func(c *Comparison) bool {
		return slices.ContainsFunc(c.Explain, func(t finding.Text) bool { return strings.Contains(t.EN, "placed differently") })
	}
	if c := Compare(f(6, nil), f(1, nil), "a", "b"); !said(c) || !strings.Contains(c.Explain[0].EN, "6 of 7") || !strings.Contains(c.Explain[0].ZH, "1/7") {
		t.Errorf("6 of 7 against 1 of 7: %+v", c.Explain)
	}
	// Two unpinned default probes on this 2-CPU VM: 1 of 112 rounds on one
	// CPU against 45 of 96 (as 0 and 3 of 7), latencies 37-54% apart.
	if c := Compare(f(0, nil), f(3, nil), "a", "b"); !said(c) {
		t.Errorf("0 of 7 against 3 of 7: %+v", c.Explain)
	}
	if c := Compare(f(4, nil), f(3, nil), "a", "b"); said(c) {
		t.Errorf("4 of 7 against 3 of 7 is no difference: %+v", c.Explain)
	}
	zero, one := 0, 1
	if c := Compare(f(7, &zero), f(0, &one), "a", "b"); !said(c) || !strings.Contains(c.Explain[0].EN, "prober CPU 0, listener CPU 0") {
		t.Errorf("pinned otherwise: %+v", c.Explain)
	}
	if c := Compare(f(7, &zero), f(7, &zero), "a", "b"); said(c) {
		t.Errorf("pinned alike: %+v", c.Explain)
	}
}

// A probe taken with --quick (shorter rounds, fewer of them, a smaller
// buffer and file) measured something else than a default one: compare
// says which settings differed, for the parts both measured.
func TestCompareSaysSettingsDiffered(t *testing.T) {
	f := func(quick bool, parts ...string) *Result {
		r := &Result{Quick: quick, Parts: parts, Rounds: 7, Windows: newBudget(&Options{Quick: quick}).windows(), MemBytes: 256 << 20, DiskBytes: 256 << 20,
			Figures: []Figure{{ID: "net.udp_bw.64", Rounds: []float64{20, 21, 20}, Median: 20}}}
		if quick {
			r.Rounds, r.MemBytes, r.DiskBytes = 6, 64<<20, 32<<20
		}
		return r
	}
	said := func(c *Comparison) string {
		for _, t := range c.Explain {
			if strings.Contains(t.EN, "different settings") {
				return t.EN + "\n" + t.ZH
			}
		}
		return ""
	}
	s := said(Compare(f(false, PartNet, PartMem, PartDisk), f(true, PartNet, PartMem, PartDisk), "a", "b"))
	for _, want := range []string{"mode default in A, --quick in B", "rounds per figure 7 in A, 6 in B", "a network round 120 ms in A, 20 ms in B",
		"a disk round 300 ms in A, 50 ms in B", "the memory buffer 256 MiB in A, 64 MiB in B", "the disk file 256 MiB in A, 32 MiB in B", "模式 A 为默认，B 为 --quick"} {
		if !strings.Contains(s, want) {
			t.Errorf("default against --quick: want %q in %q", want, s)
		}
	}
	// The CPU part ran in neither: its round is not named.
	if strings.Contains(s, "CPU round") {
		t.Errorf("a part neither measured is named: %q", s)
	}
	if s := said(Compare(f(true, PartNet), f(true, PartNet), "a", "b")); s != "" {
		t.Errorf("alike: %q", s)
	}
	// Probes from before the windows were kept: what they do say is used.
	old := f(false, PartNet)
	old.Windows = nil
	if s := said(Compare(old, f(true, PartNet), "a", "b")); !strings.Contains(s, "mode default in A, --quick in B") || strings.Contains(s, "network round") {
		t.Errorf("an old probe against --quick: %q", s)
	}
}

// A TCP stream that changed while its sender was preempted far more
// often, or its segments were far larger, on one side ran in another
// pattern (how the receiver ACKed): compare says so, and only then (similar
// rates and segments, or no significant change, need no word).
func TestCompareSaysStreamPatternsDiffered(t *testing.T) {
	f := func(mbs float64, pre ...float64) *Result {
		return &Result{Figures: []Figure{{ID: "net.tcp_bw.64", Name: finding.T("TCP bandwidth 64 B writes", "TCP 带宽 64 B"), Unit: "MB/s", Higher: true,
			Rounds: []float64{mbs, mbs * 1.01, mbs * 0.99, mbs}, Median: mbs, Preempt: pre}}}
	}
	said := func(c *Comparison) string {
		for _, t := range c.Explain {
			if strings.Contains(t.EN, "different patterns") {
				return t.EN + " / " + t.ZH
			}
		}
		return ""
	}
	// 15,000 a second against ~600 (one round not read): said, with both medians.
	s := said(Compare(f(37, 15021, 14500, 15800, 13900), f(44, 598, -1, 610, 640), "a", "b"))
	if !strings.Contains(s, "14760 times a second in A and 610 in B") || !strings.Contains(s, "TCP bandwidth 64 B writes") || !strings.Contains(s, "延迟 ACK") {
		t.Errorf("15,000 against 600: %q", s)
	}
	if s := said(Compare(f(44, 600, 610, 620, 630), f(37, 15021, 14500, 15800, 13900), "a", "b")); !strings.Contains(s, "615 times a second in A and 14760 in B") {
		t.Errorf("the other way: %q", s)
	}
	for name, c := range map[string]*Comparison{
		"similar rates":     Compare(f(37, 600, 610, 620, 630), f(44, 1500, 1600, 1700, 1800), "a", "b"),
		"no change":         Compare(f(40, 15000, 15000, 15000, 15000), f(40, 600, 600, 600, 600), "a", "b"),
		"one side unread":   Compare(f(37, 15000, 15000, 15000, 15000), f(44), "a", "b"),
		"never preempted":   Compare(f(37, 0, 0, 0, 0), f(44, 3, 4, 2, 3), "a", "b"),
		"rarely either way": Compare(f(37, 0, 0, 1, 0), f(44, 9, 8, 70, 90), "a", "b"),
	} {
		if s := said(c); s != "" {
			t.Errorf("%s: %q", name, s)
		}
	}
	// The segments say it alone: ~1.2 KB against ~24 KB (none read on one
	// side of the other pair, or ~1.2 against ~2 KB: no word; a factor 3
	// is the line).
	seg := func(mbs float64, b ...float64) *Result {
		r := f(mbs, 600, 600, 600, 600)
		r.Figures[0].Segment = b
		return r
	}
	if s := said(Compare(seg(37, 1180, 1250, 1210, 1300), seg(44, 24100, 23800, -1, 25000), "a", "b")); !strings.Contains(s, "segments averaged 1230 bytes in A and 24100 in B") || !strings.Contains(s, "平均报文段 A 为 1230 字节") {
		t.Errorf("1.2 against 24 KB segments: %q", s)
	}
	for name, c := range map[string]*Comparison{
		"1.2 against 2 KB": Compare(seg(37, 1180, 1250, 1210, 1300), seg(44, 2000, 2100, 1900, 2050), "a", "b"),
		"one side unread":  Compare(seg(37, 1180, 1250, 1210, 1300), seg(44, -1, -1), "a", "b"),
	} {
		if s := said(c); s != "" {
			t.Errorf("%s: %q", name, s)
		}
	}
	// Apart (never) against together in slices: the schedules differ too.
	if s := said(Compare(f(37, 0, 0, 1, 0), f(44, 600, 610, 620, 630), "a", "b")); s == "" {
		t.Error("0 against 615 a second: not said")
	}
}

func TestQuitNeedsTheToken(t *testing.T) {
	ctx := context.Background()
	addr, stop := listen(t, "tok", time.Minute)
	defer stop()
	if err := Quit(ctx, addr, "other"); !errors.Is(err, errRefused) {
		t.Fatalf("quit with a wrong token: %v", err)
	}
	if err := Quit(ctx, addr, "tok"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, _, err := (&client{addr: addr, token: "tok"}).dial(ctx, "crr", 0); err != nil {
			break // stopped
		}
		if time.Now().After(deadline) {
			t.Fatal("still answering 5 s after quit")
		}
		time.Sleep(50 * time.Millisecond)
	}
	open, stopOpen := listen(t, "", time.Minute)
	defer stopOpen()
	if err := Quit(ctx, open, ""); err == nil {
		t.Error("a listener without a token must not be stopped by whoever connects")
	}
}

// TestCompareNamesCheckFindings compares two probes taken on two captured
// host trees: the check findings failing on one only are listed, by side.
func TestCompareNamesCheckFindings(t *testing.T) {
	facts := func(name string) *sysinfo.Facts {
		return sysinfo.Collect(hostfs.Under("../../testdata/hosts/"+name), sysinfo.Options{NoEthtool: true})
	}
	a, b := facts("build-vm-amd64"), facts("kunpeng920-2s4n")
	fig := []Figure{{ID: "cpu.syscall", Rounds: []float64{1, 1, 1}, Median: 1}}
	c := Compare(&Result{Facts: a, Figures: fig}, &Result{Facts: b, Figures: fig}, "vm", "kunpeng")
	if len(c.Checks) == 0 {
		t.Fatal("two different hosts, no check finding on one side only")
	}
	sides := map[string]int{}
	for _, x := range c.Checks {
		sides[x.Side]++
		if !platformRule(x.ID) || x.Title.EN == "" || x.Title.ZH == "" {
			t.Errorf("%+v", x)
		}
	}
	// The same facts on both sides differ in nothing.
	if c := Compare(&Result{Facts: b, Figures: fig}, &Result{Facts: b, Figures: fig}, "x", "y"); len(c.Checks) != 0 || len(c.Differences) != 0 {
		t.Errorf("same host: %+v %+v", c.Checks, c.Differences)
	}
	t.Logf("one side only: %v", sides)
}

// TestListenerStopsMidSession: a listener whose time is up ends even while
// a prober holds a ping-pong connection open and silent.
func TestListenerStopsMidSession(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Listen(ctx, ListenOptions{Addr: "127.0.0.1:0", Token: "t", For: time.Minute, Ready: func(a string) { ready <- a }})
	}()
	addr := <-ready
	c, _, err := (&client{addr: addr, token: "t"}).dial(ctx, "lat", 64)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(100 * time.Millisecond) // the session blocks in read
	start := time.Now()
	cancel()
	select {
	case <-done:
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("took %v to stop", el)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the listener waits on a silent session")
	}
}

// The loopback listener a probe starts is a process of its own, but its
// CPU is the probe's: the noise (others' share of the CPUs) leaves it out.
// A spinning shell stands in for it: counted as ours, others read far less.
func TestNoiseCountsOurListenerAsOurs(t *testing.T) {
	spin := exec.Command("sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { spin.Process.Kill(); spin.Wait() }()
	ours, theirs := newNoise("/proc", spin.Process.Pid), newNoise("/proc", 0)
	mo, mt := ours.read(), theirs.read()
	time.Sleep(600 * time.Millisecond)
	so, st := ours.since(mo), theirs.since(mt)
	if so.others < 0 || st.others < 0 {
		t.Skip("no /proc/stat here")
	}
	if ours.peerCPU() <= 0 {
		t.Errorf("the listener's CPU reads %v s", ours.peerCPU())
	}
	if st.others-so.others < 10 {
		t.Errorf("others %.0f%% with the spinner counted as ours, %.0f%% without: it was not left out", so.others, st.others)
	}
}
