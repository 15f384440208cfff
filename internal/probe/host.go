package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// RunFile is where a run folder keeps the probe its findings cite (a copy:
// the run stays whole offline).
const RunFile = "raw/probe.json"

// DefaultRoot is where `tuneloop probe` writes its folders by default,
// relative to the working directory: probes/<time>-<host>/probe.json.
const DefaultRoot = "probes"

// maxFound bounds the probe folders Find reads (newest names first).
const maxFound = 200

// Identity is the host's name, kernel and CPU model from its facts (what a
// run's manifest and a probe both hold); empty fields are unknown.
func Identity(f *sysinfo.Facts) Host {
	var h Host
	if f == nil {
		return h
	}
	if f.Hostname.OK {
		h.Name = f.Hostname.Value
	}
	if f.Kernel.Release.OK {
		h.Kernel = f.Kernel.Release.Value
	}
	if f.CPU.Model.OK {
		h.CPUModel = f.CPU.Model.Value
	}
	return h
}

// SameHost says whether a probe of host a describes host b: the same
// hostname, kernel and CPU model (a field unknown on either side is not
// held against it, but the hostname must be known on both). When not,
// why names what differs.
func SameHost(a, b Host) (ok bool, why finding.Text) {
	if a.Name == "" || b.Name == "" {
		return false, finding.T("the hostname is unknown", "主机名未知")
	}
	var en, zh []string
	diff := func(what, zhWhat, x, y string, always bool) {
		if (always || (x != "" && y != "")) && x != y {
			en = append(en, fmt.Sprintf("%s %q, not %q", what, finding.SafeLine(x), finding.SafeLine(y)))
			zh = append(zh, fmt.Sprintf("%s为 %q 而非 %q", zhWhat, finding.SafeLine(x), finding.SafeLine(y)))
		}
	}
	diff("host", "主机", a.Name, b.Name, true)
	diff("kernel", "内核", a.Kernel, b.Kernel, false)
	diff("CPU", "CPU ", a.CPUModel, b.CPUModel, false)
	if len(en) == 0 {
		return true, finding.Text{}
	}
	return false, finding.T(strings.Join(en, ", "), strings.Join(zh, "，"))
}

// Read reads a probe folder's probe.json (or the file itself) as untrusted.
func Read(path string) (*Result, string, error) {
	p := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		p = filepath.Join(path, File)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, p, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, p, fmt.Errorf("%s: not a regular file", p)
	}
	r, err := Decode(f, p)
	return r, p, err
}

// Find is the newest probe under root (root/*/probe.json) of host h, and
// its file; nil when there is none. Folders that are not probes, or not
// readable, are passed over: root is where probes are kept, not evidence.
func Find(root string, h Host) (*Result, string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, ""
	}
	// Folder names begin with the time they were taken: newest last.
	slices.Reverse(ents)
	var best *Result
	var bestPath string
	n := 0
	for _, e := range ents {
		if !e.IsDir() || n >= maxFound {
			continue
		}
		n++
		r, p, err := Read(filepath.Join(root, e.Name()))
		if err != nil || r.Interrupted {
			continue
		}
		if ok, _ := SameHost(r.Host, h); !ok {
			continue
		}
		if best == nil || r.Start.After(best.Start) {
			best, bestPath = r, p
		}
	}
	return best, bestPath
}

// Costs are the figures of r as the audit's rules cite them; source is
// where r was read (its Origin, when r is a run's copy, is named too).
func (r *Result) Costs(source string) *rules.Probe {
	if r == nil {
		return nil
	}
	if r.Origin != "" && r.Origin != source {
		source = fmt.Sprintf("%s, from %s", source, finding.SafeLine(r.Origin))
	}
	p := &rules.Probe{Source: source, Taken: r.Start, Quick: r.Quick, Figures: make(map[string]rules.ProbeFigure, len(r.Figures))}
	for _, f := range r.Figures {
		p.Figures[f.ID] = rules.ProbeFigure{Median: f.Median, Lo: f.Lo, Hi: f.Hi, Unit: finding.SafeLine(f.Unit), Rounds: len(f.Rounds), OK: f.OK}
	}
	return p
}

// For is the probe that run and check cite for the host of facts: the one
// at path when given (an error when it cannot be read; refused, with a
// note saying why, when it is of another host), else the newest probe of
// this host under root (none: nil and no note). The result's Origin is
// the file it was read from.
func For(path, root string, facts *sysinfo.Facts) (*Result, string, finding.Text, error) {
	h := Identity(facts)
	var r *Result
	var file string
	if path != "" {
		var err error
		if r, file, err = Read(path); err != nil {
			return nil, "", finding.Text{}, err
		}
		if ok, why := SameHost(r.Host, h); !ok {
			return nil, "", finding.Tf(finding.T("--probe %s is a probe of another host (%s): not used", "--probe %s 是另一台主机的探测结果（%s）：未使用"),
				finding.SafeLine(path), why), nil
		}
	} else if r, file = Find(root, h); r == nil {
		return nil, "", finding.Text{}, nil
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	r.Origin = file
	return r, file, finding.Tf(finding.T("platform figures from the probe %s (taken %s)", "平台指标来自探测结果 %s（测于 %s）"),
		file, r.Start.UTC().Format("2006-01-02 15:04Z")), nil
}
