package diagnose

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// nicFacts is a host with loopback and the given NICs.
func nicFacts(nics ...sysinfo.NIC) *sysinfo.Facts {
	f := facts(4)
	all := []sysinfo.NIC{{Name: "lo", Virtual: true, Loopback: true, SpeedMbps: -1}}
	f.NICs = sysinfo.Got(append(all, nics...), "/sys/class/net")
	return f
}

func evidence(f *finding.Finding, key string) string {
	for _, e := range f.Evidence {
		if e.Key == key {
			return e.Value
		}
	}
	return ""
}

// The rule at its edges: 90% of the link speed fires, just below does not;
// 97% is critical; half the run is sustained, less is not; a NIC without a
// known speed and loopback never fire.
func TestNICSaturatedEdges(t *testing.T) {
	const n = 10
	const gig = 1000 * 1e6 / 8 // bytes/s of 1000 Mb/s
	eth0 := sysinfo.NIC{Name: "eth0", Driver: "ixgbe", OperState: "up", SpeedMbps: 1000}
	traffic := func(name string, rx, tx float64, ticks int) func(i int, t *Tick) {
		return func(i int, t *Tick) {
			if i < ticks {
				t.NICs = append(t.NICs, NICRate{Name: name, RxBPS: rx, TxBPS: tx})
			}
		}
	}
	cases := []struct {
		name  string
		facts *sysinfo.Facts
		mut   func(i int, t *Tick)
		sev   finding.Severity // 0: no finding
		dir   string
	}{
		{"rx at 90%", nicFacts(eth0), traffic("eth0", 0.90*gig, 0, n), finding.Warning, "rx"},
		{"rx just below 90%", nicFacts(eth0), traffic("eth0", 0.8999*gig, 0, n), 0, ""},
		{"tx at 97% is critical", nicFacts(eth0), traffic("eth0", 0, 0.97*gig, n), finding.Critical, "tx"},
		{"tx just below 97% is a warning", nicFacts(eth0), traffic("eth0", 0, 0.9699*gig, n), finding.Warning, "tx"},
		{"both directions", nicFacts(eth0), traffic("eth0", 0.95*gig, 0.92*gig, n), finding.Warning, "rx+tx"},
		{"tx busier leads", nicFacts(eth0), traffic("eth0", 0.92*gig, 0.95*gig, n), finding.Warning, "tx+rx"},
		{"half the run", nicFacts(eth0), traffic("eth0", gig, 0, n/2), finding.Critical, "rx"},
		{"less than half the run", nicFacts(eth0), traffic("eth0", gig, 0, n/2-1), 0, ""},
		{"speed unknown (-1)", nicFacts(sysinfo.NIC{Name: "eth0", Virtual: true, SpeedMbps: -1}), traffic("eth0", 10*gig, 10*gig, n), 0, ""},
		{"speed 0", nicFacts(sysinfo.NIC{Name: "eth0", SpeedMbps: 0}), traffic("eth0", 10*gig, 10*gig, n), 0, ""},
		{"loopback with a speed", nicFacts(sysinfo.NIC{Name: "lo0", Loopback: true, SpeedMbps: 1000}), traffic("lo0", gig, gig, n), 0, ""},
		{"traffic on a NIC the facts do not know", nicFacts(eth0), traffic("eth1", gig, gig, n), 0, ""},
		{"no NIC facts", facts(4), traffic("eth0", gig, gig, n), 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := diag(series(n, 4, tc.mut), tc.facts)
			f := find(fs, IDNICSaturated)
			if tc.sev == 0 {
				if f != nil {
					t.Fatalf("finding %s: %s", f.Title.EN, f.Observed.EN)
				}
				return
			}
			if f == nil {
				t.Fatalf("no %s in %v", IDNICSaturated, ids(fs))
			}
			if f.Severity != tc.sev || evidence(f, "direction") != tc.dir || f.Subject != "eth0" {
				t.Fatalf("severity %v direction %q subject %q, want %v %q eth0", f.Severity, evidence(f, "direction"), f.Subject, tc.sev, tc.dir)
			}
			if evidence(f, "link_speed_mbps") != "1000" || !strings.Contains(f.Title.EN, "1 Gb/s") || !strings.Contains(f.Title.ZH, "1 Gb/s") {
				t.Errorf("the link speed is not stated: %q / %q, evidence %v", f.Title.EN, f.Title.ZH, f.Evidence)
			}
		})
	}
}

// The evidence says how busy the link was and where each number was read;
// the advice names the NIC in both languages.
func TestNICSaturatedEvidence(t *testing.T) {
	const gig = 1000 * 1e6 / 8
	s := series(10, 4, func(i int, t *Tick) {
		rx := 0.91 * gig
		if i == 3 {
			rx = 0.99 * gig
		}
		t.NICs = []NICRate{{Name: "eth0", RxBPS: rx, TxBPS: 0.1 * gig}}
	})
	f := find(diag(s, nicFacts(sysinfo.NIC{Name: "eth0", SpeedMbps: 1000})), IDNICSaturated)
	if f == nil {
		t.Fatal("no finding")
	}
	// mean (9 x 91 + 99) / 10 = 91.8
	if got := evidence(f, "rx_util_pct_mean"); got != "91.8%" {
		t.Errorf("rx mean %q, want 91.8%%", got)
	}
	if got := evidence(f, "rx_util_pct_peak"); got != "99.0%" {
		t.Errorf("rx peak %q, want 99.0%%", got)
	}
	if got := evidence(f, "rx_mbps_mean"); got != "918" {
		t.Errorf("rx Mb/s %q, want 918", got)
	}
	if evidence(f, "tx_util_pct_mean") != "" {
		t.Error("tx at 10% reported as saturated")
	}
	for _, e := range f.Evidence {
		if e.Key != "ticks" && e.Source == "" {
			t.Errorf("evidence %s without its source", e.Key)
		}
	}
	for _, txt := range []finding.Text{f.Title, f.Observed, f.Why, f.Recommended} {
		if txt.EN == "" || txt.ZH == "" {
			t.Fatalf("text missing a language: %+v", txt)
		}
	}
	if !strings.Contains(f.Recommended.EN, "ethtool eth0") || !strings.Contains(f.Recommended.ZH, "ethtool eth0") ||
		!strings.Contains(f.Recommended.EN, "compress") || !strings.Contains(f.Recommended.EN, "bonding") {
		t.Errorf("advice: %s", f.Recommended.EN)
	}
	if f.Window == nil || f.Confidence <= 0 {
		t.Errorf("no window or confidence: %+v", f)
	}
}

// recordedRun is a run recorded on a VM whose only traffic went over
// loopback (the load generator and the service on one host, ~8-12 Mb/s);
// its eth0 (speed unknown) moved no bytes during the run.
const recordedRun = "../verdict/testdata/runs/fsync-io"

// loopbackOnto rewrites recorded samples so that nic's byte and packet
// counters also carry loopback's: the recorded traffic, as if it had
// crossed that NIC.
func loopbackOnto(t *testing.T, gz []byte, nic string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	moved := 0
	for sc.Scan() {
		line := sc.Bytes()
		var snap map[string]json.RawMessage
		var devs []map[string]json.RawMessage
		if json.Unmarshal(line, &snap) != nil || snap["net"] == nil || json.Unmarshal(snap["net"], &devs) != nil {
			out.Write(line)
			out.WriteByte('\n')
			continue
		}
		var lo, to map[string]json.RawMessage
		for _, d := range devs {
			switch string(d["dev"]) {
			case `"lo"`:
				lo = d
			case strconv.Quote(nic):
				to = d
			}
		}
		if lo == nil || to == nil {
			t.Fatalf("samples without lo and %s: %s", nic, snap["net"])
		}
		for _, k := range []string{"rb", "rp", "tb", "tp"} {
			a, err1 := strconv.ParseUint(string(lo[k]), 10, 64)
			b, err2 := strconv.ParseUint(string(to[k]), 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("counter %s: %s, %s", k, lo[k], to[k])
			}
			to[k] = json.RawMessage(strconv.FormatUint(a+b, 10))
		}
		snap["net"], _ = json.Marshal(devs)
		b, _ := json.Marshal(snap)
		out.Write(b)
		out.WriteByte('\n')
		moved++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if moved < 10 {
		t.Fatalf("only %d samples with network counters", moved)
	}
	return out.Bytes()
}

// withSpeeds is a copy of the recorded host facts with the named NICs'
// link speeds replaced.
func withSpeeds(t *testing.T, f *sysinfo.Facts, speeds map[string]int) *sysinfo.Facts {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var c sysinfo.Facts
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for i := range c.NICs.Value {
		if s, ok := speeds[c.NICs.Value[i].Name]; ok {
			c.NICs.Value[i].SpeedMbps = s
		}
	}
	return &c
}

// On real recorded counters: the run's ~8-12 Mb/s of traffic (real, but
// over loopback: no testdata run moved bytes over a physical NIC) replayed
// as eth0's, with eth0's link speed set to 10 Mb/s in a copy of the host
// facts (a link mis-negotiated at 10 Mb/s), saturates it; the same traffic
// on loopback, on a NIC of unknown speed, or on a 100 Mb/s link does not.
func TestNICSaturatedOnRecordedRun(t *testing.T) {
	f, err := runfolder.Open(recordedRun)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(recordedRun + "/raw/samples.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	asRecorded, err := Build(zr)
	if err != nil {
		t.Fatal(err)
	}
	onEth0, err := Build(bytes.NewReader(loopbackOnto(t, raw, "eth0")))
	if err != nil {
		t.Fatal(err)
	}
	nicOf := func(s *Series, facts *sysinfo.Facts) *finding.Finding {
		return find(Diagnose(Input{Facts: facts, Target: f.Manifest.Target, Series: s, Start: f.Manifest.Start}), IDNICSaturated)
	}
	none := []struct {
		name   string
		s      *Series
		speeds map[string]int
	}{
		{"as recorded", asRecorded, nil},
		{"loopback's traffic, loopback given a 10 Mb/s speed", asRecorded, map[string]int{"lo": 10}},
		{"eth0 idle at 10 Mb/s", asRecorded, map[string]int{"eth0": 10}},
		{"eth0's speed unknown", onEth0, map[string]int{"eth0": -1}},
		{"eth0 at 100 Mb/s", onEth0, map[string]int{"eth0": 100}},
	}
	for _, r := range none {
		if got := nicOf(r.s, withSpeeds(t, f.Manifest.Facts, r.speeds)); got != nil {
			t.Errorf("%s: %s: %s", r.name, got.Title.EN, got.Observed.EN)
		}
	}
	got := nicOf(onEth0, withSpeeds(t, f.Manifest.Facts, map[string]int{"eth0": 10}))
	if got == nil {
		t.Fatal("eth0 at 10 Mb/s carrying the run's traffic: no finding")
	}
	// rx and tx carry the same loopback bytes: both saturated, ~110% of
	// 10 Mb/s on average (a 10 Mb/s link could not have carried it: the
	// point is the rule reads real counters and the facts' speed).
	if got.Subject != "eth0" || got.Severity != finding.Critical || evidence(got, "direction") != "rx+tx" ||
		evidence(got, "link_speed_mbps") != "10" {
		t.Fatalf("got %s %v %s: %v", got.Subject, got.Severity, got.Title.EN, got.Evidence)
	}
	mean, _ := strconv.ParseFloat(strings.TrimSuffix(evidence(got, "rx_util_pct_mean"), "%"), 64)
	if mean < 90 || mean > 125 {
		t.Errorf("rx mean utilisation %v%%, want the recorded ~8-12 Mb/s over 10 Mb/s", mean)
	}
	if ticks := evidence(got, "ticks"); !strings.HasPrefix(ticks, "13 of 17") {
		t.Errorf("ticks %q, want 13 of 17 (the ticks at >= 9 Mb/s)", ticks)
	}
}
