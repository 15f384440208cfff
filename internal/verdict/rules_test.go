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
