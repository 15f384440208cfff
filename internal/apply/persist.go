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

// PersistPlan plans writing the sysctls verified by transaction id into
// PersistFile, as a transaction of its own (reverting it restores the file
// as it was, or removes it). Lines of the file for other keys are kept.
func PersistPlan(j *Journal, id string) (*Plan, error) {
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
	if len(set) == 0 {
		return nil, fmt.Errorf("transaction %s has no applied sysctl to persist (only sysctls persist through %s)", id, PersistFile)
	}
	ts, err := resolve(t.Roots, finding.Change{Kind: KindFile, Key: PersistFile})
	if err != nil {
		return nil, err
	}
	old, absent, err := knobOf(ts[0], t.Roots).read()
	if err != nil {
		return nil, err
	}
	content := mergeSysctlConf(old, set, id)
	p := &Plan{Roots: t.Roots, Persist: true}
	p.Groups = append(p.Groups, PlannedGroup{Finding: "persist " + id, Steps: []Step{{
		Kind: KindFile, Key: PersistFile, Path: ts[0].Path, Before: old, BeforeAbsent: absent, Want: content}}})
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
