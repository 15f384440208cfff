package multihost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// The layout of a multi-host run folder:
//
//	load.json           the load generated here (run only)
//	hosts.json          Manifest: every host, its clock offset, what was lost
//	hosts/NAME/         one record folder per host, as `record --host` writes it
//	report.html, .md, .json
const (
	ManifestFile = "hosts.json"
	HostsDir     = "hosts"
	Schema       = "tuneloop.hosts/v1"
)

// Dir is the record folder of host name under the run folder dir.
func Dir(dir, name string) string { return filepath.Join(dir, HostsDir, name) }

// Manifest is hosts.json.
type Manifest struct {
	Schema string    `json:"schema"`
	Start  time.Time `json:"start"` // local clock
	End    time.Time `json:"end"`
	Hosts  []Entry   `json:"hosts"`
}

// Entry is one host of the run.
type Entry struct {
	Host
	Arch string `json:"arch,omitempty"`
	// Before and After are the clock measurements around the run (nil: not
	// measured, the connection failed or was lost).
	Before *Clock `json:"clock_before,omitempty"`
	After  *Clock `json:"clock_after,omitempty"`
	// OffsetNS and BoundNS are what its series are shifted by (remote -
	// local, from Before and After: Offset) and the error bound; absent
	// when the clock was not measured. Written for the reader: Load
	// computes them again from the measurements.
	OffsetNS *int64 `json:"offset_ns,omitempty"`
	BoundNS  *int64 `json:"bound_ns,omitempty"`
	// Files is how many files of its record folder arrived.
	Files int `json:"files"`
	// Lost says what was lost (a connection cut, a failed start), in both
	// languages; nil when everything arrived.
	Lost *finding.Text `json:"lost,omitempty"`
}

// Clock is one clock-offset measurement: the remote clock minus the local
// one, within ±Bound.
type Clock struct {
	OffsetNS int64     `json:"offset_ns"`
	BoundNS  int64     `json:"bound_ns"`
	At       time.Time `json:"at"`
	Trips    int       `json:"round_trips"`
}

// Offset is what the host's series are shifted by (remote - local): the
// mean of the two measurements, its bound the larger bound plus half the
// drift between them; ok false when neither was measured.
func (e *Entry) Offset() (off, bound time.Duration, ok bool) {
	b, a := e.Before, e.After
	switch {
	case b != nil && a != nil:
		drift := time.Duration(a.OffsetNS - b.OffsetNS)
		return time.Duration(a.OffsetNS+b.OffsetNS) / 2, time.Duration(max(a.BoundNS, b.BoundNS)) + abs(drift)/2, true
	case b != nil:
		return time.Duration(b.OffsetNS), time.Duration(b.BoundNS), true
	case a != nil:
		return time.Duration(a.OffsetNS), time.Duration(a.BoundNS), true
	}
	return 0, 0, false
}

// Drift is the change of the offset from before to after the run (ok
// false unless both were measured).
func (e *Entry) Drift() (time.Duration, bool) {
	if e.Before == nil || e.After == nil {
		return 0, false
	}
	return time.Duration(e.After.OffsetNS - e.Before.OffsetNS), true
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Write writes hosts.json into dir.
func Write(dir string, m *Manifest) error {
	m.Schema = Schema
	for i := range m.Hosts {
		e := &m.Hosts[i]
		e.OffsetNS, e.BoundNS = nil, nil
		if off, bound, ok := e.Offset(); ok {
			e.OffsetNS, e.BoundNS = new(int64(off)), new(int64(bound))
		}
	}
	return runfolder.WriteJSONAtomic(filepath.Join(dir, ManifestFile), m)
}

// IsDir reports whether dir is a multi-host run folder (it holds a
// hosts.json file).
func IsDir(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, ManifestFile))
	return err == nil && fi.Mode().IsRegular()
}

// HostOf says whether dir is one host's folder of a multi-host run
// (RUN/hosts/NAME, NAME in RUN/hosts.json), and names the run and host.
func HostOf(dir string) (run, host string, ok bool) {
	clean := filepath.Clean(dir)
	host, run = filepath.Base(clean), filepath.Dir(filepath.Dir(clean))
	if filepath.Base(filepath.Dir(clean)) != HostsDir || !IsDir(run) {
		return "", "", false
	}
	m, err := Read(run)
	if err != nil {
		return "", "", false
	}
	for _, e := range m.Hosts {
		if e.Name == host {
			return run, host, true
		}
	}
	return "", "", false
}

// WriteLoad writes the run's load: dir/load.json on this machine's clock,
// and a copy into the app host's folder (when it arrived) with its start on
// that host's clock, so that the folder alone is a whole run folder judged
// over the load (verdict.Layers.WithinLoad).
func WriteLoad(dir string, m *Manifest, sum *loadgen.Summary) error {
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, verdict.LoadFile), sum); err != nil {
		return err
	}
	if m == nil {
		return nil
	}
	for i := range m.Hosts {
		e := &m.Hosts[i]
		if e.Role != RoleApp {
			continue
		}
		app := Dir(dir, e.Name)
		if _, err := os.Stat(filepath.Join(app, runfolder.ManifestFile)); err != nil {
			return nil // its folder did not arrive: the report says so
		}
		c := *sum
		if off, _, ok := e.Offset(); ok {
			c.Start = c.Start.Add(off)
		}
		return runfolder.WriteJSONAtomic(filepath.Join(app, verdict.LoadFile), &c)
	}
	return nil
}

// Read reads dir/hosts.json (as untrusted: no link followed, size capped).
func Read(dir string) (*Manifest, error) {
	b, err := runfolder.ReadInside(dir, ManifestFile, 4<<20)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, finding.Errorf(finding.T("%s: %v", "%s：%v"), filepath.Join(dir, ManifestFile), err)
	}
	if m.Schema != Schema {
		return nil, finding.Errorf(finding.T("%s: not a multi-host run (schema %q)", "%s：不是多主机运行（schema %q）"), filepath.Join(dir, ManifestFile), finding.SafeLine(m.Schema))
	}
	for _, e := range m.Hosts {
		if safeName(e.Name) != e.Name {
			return nil, finding.Errorf(finding.T("%s: bad host name %q", "%s：主机名 %q 无效"), filepath.Join(dir, ManifestFile), finding.SafeLine(e.Name))
		}
	}
	return &m, nil
}
