package verdict

import (
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// The verdict's rule set validates (both languages, a reference, unique
// IDs) and holds every ID the verdict builds a finding under.
func TestVerdictRulesValidate(t *testing.T) {
	if err := Validate(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{IDServiceExited, IDServiceStalled, IDServiceOOM, IDServiceInGC, IDHung, IDDelayedACK,
		IDGeneratorSaturated, IDHostTooSmall, IDLatencyBound, IDUnreadable, IDProbeRefused} {
		if verdictRules[id] == nil {
			t.Errorf("%s is not a rule of the set", id)
		}
	}
}

// A file of the folder that cannot be read is the engine's finding:
// unavailable, with the reason, and the rule's texts.
func TestUnreadableIsTheRulesFinding(t *testing.T) {
	L := &Layers{}
	L.problem("load.json", errFake("unexpected end of JSON input"))
	if len(L.Problems) != 1 {
		t.Fatalf("%d problems", len(L.Problems))
	}
	f := L.Problems[0]
	if f.ID != IDUnreadable || f.Status != finding.Unavailable || f.Subject != "load.json" ||
		f.Reason.EN != "load.json: unexpected end of JSON input" || f.Why.ZH == "" || len(f.References) == 0 {
		t.Errorf("%+v", f)
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }

// TestDelayedACKNeedsRequestsOffCPU: the two recorded delayed-ACK runs
// keep their verdict whether the service's CPU is known or only the
// host's; the same latency and delayed ACKs from a service that spent
// half of each request on a CPU are not the delayed ACK's doing (a
// request unanswered for 40 ms has its ACK delayed because it is slow).
func TestDelayedACKNeedsRequestsOffCPU(t *testing.T) {
	for _, run := range []string{"delayed-ack", "jdkhttp-delayed-ack"} {
		t.Run(run, func(t *testing.T) {
			L, err := Load("testdata/runs/" + run)
			if err != nil {
				t.Fatal(err)
			}
			fires := func() bool { return len(evalDelayedACK(&Input{L: L})) > 0 }
			if !fires() {
				t.Fatalf("no delayed ACK on the recorded run (p50 %.1f ms, service CPU %.1f%%)", L.Load.Latency.P50, L.Stats.ProcCPU)
			}
			proc := L.Stats.ProcCPU
			L.Stats.ProcCPU = -1 // no target: the host's CPU less the generator's
			if !fires() {
				t.Errorf("without the service's CPU the host's %.0f%% busy hid the delayed ACK", L.Stats.Busy)
			}
			// Half of p50 on a CPU per request, in % of one core.
			L.Stats.ProcCPU = L.Load.Latency.P50 / 2 / 1000 * L.Load.TPS * 100
			if fires() {
				t.Errorf("a delayed ACK with %.0f ms of CPU per request at p50 %.1f ms", L.Load.Latency.P50/2, L.Load.Latency.P50)
			}
			L.Stats.ProcCPU = proc
		})
	}
}
