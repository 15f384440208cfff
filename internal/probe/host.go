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
	if f.MachineID.OK {
		h.MachineID = f.MachineID.Value
	}
	return h
}

// SameHost says whether a probe of host a describes host b: the same
// hostname, kernel, CPU model and machine ID (a field unknown on either
// side is not held against it, but the hostname must be known on both).
// When not, why names what differs.
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
	if a.MachineID != "" && b.MachineID != "" && a.MachineID != b.MachineID {
		// The hashes say nothing to a reader: not shown.
		en = append(en, "another machine ID")
		zh = append(zh, "机器 ID 不同")
	}
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

// IsDir says whether dir is a probe folder: it holds a regular probe.json.
func IsDir(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, File))
	return err == nil && st.Mode().IsRegular()
}

// usable reads the probe at dir and keeps it when it ended (complete, not
// interrupted or killed) and is of host h.
func usable(dir string, h Host) (*Result, string) {
	r, p, err := Read(dir)
	if err != nil || r.State() != StatusComplete {
		return nil, ""
	}
	if ok, _ := SameHost(r.Host, h); !ok {
		return nil, ""
	}
	return r, p
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
		r, p := usable(filepath.Join(root, e.Name()), h)
		if r != nil && (best == nil || r.Start.After(best.Start)) {
			best, bestPath = r, p
		}
	}
	return best, bestPath
}

// Lookup lists the probe folders an index (the run catalog) holds for the
// host named name, newest first. For reads each one again: the index is
// only where to look.
type Lookup func(name string) ([]string, error)

// findIn is the newest usable probe of h among the folders lookup names.
func findIn(lookup Lookup, h Host) (*Result, string, error) {
	if lookup == nil || h.Name == "" {
		return nil, "", nil
	}
	dirs, err := lookup(h.Name)
	if err != nil {
		return nil, "", err
	}
	var best *Result
	var bestPath string
	for i, d := range dirs {
		if i >= maxFound {
			break
		}
		r, p := usable(d, h)
		if r != nil && (best == nil || r.Start.After(best.Start)) {
			best, bestPath = r, p
		}
	}
	return best, bestPath, nil
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
// note saying why, when it is of another host or never finished), else
// the newest finished probe of this host that the catalog (lookup, nil:
// none) names or that lies under root, the catalog's first on a tie; none:
// nil and no note (or a note that the catalog could not be read). The
// result's Origin is the file it was read from.
func For(path, root string, lookup Lookup, facts *sysinfo.Facts) (*Result, string, finding.Text, error) {
	h := Identity(facts)
	var r *Result
	var file string
	var notes []finding.Text
	where := finding.Text{}
	if path != "" {
		var err error
		if r, file, err = Read(path); err != nil {
			return nil, "", finding.Text{}, err
		}
		if ok, why := SameHost(r.Host, h); !ok {
			return nil, "", finding.Tf(finding.T("--probe %s is a probe of another host (%s): not used", "--probe %s 是另一台主机的探测结果（%s）：未使用"),
				finding.SafeLine(path), why), nil
		}
		if r.State() == StatusProbing {
			return nil, "", finding.Tf(finding.T("--probe %s never finished (killed, or still running): not used", "--probe %s 未完成（被终止或仍在运行）：未使用"),
				finding.SafeLine(path)), nil
		}
	} else {
		cr, cf, err := findIn(lookup, h)
		if err != nil {
			notes = append(notes, finding.Tf(finding.T("the catalog could not be read for probes (%v): looked under %s only", "无法从运行记录目录读取探测结果（%v）：只在 %s 下查找"), err, root))
		}
		fr, ff := Find(root, h)
		switch {
		case cr != nil && (fr == nil || !fr.Start.After(cr.Start)):
			r, file = cr, cf
			where = finding.T("; the newest of this host in the catalog", "；运行记录目录中本机最新的一次")
		case fr != nil:
			r, file = fr, ff
			where = finding.Tf(finding.T("; the newest of this host under %s", "；%s 下本机最新的一次"), root)
		default:
			return nil, "", joinNotes(notes), nil
		}
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	r.Origin = file
	notes = append(notes, finding.Tf(finding.T("platform figures from the probe %s (taken %s%s)", "平台指标来自探测结果 %s（测于 %s%s）"),
		file, r.Start.UTC().Format("2006-01-02 15:04Z"), where))
	return r, file, joinNotes(notes), nil
}

// joinNotes joins notes language by language ("" when none).
func joinNotes(ts []finding.Text) finding.Text {
	var en, zh []string
	for _, t := range ts {
		en, zh = append(en, t.EN), append(zh, t.ZH)
	}
	return finding.T(strings.Join(en, "; "), strings.Join(zh, "；"))
}
