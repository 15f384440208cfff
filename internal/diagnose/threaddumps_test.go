package diagnose

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

const hotDump = `2026-11-22 01:00:05
Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing):

"hot-worker" #21 prio=5 os_prio=0 cpu=2000.00ms elapsed=3.00s tid=0x00007f0000001000 nid=0xc8 runnable  [0x00007f0000002000]
   java.lang.Thread.State: RUNNABLE
	at com.example.Ledger.post(Ledger.java:42)
	at com.example.Worker.run(Worker.java:10)
	at java.lang.Thread.run(java.base@17.0.15/Thread.java:840)

"main" #1 prio=5 os_prio=0 cpu=100.00ms elapsed=3.10s tid=0x00007f0000003000 nid=0x64 waiting on condition  [0x00007f0000004000]
   java.lang.Thread.State: TIMED_WAITING (sleeping)
	at java.lang.Thread.sleep(java.base@17.0.15/Native Method)
	at Busy.main(Busy.java:16)

`

// The hot thread is joined by nid to the dump taken during the run.
func TestSerialJoinedToThreadDump(t *testing.T) {
	s := series(6, 2, func(_ int, t *Tick) { serial(t, 97, 3, 2) })
	in := Input{Facts: facts(2), Target: diagTarget, Series: s, Start: t0,
		Dumps: dumpSet("raw/threaddump-1.txt", hotDump)}
	f := find(Diagnose(in), IDSerialThread)
	if f == nil {
		t.Fatal("no serial finding")
	}
	if !strings.Contains(f.Observed.EN, `Java thread "hot-worker", RUNNABLE, at com.example.Ledger.post(Ledger.java:42)`) {
		t.Errorf("not joined: %s", f.Observed.EN)
	}
	stack := ""
	for _, e := range f.Evidence {
		if e.Key == "stack" {
			stack = e.Value
		}
	}
	if !strings.HasPrefix(stack, "at com.example.Ledger.post(Ledger.java:42)\nat com.example.Worker.run") {
		t.Errorf("stack evidence: %q", stack)
	}
	// An unreadable dump is reported, not fatal.
	in.Dumps = dumpSet("raw/threaddump-1.txt", "not a dump\n")
	fs := Diagnose(in)
	if find(fs, IDSerialThread) == nil {
		t.Fatal("serial finding lost")
	}
	bad := false
	for _, x := range fs {
		bad = bad || x.ID == IDThreadDumps && x.Status == "unavailable"
	}
	if !bad {
		t.Errorf("unreadable dump not reported: %v", ids(fs))
	}
}

func dumpSet(name, text string) *threaddump.Set {
	return threaddump.ReadSet([]threaddump.Input{{Name: name, R: strings.NewReader(text)}})
}
