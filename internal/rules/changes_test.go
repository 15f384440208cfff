package rules

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// TestChangesMatchApplyLines: the machine-readable changes `tuneloop apply`
// uses say the same as the Apply lines a user would type, and the knob
// rules listed in the issue carry them on the fixture hosts.
func TestChangesMatchApplyLines(t *testing.T) {
	withChanges := map[string]bool{}
	for _, host := range []string{"kunpeng920-2s4n", "centos7-3.10-cgv1", "build-vm-amd64", "container-quota"} {
		facts := fixture(t, host)
		for _, p := range Profiles {
			for _, f := range Evaluate(All(), facts, p) {
				if f.Status != finding.Fail {
					if len(f.Fix.Changes) > 0 {
						t.Errorf("%s %s: changes on a %s finding", host, f.Key(), f.Status)
					}
					continue
				}
				for _, c := range f.Fix.Changes {
					withChanges[f.ID] = true
					var line string
					switch c.Kind {
					case finding.ChangeSysctl:
						line = c.Key + "="
					case finding.ChangeSysfs:
						line = "> " + c.Key
						if strings.Contains(c.Key, "*") {
							line = c.Key
						}
					case finding.ChangePrlimit:
						pid, res, _ := strings.Cut(c.Key, "/")
						line = "prlimit --pid " + pid + " --" + res + "=" + c.Value
					case finding.ChangeEthtool:
						ifc, _, _ := strings.Cut(c.Key, "/")
						line = "ethtool -L " + ifc + " combined " + c.Value
					default:
						t.Errorf("%s %s: unknown change kind %q", host, f.Key(), c.Kind)
					}
					if !strings.Contains(f.Fix.Apply, line) || !strings.Contains(f.Fix.Apply, strings.Fields(c.Value)[0]) {
						t.Errorf("%s %s: change %+v is not what Apply says:\n%s", host, f.Key(), c, f.Fix.Apply)
					}
				}
				if len(f.Fix.Changes) == 0 && (strings.HasPrefix(f.Fix.Apply, "sysctl -w") || strings.HasPrefix(f.Fix.Apply, "echo ")) {
					t.Errorf("%s %s: a knob fix without changes: %s", host, f.Key(), f.Fix.Apply)
				}
			}
		}
	}
	for _, id := range []string{"net.socket-buffers", "mem.thp.enabled", "cpu.governor", "nic.irq.concentration", "nic.rps", "jvm.limits.nofile", "nic.queues", "mem.max-map-count"} {
		if !withChanges[id] {
			t.Errorf("%s: no failing finding with changes on any fixture host", id)
		}
	}
}
