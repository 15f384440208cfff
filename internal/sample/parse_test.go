package sample

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Real samples from the development host (kernel 6.18, 2 vCPUs) unless said.

const statSample = `cpu  8585 0 1916 88769 574 0 55 5 0 0
cpu0 3731 0 895 45242 60 0 22 2 0 0
cpu1 4854 0 1021 43526 513 0 33 2 0 0
intr 313245 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 15 0 0
ctxt 599091
btime 1795305011
processes 14258
procs_running 1
procs_blocked 0
softirq 142098 0 15247 5 3755 41192 0 443 45669 0 35787
`

func TestParseStat(t *testing.T) {
	var sc scratch
	st := new(Stat)
	if err := parseStat([]byte(statSample), st, &sc); err != nil {
		t.Fatal(err)
	}
	want := CPUTimes{CPU: 1, User: 4854, System: 1021, Idle: 43526, Iowait: 513, SoftIRQ: 33, Steal: 2}
	if len(st.CPUs) != 2 || st.CPUs[1] != want || st.All.CPU != -1 || st.All.User != 8585 {
		t.Errorf("cpus %+v all %+v", st.CPUs, st.All)
	}
	if st.Intr != 313245 || st.Ctxt != 599091 || st.Forks != 14258 || st.Running != 1 || st.Blocked != 0 {
		t.Errorf("%+v", st)
	}
	// A 2.6.18-era line with 7 columns: the rest read as zero.
	st = new(Stat)
	if err := parseStat([]byte("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n"), st, &sc); err != nil || st.CPUs[0].Steal != 0 || st.CPUs[0].SoftIRQ != 7 {
		t.Errorf("old kernel: %+v %v", st, err)
	}
	for _, c := range []struct{ in, line string }{
		{"cpu  1 2 3 4\ncpu0 1 x 3 4\n", "line 2"},
		{"cpu  1 2 3 4\nctxt many\n", "line 2"},
		{"cpu 1 2\n", "line 1"},
		{"ctxt 5\n", "no cpu line"},
		{"cpuX 1 2 3 4\n", "line 1"},
	} {
		err := parseStat([]byte(c.in), new(Stat), &sc)
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), c.line) {
			t.Errorf("%q: %v", c.in, err)
		}
	}
}

func TestParseLoadAvg(t *testing.T) {
	var sc scratch
	la, err := parseLoadAvg([]byte("0.28 0.28 0.11 2/94 14258\n"), &sc)
	if err != nil || la != (LoadAvg{0.28, 0.28, 0.11, 2, 94}) {
		t.Errorf("%+v %v", la, err)
	}
	for _, in := range []string{"", "0.28 0.28\n", "a b c 1/2 3", "0.1 0.2 0.3 12 3", "1.0000000000 1 1 1/1 1"} {
		if _, err := parseLoadAvg([]byte(in), &sc); !errors.Is(err, ErrParse) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

const softirqSample = `                    CPU0       CPU1       
          HI:          0          0
       TIMER:       6812       8435
      NET_TX:          5          0
      NET_RX:       1947       1808
`

func TestParseSoftirqs(t *testing.T) {
	var sc scratch
	si, err := parseSoftirqs([]byte(softirqSample), &sc)
	if err != nil || len(si.CPUs) != 2 || si.CPUs[1] != 1 || len(si.Rows) != 4 || si.Rows[1].Type != "TIMER" || si.Rows[1].Counts[1] != 8435 {
		t.Fatalf("%+v %v", si, err)
	}
	_, err = parseSoftirqs([]byte(softirqSample+"   BLOCK:  1\n"), &sc)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 6") {
		t.Errorf("short row: %v", err)
	}
	if _, err := parseSoftirqs([]byte("HI: 0 0\n"), &sc); !errors.Is(err, ErrParse) {
		t.Errorf("no header: %v", err)
	}
}

const irqSample = `           CPU0       CPU1       
 24:          1          0  IO-APIC   5-edge      ACPI:Ged
 29:          0          0 PCI-MSIX-0000:00:01.0   1-edge      virtio0-inflate
 41:       1998          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx
LOC:      52856      52104   Local timer interrupts
ERR:          0
MIS:          7
`

func TestParseInterrupts(t *testing.T) {
	var sc scratch
	irq, err := parseInterrupts([]byte(irqSample), &sc, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(irq.Rows) != 3 || irq.Rows[1].IRQ != "41" || irq.Rows[1].Name != "PCI-MSIX-0000:00:04.0 1-edge virtio3-rx" ||
		irq.Rows[1].Counts[0] != 1998 || irq.Rows[2].IRQ != "LOC" || irq.Global["MIS"] != 7 || len(irq.Global) != 2 {
		t.Errorf("%+v", irq)
	}
	_, err = parseInterrupts([]byte(irqSample+" 50:   3\n"), &sc, false)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 8") {
		t.Errorf("short row: %v", err)
	}
}

// arm64 layout (IPIn rows, "Err:" with one count), constructed from the
// kernel's arch/arm64 show_ipi_list and GICv3/ITS formats, not captured:
// no arm64 host was at hand.
const irqArm64Sample = `           CPU0       CPU1       CPU2       CPU3
 11:     204412     198020     199554     201183     GICv3  27 Level     arch_timer
 76:          0          0        412          0   ITS-MSI 524288 Edge      hns3-0000:7d:00.0-TxRx-0
IPI0:     30233      31054      29876      30011       Rescheduling interrupts
IPI1:      1182       1203       1150       1174       Function call interrupts
Err:          0
`

func TestParseInterruptsArm64(t *testing.T) {
	var sc scratch
	irq, err := parseInterrupts([]byte(irqArm64Sample), &sc, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(irq.Rows) != 4 || irq.Rows[1].Name != "ITS-MSI 524288 Edge hns3-0000:7d:00.0-TxRx-0" || irq.Rows[1].Counts[2] != 412 ||
		irq.Rows[2].IRQ != "IPI0" || len(irq.Global) != 1 {
		t.Errorf("%+v", irq)
	}
}

// TestParseMeminfoForms covers every /proc/meminfo line either former
// parser took (this one; promexport's parseMem, which read MemTotal and
// MemAvailable with bytes.Fields and skipped what it could not read), and
// what ParseMeminfo refuses while reading on.
func TestParseMeminfoForms(t *testing.T) {
	for _, c := range []struct {
		line, name string
		v          uint64
		bad        bool
	}{
		{line: "MemTotal:       24684096 kB", name: "MemTotal", v: 24684096},
		{line: "MemAvailable:\t24338056 kB", name: "MemAvailable", v: 24338056},
		{line: "MemTotal: 0 kB", name: "MemTotal", v: 0},
		{line: "MemTotal:       24684096 kB\r", name: "MemTotal", v: 24684096},
		{line: "HugePages_Total:       0", name: "HugePages_Total", v: 0},
		{line: "Hugepagesize:       2048 kB", name: "Hugepagesize", v: 2048},
		{line: "DirectMap4k:      180096 kB", name: "DirectMap4k", v: 180096},
		{line: "Node 0 MemTotal:  1 kB", name: "MemTotal", v: 1}, // a node's meminfo (sysinfo's parseNodeMeminfo was a second parser)
		{line: "Node 12 HugePages_Free:     0", name: "HugePages_Free", v: 0},
		{line: "Node x MemTotal:  1 kB", name: "Node x MemTotal", v: 1}, // not a node number: the name as written
		{line: ""},
		// refused: promexport took a value with no unit; a kB missing is a line cut short
		{line: "MemTotal: 10", bad: true},
		{line: "MemTotal: 10 MB", bad: true},
		{line: "MemTotal: -1 kB", bad: true},
		{line: "MemTotal: x kB", bad: true},
		{line: "MemTotal: 18446744073709551616 kB", bad: true},
		{line: "MemTotal 10 kB", bad: true},
		{line: "MemTotal: 10 kB extra", bad: true},
	} {
		m := map[string]uint64{}
		err := ParseMeminfo([]byte(c.line+"\nMemFree: 7 kB\n"), m)
		if c.bad {
			if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 1") || m["MemFree"] != 7 || len(m) != 1 {
				t.Errorf("%q: %v %v", c.line, m, err)
			}
			continue
		}
		if v, ok := m[c.name]; err != nil || (c.name != "" && (!ok || v != c.v)) || m["MemFree"] != 7 {
			t.Errorf("%q: %v %v", c.line, m, err)
		}
	}
}

func TestParseMeminfoVmstat(t *testing.T) {
	var sc scratch
	m := map[string]uint64{}
	err := parseMeminfo([]byte("MemTotal:       24684096 kB\nMemFree:        23967632 kB\nHugePages_Total:       0\n"), m, &sc)
	if err != nil || m["MemTotal"] != 24684096 || len(m) != 3 {
		t.Errorf("%v %v", m, err)
	}
	err = parseMeminfo([]byte("MemTotal: 1 kB\nbogus\nMemFree: x kB\n"), m, &sc)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("%v", err)
	}
	vm := map[string]uint64{}
	err = parseVmstat([]byte("nr_free_pages 990934\npgfault 4704608\npgmajfault 1276\ncompact_stall 0\nthp_fault_alloc 3\n"), vm, vmWanted, &sc)
	if err != nil || vm["pgfault"] != 4704608 || vm["thp_fault_alloc"] != 3 || vm["nr_free_pages"] != 990934 || len(vm) != 5 {
		t.Errorf("%v %v", vm, err)
	}
	err = parseVmstat([]byte("pgfault 1\npgmajfault -3\n"), vm, vmWanted, &sc)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("%v", err)
	}
}

func TestParseNumastat(t *testing.T) {
	var sc scratch
	st, err := parseNumastat([]byte("numa_hit 5017417\nnuma_miss 3\nnuma_foreign 0\ninterleave_hit 1130\nlocal_node 5017417\nother_node 9\n"), &sc)
	if err != nil || st.Hit != 5017417 || st.Miss != 3 || st.Other != 9 || st.InterleaveHit != 1130 {
		t.Errorf("%+v %v", st, err)
	}
	if _, err := parseNumastat([]byte("garbage\n"), &sc); !errors.Is(err, ErrParse) {
		t.Errorf("%v", err)
	}
}

const diskSample = ` 254       0 vda 42440 6724 2628538 15868 8014 11803 6885920 11526 0 6944 31739 4077 1 6141360 4341 238 2
 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
   8       0 sda 9 0 72 1 0 0 0 0 0 4 1
`

func TestParseDiskstats(t *testing.T) {
	var sc scratch
	d, err := parseDiskstats([]byte(diskSample), nil, &sc)
	if err != nil || len(d) != 2 {
		t.Fatalf("%+v %v", d, err)
	}
	if v := d[0]; v.Name != "vda" || v.Major != 254 || v.RdIOs != 42440 || v.WrSectors != 6885920 || v.QueueTicks != 31739 || v.DcIOs != 4077 || v.FlIOs != 238 || v.FlTicks != 2 {
		t.Errorf("%+v", v)
	}
	if v := d[1]; v.Name != "sda" || v.QueueTicks != 1 || v.DcIOs != 0 { // 4.17-style 14 columns
		t.Errorf("%+v", v)
	}
	_, err = parseDiskstats([]byte(diskSample+"8 1 sda1 1 2\n"), nil, &sc)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("%v", err)
	}
}

const netDevSample = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    3193      29    0    0    0     0          0         0     3193      29    0    0    0     0       0          0
  eth0: 59304117    2870    0    7    0     0          0         0   286427    2761    0    0    0     0       0          0
  eth1:1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
`

func TestParseNetDev(t *testing.T) {
	var sc scratch
	n, err := parseNetDev([]byte(netDevSample), nil, &sc)
	if err != nil || len(n) != 3 || n[1].Name != "eth0" || n[1].RxBytes != 59304117 || n[1].RxDrop != 7 || n[1].TxPackets != 2761 {
		t.Fatalf("%+v %v", n, err)
	}
	if n[2].Name != "eth1" || n[2].RxBytes != 1 || n[2].TxCompr != 16 {
		t.Errorf("no space after colon: %+v", n[2])
	}
	_, err = parseNetDev([]byte(netDevSample+"eth2: 1 2\n"), nil, &sc)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 6") {
		t.Errorf("%v", err)
	}
}

const snmpSample = `Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates OutTransmits
Ip: 2 64 2896 0 0 0 0 0 2896 2779 0 0 0 0 0 0 0 0 0 2779
Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
Tcp: 1 200 120000 -1 32 2 0 0 0 2860 2762 4 0 6 0
`

const netstatSample = `TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled RcvPruned OfoPruned OutOfWindowIcmps LockDroppedIcmps ArpFilter TW TWRecycled TWKilled PAWSActive PAWSEstab BeyondWindow TSEcrRejected PAWSOldAck PAWSTimewait DelayedACKs DelayedACKLocked DelayedACKLost ListenOverflows ListenDrops
TcpExt: 0 0 0 0 0 0 0 0 0 0 28 0 0 0 0 0 0 0 0 4 0 2 5 6
IpExt: InNoRoutes InTruncatedPkts
IpExt: 0 0
`

func TestParseSnmpNetstatSockstat(t *testing.T) {
	var sc scratch
	m := map[string]uint64{}
	keep := keepSet()
	if err := parseSnmp([]byte(snmpSample), m, keep, &sc); err != nil {
		t.Fatal(err)
	}
	if err := parseSnmp([]byte(netstatSample), m, keep, &sc); err != nil {
		t.Fatal(err)
	}
	if m["Tcp.RetransSegs"] != 4 || m["Tcp.OutSegs"] != 2762 || m["TcpExt.ListenOverflows"] != 5 || m["TcpExt.ListenDrops"] != 6 || m["TcpExt.TW"] != 28 {
		t.Errorf("%v", m)
	}
	if _, ok := m["Tcp.MaxConn"]; ok {
		t.Error("MaxConn kept")
	}
	err := parseSnmp([]byte("Tcp: A B\nTcp: 1\n"), m, nil, &sc)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("%v", err)
	}
	var tcp TCP
	if err := parseSockstat([]byte("sockets: used 16\nTCP: inuse 1 orphan 0 tw 3 alloc 1 mem 120\nUDP: inuse 0 mem 0\n"), &tcp, &sc); err != nil || tcp.TimeWait != 3 || tcp.MemPages != 120 {
		t.Errorf("%+v %v", tcp, err)
	}
	if err := parseSockstat([]byte("TCP: inuse x\n"), &tcp, &sc); !errors.Is(err, ErrParse) {
		t.Errorf("%v", err)
	}
}

func TestParsePSI(t *testing.T) {
	var sc scratch
	v, err := parsePSI([]byte("some avg10=11.65 avg60=13.00 avg300=7.28 total=37225302\nfull avg10=0.07 avg60=0.80 avg300=0.61 total=3802594\n"), &sc)
	if err != nil || !near(v.SomeAvg10, 11.65, 1e-9) || v.SomeTotal != 37225302 || v.FullTotal != 3802594 || !near(v.FullAvg10, 0.07, 1e-9) {
		t.Errorf("%+v %v", v, err)
	}
	// Before 5.13 the cpu file has no full line.
	if v, err := parsePSI([]byte("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"), &sc); err != nil || v.SomeTotal != 5 {
		t.Errorf("%+v %v", v, err)
	}
	if _, err := parsePSI([]byte("some avg10=x total=1\n"), &sc); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("%v", err)
	}
}

func TestParsePidStat(t *testing.T) {
	var sc scratch
	line := "1847 (hot-spinner) R 1782 1782 13811 0 -1 4194368 24 0 0 0 814 2 0 0 20 0 26 0 95956 2709745664 19195 18446744073709551615 94107109421056 94107109421941 140736239974608 0 0 0 4 0 16800975 0 0 0 -1 1 0 0 0 0 0 94107109432640 94107109433368 94107545206784 140736239983080 140736239983109 140736239983109 140736239984618 0\n"
	st, err := parsePidStat([]byte(line), &sc)
	if err != nil || string(st.Comm) != "hot-spinner" || st.State != 'R' || st.Utime != 814 || st.Stime != 2 || st.Threads != 26 || st.Start != 95956 || st.CPU != 1 || st.MinFlt != 24 {
		t.Errorf("%+v %v", st, err)
	}
	// A name with spaces and parentheses.
	st, err = parsePidStat([]byte("42 (a) b (c)) S 1 1 1 0 -1 0 5 0 6 0 7 8 0 0 20 0 1 0 99 0 0"), &sc)
	if err != nil || string(st.Comm) != "a) b (c)" || st.Utime != 7 || st.MajFlt != 6 || st.Start != 99 || st.CPU != -1 {
		t.Errorf("%+v %v", st, err)
	}
	for _, in := range []string{"", "1 (x", "1 (x) S 1 2", "1 (x) S 1 1 1 0 -1 0 5 0 6 0 7 z 0 0 20 0 1 0 99 0 0"} {
		if _, err := parsePidStat([]byte(in), &sc); !errors.Is(err, ErrParse) {
			t.Errorf("%q: %v", in, err)
		}
	}
	run, wait, err := parseSchedstat([]byte("8167360219 2919600084 10279\n"), &sc)
	if err != nil || run != 8167360219 || wait != 2919600084 {
		t.Errorf("schedstat %d %d %v", run, wait, err)
	}
	v, n, err := parseCtxtSwitches([]byte("Name:\tjava\nvoluntary_ctxt_switches:\t353\nnonvoluntary_ctxt_switches:\t74\n"), new(ProcStatus))
	if err != nil || v != 353 || n != 74 {
		t.Errorf("ctxt %d %d %v", v, n, err)
	}
	if _, _, err := parseCtxtSwitches([]byte("Name:\tjava\n"), new(ProcStatus)); !errors.Is(err, ErrParse) {
		t.Errorf("%v", err)
	}
}

func TestParseLimitsAndStatus(t *testing.T) {
	var sc scratch
	var pr Proc
	lim := "Limit                     Soft Limit           Hard Limit           Units     \nMax open files            20000                unlimited            files     \n"
	if err := parseLimits([]byte(lim), &pr, &sc); err != nil || pr.FDSoft != 20000 || pr.FDHard != Unlimited {
		t.Errorf("%+v %v", pr, err)
	}
	if err := parseLimits([]byte("Max open files  x y files\n"), &pr, &sc); !errors.Is(err, ErrParse) {
		t.Errorf("%v", err)
	}
	if err := parseProcStatus([]byte("Name:\tjava\nVmSize:\t   48500 kB\nVmRSS:\t   17600 kB\nRssAnon:\t   11284 kB\nRssFile:\t       8 kB\nVmSwap:\t       3 kB\n"), &pr, new(ProcStatus)); err != nil {
		t.Fatal(err)
	}
	if pr.RSSKB != 17600 || pr.AnonKB != 11284 || pr.SwapKB != 3 || pr.VSizeKB != 48500 {
		t.Errorf("%+v", pr)
	}
}

func TestAppendJSONString(t *testing.T) {
	for in, want := range map[string]string{
		"C2 CompilerThre": `"C2 CompilerThre"`,
		`a"b\c`:           `"a\"b\\c"`,
		"x\x01\ty":        `"x\u0001\u0009y"`,
		"bad\xffutf":      `"bad\ufffdutf"`,
		"线程-1":            `"线程-1"`,
	} {
		if got := string(appendJSONString(nil, in)); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

const tcpSample = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:07E8 00000000:0000 0A 00000000:00000003 00:00000000 00000000     0        0 1602 1 000000008ee499c8 100 0 0 10 0
   1: 020200C0:87A8 507100CB:01BB 06 00000000:00000000 03:0000019B 00000000     0        0 0 3 00000000e7d90d95
   2: 020200C0:87AA 507100CB:01BB 08 00000000:00000000 00:00000000 00000000     0        0 0 3 00000000e7d90d95
`

func TestParseTCPStates(t *testing.T) {
	ts := &TCPStates{States: map[string]uint64{}}
	if err := parseTCPStates([]byte(tcpSample), ts); err != nil {
		t.Fatal(err)
	}
	if ts.States["LISTEN"] != 1 || ts.States["TIME_WAIT"] != 1 || ts.States["CLOSE_WAIT"] != 1 ||
		len(ts.Listen) != 1 || ts.Listen[0].Port != 2024 || ts.Listen[0].Queue != 3 {
		t.Errorf("%+v", ts)
	}
	err := parseTCPStates([]byte(tcpSample+"   3: 0:0 0:0 XY 0:0\n"), ts)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 5") {
		t.Errorf("%v", err)
	}
}

// TestParseInterruptsForms covers every row form either former parser
// (sample's sampler, sysinfo's host facts) accepted, in both views: the
// whole file (ParseInterrupts, host facts) and the sampler's.
func TestParseInterruptsForms(t *testing.T) {
	type row struct {
		irq, chip, action string
		counts            []uint64
	}
	tests := []struct {
		name   string
		in     string
		all    []row             // ParseInterrupts' rows
		global map[string]uint64 // host-wide one-count rows
		sample int               // rows the sampler keeps
		sErr   string            // the sampler's error ("" none)
	}{
		{"x86 virtio msix", "           CPU0       CPU1       \n 38:          0        645 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n",
			[]row{{"38", "PCI-MSIX-0000:00:03.0", "virtio2-input.0", []uint64{0, 645}}}, nil, 1, ""},
		{"centos7 chip with trigger", "           CPU0       CPU1       \n 40:   12   0   IR-PCI-MSI-edge      eth0-TxRx-0\n",
			[]row{{"40", "IR-PCI-MSI-edge", "eth0-TxRx-0", []uint64{12, 0}}}, nil, 1, ""},
		{"arm64 ITS hwirq Edge", "           CPU0       CPU1\n 63:          9          0   ITS-MSI 524288 Edge      hinic0_queue0\n",
			[]row{{"63", "ITS-MSI", "hinic0_queue0", []uint64{9, 0}}}, nil, 1, ""},
		{"arm64 GICv3 Level", "      CPU0  CPU1\n 11:  4508  3322  GICv3  27 Level     arch_timer\n",
			[]row{{"11", "GICv3", "arch_timer", []uint64{4508, 3322}}}, nil, 1, ""},
		{"arm64 GICv3 ppi, hns3 queue", "           CPU0       CPU1       CPU2       CPU3\n 76:          0          0        412          0   ITS-MSI 524288 Edge      hns3-0000:7d:00.0-TxRx-0\n",
			[]row{{"76", "ITS-MSI", "hns3-0000:7d:00.0-TxRx-0", []uint64{0, 0, 412, 0}}}, nil, 1, ""},
		{"names with spaces, fasteoi", "   CPU0\n 16:  5  IO-APIC  16-fasteoi   ehci_hcd:usb1, uhci_hcd:usb2\n",
			[]row{{"16", "IO-APIC", "ehci_hcd:usb1, uhci_hcd:usb2", []uint64{5}}}, nil, 1, ""},
		{"no action name, all zero", "   CPU0 CPU1\n  2:  0  0  XT-PIC-XT-PIC  \n",
			[]row{{"2", "XT-PIC-XT-PIC", "", []uint64{0, 0}}}, nil, 0, ""},
		{"NMI LOC named rows with spaces", "   CPU0 CPU1\nNMI:  0  0   Non-maskable interrupts\nLOC:  52856  52104   Local timer interrupts\n",
			[]row{{"NMI", "", "Non-maskable interrupts", []uint64{0, 0}}, {"LOC", "", "Local timer interrupts", []uint64{52856, 52104}}}, nil, 1, ""},
		{"arm64 IPI rows", "   CPU0 CPU1\nIPI0:  30233  31054   Rescheduling interrupts\n",
			[]row{{"IPI0", "", "Rescheduling interrupts", []uint64{30233, 31054}}}, nil, 1, ""},
		{"x86 ERR MIS host-wide", "   CPU0 CPU1\n 24: 1 0 IO-APIC 5-edge ACPI:Ged\nERR:  0\nMIS:  7\n",
			[]row{{"24", "IO-APIC", "ACPI:Ged", []uint64{1, 0}}}, map[string]uint64{"ERR": 0, "MIS": 7}, 1, ""},
		{"arm64 Err host-wide", "   CPU0 CPU1\nErr:  3\n", nil, map[string]uint64{"Err": 3}, 0, ""},
		{"one CPU: ERR is a row", "   CPU0\nERR:  3\n", []row{{"ERR", "", "", []uint64{3}}}, nil, 1, ""},
		{"fewer counts than CPUs (CPU went offline mid-read)", "   CPU0 CPU1 CPU2\n 40: 7 8 PCI-MSI eth0-rx\n 41: 1 2 3 PCI-MSI eth0-tx\n",
			[]row{{"40", "PCI-MSI", "eth0-rx", []uint64{7, 8}}, {"41", "PCI-MSI", "eth0-tx", []uint64{1, 2, 3}}}, nil, 1, "line 2: fewer counts than CPUs"},
		{"short row with no name", "           CPU0       CPU1\n  24:          1\n",
			[]row{{"24", "", "", []uint64{1}}}, nil, 0, "line 2: fewer counts than CPUs"},
		{"offline CPU in header", "   CPU0 CPU2\n 5: 1 2 chip dev\n", []row{{"5", "chip", "dev", []uint64{1, 2}}}, nil, 1, ""},
		{"blank lines", "   CPU0\n\n 5: 1 chip dev\n\n", []row{{"5", "chip", "dev", []uint64{1}}}, nil, 1, ""},
	}
	for _, tt := range tests {
		irq, err := ParseInterrupts([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var got []row
		for _, r := range irq.Rows {
			chip, action := "", r.Name // NMI, LOC, IPI0: a description, no chip
			if _, numeric := atou([]byte(r.IRQ)); numeric {
				chip, action = IRQDevice(r.Name)
			}
			got = append(got, row{r.IRQ, chip, action, r.Counts})
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.all) || fmt.Sprint(irq.Global) != fmt.Sprint(tt.global) {
			t.Errorf("%s: rows %v global %v, want %v %v", tt.name, got, irq.Global, tt.all, tt.global)
		}
		var sc scratch
		s, err := parseInterrupts([]byte(tt.in), &sc, false)
		if len(s.Rows) != tt.sample {
			t.Errorf("%s: sampler kept %d rows, want %d", tt.name, len(s.Rows), tt.sample)
		}
		if (err == nil) != (tt.sErr == "") || (err != nil && !strings.Contains(err.Error(), tt.sErr)) {
			t.Errorf("%s: sampler error %v, want %q", tt.name, err, tt.sErr)
		}
	}
	for _, bad := range []struct{ in, err string }{
		{"", "line 1: empty"},
		{"garbage\n", "line 1: bad CPU header"},
		{"  CPU0\n 1: x y\n", "line 2: no counts"},
		{"  CPU0\n 1: 5 chip a\n 2: x\n", "line 3: no counts"},
		{"  CPU0\n 1: 5 chip a\nno colon here\n", "line 3: no IRQ id"},
		{"  CPU0\n : 5\n", "line 2: no IRQ id"},
	} {
		if _, err := ParseInterrupts([]byte(bad.in)); err == nil || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("ParseInterrupts(%q) = %v, want %q", bad.in, err, bad.err)
		}
	}
}

// TestParsePidStatForms covers every /proc/PID/stat line any of the five
// former readers took (sample's samplers; jmeter's parseStatTicks, 13
// fields; apply's startTime and launch's statFields, cut at the last ')';
// experiment's waitStopped, the byte two after the last ')'), and what the
// one parser refuses.
func TestParsePidStatForms(t *testing.T) {
	const rest = " 1782 1782 13811 0 -1 4194368 24 0 3 0 814 2 0 0 20 0 26 0 95956 2709745664 19195 18446744073709551615 94107109421056 94107109421941 140736239974608 0 0 0 4 0 16800975 0 0 0 -1 1 0 0 0 0 0 94107109432640 94107109433368 94107545206784 140736239983080 140736239983109 140736239983109 140736239984618 0"
	for _, c := range []struct {
		in, comm string
		state    byte
		ppid     uint64
		cpu      int64
		bad      bool
	}{
		{in: "1847 (hot-spinner) R" + rest, comm: "hot-spinner", state: 'R', ppid: 1782, cpu: 1},
		{in: "1847 (hot-spinner) R" + rest + "\n", comm: "hot-spinner", state: 'R', ppid: 1782, cpu: 1},
		{in: "1808 (C2 CompilerThre) S" + rest, comm: "C2 CompilerThre", state: 'S', ppid: 1782, cpu: 1},
		// a comm holding ") (", a lone ")", digits and nothing at all: the last ')' ends it
		{in: "42 (a) (b) T" + rest, comm: "a) (b", state: 'T', ppid: 1782, cpu: 1},
		{in: "42 ()) Z" + rest, comm: ")", state: 'Z', ppid: 1782, cpu: 1},
		{in: "42 (1 2 3) S" + rest, comm: "1 2 3", state: 'S', ppid: 1782, cpu: 1},
		{in: "42 () t" + rest, comm: "", state: 't', ppid: 1782, cpu: 1},
		// a comm with a tab and a newline in it (prctl(PR_SET_NAME) allows both)
		{in: "42 (a\tb\nc) D" + rest, comm: "a\tb\nc", state: 'D', ppid: 1782, cpu: 1},
		// an old kernel's 22 fields exactly, newline-terminated: processor absent
		{in: "1 (init) S 0 1 1 0 -1 4194560 5 0 3 0 814 2 0 0 20 0 26 0 95956\n", comm: "init", state: 'S', cpu: -1},
		// refused: no parentheses, a state that is not one byte, too few fields
		// (jmeter took 13, launch and experiment the state alone; the kernel
		// writes 44 or more), a non-number where a count stands
		{in: "", bad: true},
		{in: "1847 hot-spinner R" + rest, bad: true},
		{in: "1847 (hot-spinner R" + rest, bad: true},
		{in: "1847 )x( R" + rest, bad: true},
		{in: "1847 (x) RS" + rest, bad: true},
		{in: "1847 (x) R 1782 1782 13811 0 -1 4194368 24 0 3 0 814 2", bad: true},
		{in: "1847 (x) T", bad: true},
		{in: "1847 (x) R -1" + rest[5:], bad: true},
		{in: "1847 (x) R 1782 1782 13811 0 -1 4194368 24 0 3 0 81x 2 0 0 20 0 26 0 95956", bad: true},
		{in: "1847 (x) R 1782 1782 13811 0 -1 4194368 24 0 3 0 814 2 0 0 20 0 26 0 99999999999999999999999", bad: true},
	} {
		st, err := ParsePidStat([]byte(c.in))
		if c.bad {
			if !errors.Is(err, ErrParse) {
				t.Errorf("%q: err %v, want ErrParse", c.in, err)
			}
			continue
		}
		if err != nil || string(st.Comm) != c.comm || st.State != c.state || st.PPID != c.ppid || st.CPU != c.cpu ||
			st.Utime != 814 || st.Stime != 2 || st.Start != 95956 || st.Threads != 26 || st.MinFlt != 5 && st.MinFlt != 24 {
			t.Errorf("%q: %+v %v", c.in, st, err)
		}
	}
}

// This process's own stat line reads back its parent, a start time and
// its state (the main thread's: running or asleep while a test goroutine reads).
func TestParsePidStatSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	st, err := ParsePidStat(b)
	if err != nil {
		t.Fatal(err)
	}
	if int(st.PPID) != os.Getppid() || st.Start == 0 || !strings.ContainsRune("RSD", rune(st.State)) || st.Threads == 0 || string(st.Comm) == "" {
		t.Errorf("%+v", st)
	}
}
