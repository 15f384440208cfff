package sample

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// testdata/seq-*/tick-N hold /proc files captured one second apart on the
// development host (2 vCPUs, kernel 6.18) by testdata/capture-seq.sh while
// generating load:
//
//	seq-cpu:  a shell busy loop pinned to CPU 1 (taskset -c 1)
//	seq-disk: dd loops, 64 KiB O_DIRECT writes and 16 KiB O_DIRECT reads on vda
//
// testdata/java-proc/tick-N/proc is the /proc/PID subtree of a JDK 17
// process (Spin.java: four sleeping "worker-N" threads and a spinning
// "hot-spinner", TID 6492) captured twice, one second apart by
// testdata/capture-proc.py, on a host saturated by other work: the spinner
// was runnable all along but on a CPU only a third of the time.

type seqTick struct {
	dir  string
	time time.Time
}

func loadSeq(t *testing.T, name string) []seqTick {
	t.Helper()
	var ticks []seqTick
	for i := 0; ; i++ {
		dir := filepath.Join("testdata", name, "tick-"+strconv.Itoa(i))
		b, err := os.ReadFile(filepath.Join(dir, "time"))
		if err != nil {
			break
		}
		ticks = append(ticks, seqTick{dir, parseCaptureTime(t, strings.TrimSpace(string(b)))})
	}
	if len(ticks) < 2 {
		t.Fatalf("%s: want at least 2 ticks, have %d", name, len(ticks))
	}
	return ticks
}

func parseCaptureTime(t *testing.T, s string) time.Time {
	sec, frac, _ := strings.Cut(s, ".")
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad capture time %q", s)
	}
	return time.Unix(a, b)
}

func (k seqTick) read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(k.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestSeqCPUBusyLoopOnCPU1(t *testing.T) {
	ticks := loadSeq(t, "seq-cpu")
	var sc scratch
	var prev *Stat
	var prevSI *Softirqs
	for i, k := range ticks {
		st := new(Stat)
		if err := parseStat(k.read(t, "stat"), st, &sc); err != nil {
			t.Fatalf("tick %d: %v", i, err)
		}
		si, err := parseSoftirqs(k.read(t, "softirqs"), &sc)
		if err != nil {
			t.Fatalf("tick %d: %v", i, err)
		}
		if prev != nil {
			secs := k.time.Sub(ticks[i-1].time).Seconds()
			r := CPUDelta(prev, st, secs)
			if len(r.CPUs) != 2 {
				t.Fatalf("interval %d: %d CPUs", i, len(r.CPUs))
			}
			for _, c := range append([]CPUPct{r.All}, r.CPUs...) {
				sum := c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal + c.Guest + c.GuestNice
				if !near(sum, 100, 1e-9) {
					t.Errorf("interval %d cpu %d: sum %.3f", i, c.CPU, sum)
				}
			}
			// The shell loop keeps CPU 1 in user mode.
			if c := r.CPUs[1]; c.User < 85 || c.Busy() < 95 {
				t.Errorf("interval %d: cpu1 us=%.1f busy=%.1f, want a busy loop", i, c.User, c.Busy())
			}
			if r.CtxtPS <= 0 || r.IntrPS <= 0 {
				t.Errorf("interval %d: ctxt/s %.0f intr/s %.0f", i, r.CtxtPS, r.IntrPS)
			}
			sr := SoftirqDelta(prevSI, si, secs)
			var timer *SoftirqRate
			for j := range sr.Rows {
				if sr.Rows[j].Type == "TIMER" {
					timer = &sr.Rows[j]
				}
			}
			if timer == nil || timer.Total <= 0 || len(timer.PerSec) != 2 {
				t.Errorf("interval %d: TIMER softirqs %+v", i, timer)
			}
		}
		prev, prevSI = st, si
	}
}

// TestSeqCPUExactInterval checks one interval against figures worked out
// by hand from the captured files (tick-1 -> tick-2, cpu1).
func TestSeqCPUExactInterval(t *testing.T) {
	ticks := loadSeq(t, "seq-cpu")
	var sc scratch
	a, b := new(Stat), new(Stat)
	if err := parseStat(ticks[1].read(t, "stat"), a, &sc); err != nil {
		t.Fatal(err)
	}
	if err := parseStat(ticks[2].read(t, "stat"), b, &sc); err != nil {
		t.Fatal(err)
	}
	p, c := a.CPUs[1], b.CPUs[1]
	total := float64((c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal) -
		(p.User + p.Nice + p.System + p.Idle + p.Iowait + p.IRQ + p.SoftIRQ + p.Steal))
	r := CPUDelta(a, b, 1)
	if want := 100 * float64(c.User-p.User) / total; !near(r.CPUs[1].User, want, 1e-9) {
		t.Errorf("cpu1 user %.4f, want %.4f", r.CPUs[1].User, want)
	}
	if want := 100 * float64(c.Idle-p.Idle) / total; !near(r.CPUs[1].Idle, want, 1e-9) {
		t.Errorf("cpu1 idle %.4f, want %.4f", r.CPUs[1].Idle, want)
	}
}

func TestSeqDiskIostat(t *testing.T) {
	ticks := loadSeq(t, "seq-disk")
	var sc scratch
	var prev []Disk
	for i, k := range ticks {
		disks, err := parseDiskstats(k.read(t, "diskstats"), nil, &sc)
		if err != nil {
			t.Fatalf("tick %d: %v", i, err)
		}
		for _, d := range disks {
			if strings.HasPrefix(d.Name, "loop") {
				t.Errorf("tick %d: unused %s kept", i, d.Name)
			}
		}
		if prev != nil {
			secs := k.time.Sub(ticks[i-1].time).Seconds()
			var vda *DiskRate
			for _, r := range DiskDelta(prev, disks, secs) {
				if r.Name == "vda" {
					vda = &r
				}
			}
			if vda == nil {
				t.Fatalf("interval %d: no vda", i)
			}
			// dd: 64 KiB writes, 16 KiB reads, O_DIRECT, back to back.
			if vda.RPS < 100 || vda.WPS < 100 || vda.RkBPS < 1000 || vda.WkBPS < 1000 {
				t.Errorf("interval %d: vda %+v", i, *vda)
			}
			if !near(vda.RAreqKB, 16, 0.5) {
				t.Errorf("interval %d: rareq-sz %.2f, want 16 KiB", i, vda.RAreqKB)
			}
			if vda.WAreqKB < 32 || vda.Util <= 0 || vda.Util > 100 {
				t.Errorf("interval %d: wareq-sz %.1f util %.1f", i, vda.WAreqKB, vda.Util)
			}
		}
		prev = disks
	}
}

// TestSeqDiskExactInterval: tick-1 -> tick-2 of vda, worked out by hand
// from the two lines:
//
//	254 0 vda 78255 7522 3768986 24729 17828 31423 9545088 15685 1 13256 49692 ...
//	254 0 vda 90537 7522 4163122 24998 20428 31423 9877888 15763 1 13824 50295 ...
//
// reads 12282, sectors 394136 (197068 kB), read ms 269; writes 2600,
// sectors 332800 (166400 kB), write ms 78; io_ticks 568; time_in_queue 603.
func TestSeqDiskExactInterval(t *testing.T) {
	ticks := loadSeq(t, "seq-disk")
	var sc scratch
	a, _ := parseDiskstats(ticks[1].read(t, "diskstats"), nil, &sc)
	b, _ := parseDiskstats(ticks[2].read(t, "diskstats"), nil, &sc)
	var r DiskRate
	for _, x := range DiskDelta(a, b, 2) { // 2 s makes the arithmetic visible
		if x.Name == "vda" {
			r = x
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"r/s", r.RPS, 12282.0 / 2}, {"w/s", r.WPS, 2600.0 / 2},
		{"rkB/s", r.RkBPS, 197068.0 / 2}, {"wkB/s", r.WkBPS, 166400.0 / 2},
		{"r_await", r.RAwait, 269.0 / 12282}, {"w_await", r.WAwait, 78.0 / 2600},
		{"rareq-sz", r.RAreqKB, 197068.0 / 12282}, {"wareq-sz", r.WAreqKB, 166400.0 / 2600},
		{"aqu-sz", r.AquSz, 603.0 / 2000}, {"%util", r.Util, 100 * 568.0 / 2000},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %.6f, want %.6f", c.name, c.got, c.want)
		}
	}
}

// TestJavaProcFixture runs the Collector over two captured trees of a JDK
// process: the host samplers find nothing and say unavailable (not failed);
// the process and thread samplers read the JVM, and Delta puts the
// spinning thread on top with its TID for jstack's nid.
func TestJavaProcFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/java-proc/pid")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	ticks := loadSeq(t, "java-proc")
	var snaps []*Snapshot
	for _, k := range ticks {
		h := hostfs.Under(k.dir)
		c, err := New(h, Options{PID: pid, OnPanic: func(n string, v any, st []byte) { t.Fatalf("%s panicked: %v\n%s", n, v, st) }})
		if err != nil {
			t.Fatal(err)
		}
		s := c.Collect(k.time, nil)
		for _, o := range s.Samplers {
			switch o.Name {
			case "process", "threads":
				if o.Status != StatusOK {
					t.Errorf("%s: %s %s", o.Name, o.Status, o.Reason)
				}
			default:
				if o.Status != StatusUnavailable || o.Reason == "" {
					t.Errorf("%s on a tree without it: %+v", o.Name, o)
				}
			}
		}
		snaps = append(snaps, s)
	}
	s := snaps[0]
	if s.Proc == nil || s.Proc.Comm != "java" || s.Proc.FDs != 7 || s.Proc.FDSoft == 0 || s.Proc.RSSKB == 0 || s.Proc.Threads != 26 {
		t.Fatalf("proc %+v", s.Proc)
	}
	if len(s.Threads) != 26 {
		t.Fatalf("%d threads", len(s.Threads))
	}
	r, err := Delta(snaps[0], snaps[1])
	if err != nil {
		t.Fatal(err)
	}
	// By hand from task/6492/schedstat at the two ticks, 1.003749609 s
	// apart: run 2152183955 -> 2481587846 ns, wait 4182445263 -> 4849006591.
	top := r.Threads.Threads[0]
	if top.TID != 6492 || top.Name != "hot-spinner" || top.State != "R" ||
		!near(top.CPUPct, 100*329403891/1.003749609e9, 1e-6) || !near(top.WaitPct, 100*666561328/1.003749609e9, 1e-6) {
		t.Errorf("top thread %+v", top)
	}
	if r.Proc == nil || r.Proc.CPUPct < 25 || r.Proc.FDPct <= 0 {
		t.Errorf("proc rate %+v", r.Proc)
	}
	for _, tr := range r.Threads.Threads[1:] {
		if strings.HasPrefix(tr.Name, "worker-") && (tr.CPUPct > 1 || tr.State != "S") {
			t.Errorf("sleeping worker %+v", tr)
		}
	}
}

// TestHostFixture runs every default sampler over two captured host trees
// (testdata/host, by testdata/capture-host.py): all ok, every rate part
// present, and a snapshot survives a JSON line unchanged.
func TestHostFixture(t *testing.T) {
	ticks := loadSeq(t, "host")
	var snaps []*Snapshot
	for _, k := range ticks {
		c, err := New(hostfs.Under(k.dir), Options{OnPanic: func(n string, v any, st []byte) { t.Fatalf("%s panicked: %v\n%s", n, v, st) }})
		if err != nil {
			t.Fatal(err)
		}
		s := c.Collect(k.time, nil)
		for _, o := range s.Samplers {
			if o.Status != StatusOK {
				t.Errorf("%s: %s %s", o.Name, o.Status, o.Reason)
			}
		}
		var buf bytes.Buffer
		if err := NewEncoder(&buf).Encode(s); err != nil {
			t.Fatal(err)
		}
		var back Snapshot
		if err := NewDecoder(&buf).Decode(&back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, &back) {
			a, _ := json.Marshal(s)
			b, _ := json.Marshal(&back)
			t.Errorf("round trip changed the snapshot:\n%s\n%s", a, b)
		}
		snaps = append(snaps, s)
	}
	r, err := Delta(snaps[0], snaps[1])
	if err != nil {
		t.Fatal(err)
	}
	if r.CPU == nil || r.Softirqs == nil || r.IRQs == nil || r.VM == nil || r.NUMA == nil || r.Disks == nil ||
		r.Net == nil || r.TCP == nil || r.PSI == nil || r.Load == nil {
		t.Errorf("missing parts: %+v", r)
	}
	if r.Proc != nil || r.Threads != nil {
		t.Error("process parts without a target")
	}
}
