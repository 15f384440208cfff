package multihost

import (
	"context"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// Loaded is a multi-host run folder read once: every host's layers on the
// local timeline, each decided as its own record folder.
type Loaded struct {
	Dir      string
	Manifest *Manifest
	Hosts    []*HostRun
	// App is the host whose folder feeds the run's verdict (nil: no app
	// host, or its folder could not be read).
	App *HostRun
	// Cross is the cross-host reading (nil: it does not hold).
	Cross *finding.Finding
}

// HostRun is one host's part.
type HostRun struct {
	Entry    Entry
	Layers   *verdict.Layers   // nil when Err
	Decision *verdict.Decision // nil when Err
	Shift    time.Duration     // subtracted from the host's times (its clock offset)
	Bound    time.Duration     // the offset's error bound
	Aligned  bool              // false: no offset measured, times as the host's clock had them
	Err      error             // its folder could not be read
}

// Load reads a multi-host run folder: hosts.json, each host's record folder
// (verdict.Load) moved onto the local timeline, load as the app host's
// load (nil: record without load), each host decided.
func Load(dir string, load *loadgen.Summary) (*Loaded, error) {
	return LoadContext(context.Background(), dir, load)
}

// LoadContext is Load that stops when ctx is done (verdict.LoadContext):
// then no Run, and an error wrapping ctx.Err().
func LoadContext(ctx context.Context, dir string, load *loadgen.Summary) (*Loaded, error) {
	m, err := Read(dir)
	if err != nil {
		return nil, err
	}
	r := &Loaded{Dir: dir, Manifest: m}
	for _, e := range m.Hosts {
		h := &HostRun{Entry: e}
		r.Hosts = append(r.Hosts, h)
		h.Shift, h.Bound, h.Aligned = h.Entry.Offset()
		L, err := verdict.LoadWholeContext(ctx, Dir(dir, e.Name))
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if err != nil {
			h.Err = err
			continue
		}
		Shift(L, h.Shift)
		if e.Role == RoleApp && load != nil {
			// The run's load, on this machine's clock as the series now
			// are (the folder's copy is on the host's: WriteLoad).
			L.Load = load
		}
		// The recorders ran from before the warm-up to after the load: the
		// app host, the one given the load, is judged over it, as a local
		// run is.
		if e.Role == RoleApp {
			L.WithinLoad()
		}
		h.Layers, h.Decision = L, verdict.Decide(L)
		if e.Role == RoleApp && r.App == nil {
			r.App = h
		}
	}
	if r.App != nil {
		for _, h := range r.Hosts {
			if h.Entry.Role == RoleDB && h.Layers != nil {
				if f, ok := CrossHost(r.App, h); ok {
					r.Cross = &f
					break
				}
			}
		}
	}
	return r, nil
}

// Shift moves a host's layers onto the local timeline: every time it
// recorded minus its clock offset (remote - local).
func Shift(L *verdict.Layers, offset time.Duration) {
	if offset == 0 || L == nil {
		return
	}
	if L.Series != nil {
		for i := range L.Series.Ticks {
			L.Series.Ticks[i].T = L.Series.Ticks[i].T.Add(-offset)
		}
	}
	for i, t := range L.DumpTimes {
		if !t.IsZero() {
			L.DumpTimes[i] = t.Add(-offset)
		}
	}
	shiftFindings(L.Recorded, offset)
	if f := L.Folder; f != nil {
		f.Manifest.Start = f.Manifest.Start.Add(-offset)
		if !f.Manifest.End.IsZero() {
			f.Manifest.End = f.Manifest.End.Add(-offset)
		}
	}
}

func shiftFindings(fs []finding.Finding, offset time.Duration) {
	for i := range fs {
		if w := fs[i].Window; w != nil {
			fs[i].Window = &finding.Window{From: w.From.Add(-offset), To: w.To.Add(-offset)}
		}
	}
}
