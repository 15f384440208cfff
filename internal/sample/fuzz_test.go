package sample

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Every parser gets arbitrary bytes: it must not panic, and what it
// reports must be a parse error naming a line.

func checkParseErr(t *testing.T, err error) {
	t.Helper()
	if err != nil && (!errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line ")) {
		t.Fatalf("error without ErrParse and a line: %v", err)
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte(statSample))
	f.Add([]byte("cpu 1 2 3 4\nintr \nctxt\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		checkParseErr(t, parseStat(b, new(Stat), &sc))
	})
}

func FuzzParseLoadAvg(f *testing.F) {
	f.Add([]byte("0.28 0.28 0.11 2/94 14258\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		_, err := parseLoadAvg(b, &sc)
		checkParseErr(t, err)
	})
}

func FuzzParseSoftirqs(f *testing.F) {
	f.Add([]byte(softirqSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		si, err := parseSoftirqs(b, &sc)
		checkParseErr(t, err)
		for _, r := range si.Rows {
			if len(r.Counts) != len(si.CPUs) {
				t.Fatalf("row %q has %d counts for %d CPUs", r.Type, len(r.Counts), len(si.CPUs))
			}
		}
	})
}

func FuzzParseInterrupts(f *testing.F) {
	f.Add([]byte(irqSample))
	f.Add([]byte(irqArm64Sample))
	f.Add([]byte("   CPU0 CPU1 CPU2\n 40: 7 8 PCI-MSI eth0-rx\n 16: 5 0 1 IO-APIC 16-fasteoi ehci_hcd:usb1, uhci_hcd:usb2\nErr: 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		irq, err := parseInterrupts(b, &sc, false)
		checkParseErr(t, err)
		if irq != nil {
			for _, r := range irq.Rows {
				if len(r.Counts) != len(irq.CPUs) {
					t.Fatalf("row %q: %d counts for %d CPUs", r.IRQ, len(r.Counts), len(irq.CPUs))
				}
			}
		}
		all, err := ParseInterrupts(b)
		checkParseErr(t, err)
		if all != nil {
			for _, r := range all.Rows {
				if len(r.Counts) == 0 || len(r.Counts) > len(all.CPUs) {
					t.Fatalf("row %q: %d counts for %d CPUs", r.IRQ, len(r.Counts), len(all.CPUs))
				}
				IRQDevice(r.Name)
			}
		}
	})
}

func FuzzParseMeminfoVmstatNumastat(f *testing.F) {
	f.Add([]byte("MemTotal:       24684096 kB\nHugePages_Total:       0\n"))
	f.Add([]byte("pgfault 4704608\nnuma_hit 5017417\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		checkParseErr(t, parseMeminfo(b, map[string]uint64{}, &sc))
		checkParseErr(t, parseVmstat(b, map[string]uint64{}, nil, &sc))
		_, err := parseNumastat(b, &sc)
		checkParseErr(t, err)
	})
}

func FuzzParseDiskstats(f *testing.F) {
	f.Add([]byte(diskSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		_, err := parseDiskstats(b, nil, &sc)
		checkParseErr(t, err)
	})
}

func FuzzParseNetDev(f *testing.F) {
	f.Add([]byte(netDevSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		_, err := parseNetDev(b, nil, &sc)
		checkParseErr(t, err)
	})
}

func FuzzParseSnmp(f *testing.F) {
	f.Add([]byte(snmpSample))
	f.Add([]byte(netstatSample))
	f.Add([]byte("TCP: inuse 1 orphan 0 tw 3 alloc 1 mem 120\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		checkParseErr(t, parseSnmp(b, map[string]uint64{}, nil, &sc))
		checkParseErr(t, parseSnmp(b, map[string]uint64{}, keepSet(), &sc))
		checkParseErr(t, parseSockstat(b, new(TCP), &sc))
	})
}

func FuzzParsePSI(f *testing.F) {
	f.Add([]byte("some avg10=11.65 avg60=13.00 avg300=7.28 total=37225302\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		_, err := parsePSI(b, &sc)
		checkParseErr(t, err)
	})
}

func FuzzParseProcFiles(f *testing.F) {
	f.Add([]byte("1847 (hot-spinner) R 1782 1782 13811 0 -1 4194368 24 0 0 0 814 2 0 0 20 0 26 0 95956 2709745664 19195 18446744073709551615 94107109421056 94107109421941 140736239974608 0 0 0 4 0 16800975 0 0 0 -1 1 0 0 0 0 0\n"))
	f.Add([]byte("8167360219 2919600084 10279\n"))
	f.Add([]byte("voluntary_ctxt_switches:\t353\nnonvoluntary_ctxt_switches:\t74\nMax open files 1 2 files\nVmRSS:\t 5 kB\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc scratch
		_, err := parsePidStat(b, &sc)
		checkParseErr(t, err)
		_, _, err = parseSchedstat(b, &sc)
		checkParseErr(t, err)
		_, _, err = parseCtxtSwitches(b, new(ProcStatus))
		checkParseErr(t, err)
		var pr Proc
		checkParseErr(t, parseLimits(b, &pr, &sc))
		checkParseErr(t, parseProcStatus(b, &pr, new(ProcStatus)))
	})
}

// FuzzThreadsJSON: thread names are arbitrary bytes; what MarshalJSON
// writes is valid JSON that reads back.
func FuzzThreadsJSON(f *testing.F) {
	f.Add("C2 CompilerThre", byte('S'), uint64(814))
	f.Add("bad\xff\"\\\x00", byte(0), uint64(1<<63))
	f.Fuzz(func(t *testing.T, name string, state byte, v uint64) {
		ts := Threads{{TID: 7, Name: name, State: state, CPU: -1, Utime: v, RunNS: v}}
		b, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		var back Threads
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if len(back) != 1 || back[0].Utime != v || back[0].TID != 7 || back[0].CPU != -1 {
			t.Fatalf("%s -> %+v", b, back)
		}
		var garbage Threads
		_ = json.Unmarshal([]byte(name), &garbage) // must not panic
	})
}

func FuzzParseTCPStates(f *testing.F) {
	f.Add([]byte(tcpSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkParseErr(t, parseTCPStates(b, &TCPStates{States: map[string]uint64{}}))
	})
}

func FuzzParsePidStat(f *testing.F) {
	f.Add([]byte("42 (a) (b) T 1782 1782 13811 0 -1 4194368 24 0 3 0 814 2 0 0 20 0 26 0 95956 2709745664\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParsePidStat(b)
		checkParseErr(t, err)
		// The comm is what stands between a '(' and the last ')'.
		if err == nil && !bytes.HasSuffix(b[:bytes.LastIndexByte(b, ')')+1], append(append([]byte("("), st.Comm...), ')')) {
			t.Fatalf("%q -> %+v", b, st)
		}
	})
}
