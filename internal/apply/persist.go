package apply

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// PersistFile is the sysctl.d file `apply --persist` writes (the one the
// knowledge base's Persist lines name).
const PersistFile = "/etc/sysctl.d/90-tuneloop.conf"

// PersistPlan plans making what transaction id verified outlive a reboot
// or a restart, as a transaction of its own (reverting it restores each
// file as it was, or removes it): its sysctls into PersistFile (lines of
// the file for other keys are kept), and its process limits into a
// systemd drop-in of the service's unit (unit: the process's cgroup's
// service when "").
func PersistPlan(j *Journal, id, unit string) (*Plan, error) {
	recs, err := j.read(id)
	if err != nil {
		return nil, err
	}
	t := fold(id, recs)
	if t.Persist {
		return nil, fmt.Errorf("transaction %s is itself a persistence step", id)
	}
	set := map[string]string{}
	for _, k := range t.Keys {
		if k.Kind == finding.ChangeSysctl && k.State == OpVerified {
			set[k.Key] = strings.Join(strings.Fields(k.Want), " ")
		}
	}
	limits, err := limitSteps(t.Roots, t.Keys, unit)
	if err != nil {
		return nil, err
	}
	if len(set) == 0 && len(limits) == 0 {
		return nil, fmt.Errorf("transaction %s has no applied sysctl or process limit to persist (sysctls persist through %s, limits through a systemd drop-in)", id, PersistFile)
	}
	p := &Plan{Roots: t.Roots, Persist: true}
	var steps []Step
	if len(set) > 0 {
		ts, err := resolve(t.Roots, finding.Change{Kind: KindFile, Key: PersistFile})
		if err != nil {
			return nil, err
		}
		old, absent, err := knobOf(ts[0], t.Roots).read()
		if err != nil {
			return nil, err
		}
		steps = append(steps, Step{Kind: KindFile, Key: PersistFile, Path: ts[0].Path, Before: old, BeforeAbsent: absent, Want: mergeSysctlConf(old, set, id)})
	}
	steps = append(steps, limits...)
	p.Groups = append(p.Groups, PlannedGroup{Finding: "persist " + id, Steps: steps})
	return p, nil
}

// mergeSysctlConf replaces the lines of keys in set and appends the rest.
func mergeSysctlConf(old string, set map[string]string, id string) string {
	var out []string
	if old == "" {
		out = append(out, "# Written by tuneloop apply --persist; tuneloop revert removes what it added.")
	}
	done := map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(old, "\n"), "\n") {
		if line == "" && len(out) == 0 {
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if v, mine := set[k]; ok && mine && !strings.HasPrefix(k, "#") {
			out = append(out, k+" = "+v)
			done[k] = true
			continue
		}
		out = append(out, line)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		if !done[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		out = append(out, "# transaction "+id)
	}
	for _, k := range keys {
		out = append(out, k+" = "+set[k])
	}
	return strings.Join(out, "\n") + "\n"
}
