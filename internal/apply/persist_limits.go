package apply

// Process limits persist as a systemd drop-in of the service's unit: prlimit
// changes the running process only, and systemd sets a service's limits
// when it starts it (LimitNOFILE= and kin), so that is where a limit
// outlives a restart. The unit is read from the process's cgroup:
//
//	0::/system.slice/app.service                      (cgroup v2)
//	1:name=systemd:/system.slice/app.service          (v1)
//	0::/user.slice/user-1000.slice/user@1000.service/app.slice/app.service
//
// the innermost *.service of the path.

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/units"
)

// limitDirective is the systemd directive that sets a prlimit resource.
func limitDirective(res string) (string, bool) {
	switch res {
	case "nofile":
		return "LimitNOFILE", true
	case "nproc":
		return "LimitNPROC", true
	}
	return "", false
}

// unitOf is the systemd service whose cgroup holds pid ("" when none).
func unitOf(h hostfs.FS, pid int) (unit, cgroup string, err error) {
	s, err := h.ReadString(h.ProcPath(strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return "", "", err
	}
	return unitInCgroup(s), strings.TrimSpace(s), nil
}

// unitInCgroup picks the innermost *.service of the systemd hierarchy's
// path (v2's 0:: line or v1's name=systemd) in /proc/PID/cgroup's text
// (sample.ParseCgroup; its good lines count).
func unitInCgroup(s string) string {
	ls, _ := sample.ParseCgroup([]byte(s))
	for _, l := range ls {
		if l.ID != 0 && !slices.Equal(l.Controllers, []string{"name=systemd"}) {
			continue
		}
		parts := strings.Split(l.Path, "/")
		for i := len(parts) - 1; i >= 0; i-- {
			if strings.HasSuffix(parts[i], ".service") && dropinRE.MatchString(DropinPath(parts[i], "limits")) {
				return parts[i]
			}
		}
	}
	return ""
}

// systemdLimit writes a limit (SOFT:HARD or one value, in any of the
// forms units.ParseRlimitValue reads) as systemd takes it: unlimited is
// "infinity".
func systemdLimit(v string) string {
	word := func(x string) string {
		n, ok := units.ParseRlimitValue(strings.TrimSpace(x))
		switch {
		case !ok:
			return strings.TrimSpace(x) // verified before it is persisted
		case n == units.RlimInfinity:
			return "infinity"
		}
		return strconv.FormatUint(n, 10)
	}
	soft, hard, pair := strings.Cut(strings.TrimSpace(v), ":")
	if !pair {
		return word(soft)
	}
	return word(soft) + ":" + word(hard)
}

// limitSteps plans the drop-ins that persist the verified process limits
// of a transaction: one per unit, 50-tuneloop-limits.conf. unit, when
// given, is the service to write for (a process whose cgroup names none,
// e.g. one started by another supervisor under a systemd service).
func limitSteps(roots hostfs.FS, keys []Key, unit string) ([]Step, error) {
	byUnit := map[string][]string{}
	for _, k := range keys {
		if k.Kind != finding.ChangePrlimit || k.State != OpVerified {
			continue
		}
		pid, res, _ := strings.Cut(k.Key, "/")
		dir, ok := limitDirective(res)
		if !ok {
			continue
		}
		u := unit
		if u == "" {
			n, _ := strconv.Atoi(pid)
			found, cg, err := unitOf(roots, n)
			if err != nil {
				return nil, fmt.Errorf("process %s: its systemd unit: %w (give --unit NAME)", pid, err)
			}
			if found == "" {
				return nil, fmt.Errorf("process %s is in no systemd service's cgroup (%q): give --unit NAME, or raise the limit where the service is started (its start script's ulimit)", pid, cg)
			}
			u = found
		}
		byUnit[u] = append(byUnit[u], dir+"="+systemdLimit(k.Want))
	}
	units := make([]string, 0, len(byUnit))
	for u := range byUnit {
		units = append(units, u)
	}
	sort.Strings(units)
	var steps []Step
	for _, u := range units {
		ds := byUnit[u]
		sort.Strings(ds)
		c, err := Dropin(u, "limits", "Service", ds)
		if err != nil {
			return nil, err
		}
		ts, err := resolve(roots, c)
		if err != nil {
			return nil, err
		}
		old, absent, err := knobOf(ts[0], roots).read()
		if err != nil {
			return nil, err
		}
		steps = append(steps, Step{Kind: KindDropin, Key: c.Key, Path: ts[0].Path, Before: old, BeforeAbsent: absent, Want: c.Value})
	}
	return steps, nil
}
