package session

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// historySets bounds how many earlier sets a comparison reads (the
// newest): enough pairs for the set-to-set spread, few enough folders to
// read in a moment.
const historySets = 24

// repeatRun is the folder name `run --repeat` gives each run of a set.
var repeatRun = regexp.MustCompile(`^run-[0-9]+$`)

// SetHistory is the earlier sets of the compared runs' service on their
// host, from the catalog at path: each set a `run --repeat` folder's runs
// (--out/run-1..N), the compared runs' own sets left out. nil when the
// compared runs are not of one service on one host, or the catalog holds
// fewer than two such sets; a catalog that cannot be read is the same as
// an empty one (the comparison goes on without history, and says so).
func SetHistory(ctx context.Context, path string, before, after []compare.Input, lang finding.Lang) *compare.History {
	service, host, ok := oneService(slices.Concat(before, after))
	if !ok {
		return nil
	}
	compared := map[string]bool{}
	for _, in := range slices.Concat(before, after) {
		compared[filepath.Dir(realPath(in.Path))] = true
	}
	// Reading must not create a catalog where there is none.
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	c, err := catalog.Open(ctx, path)
	if err != nil {
		return nil
	}
	es, err := c.List(ctx)
	c.Close()
	if err != nil {
		return nil
	}
	type set struct {
		start time.Time
		dirs  []string
	}
	sets := map[string]*set{}
	for _, e := range es {
		// The halves of an A/B series (--start-b, --target-b) ran in
		// turn, each of its own build: they are no sets in sequence.
		// Links are resolved only for the entries left (a catalog holds
		// every run of every service).
		if e.Missing || e.Host != host || !repeatRun.MatchString(filepath.Base(e.Dir)) ||
			compare.ServiceOfCommand(e.Command) != service || abSeries.MatchString(e.Command) {
			continue
		}
		parent := filepath.Dir(realPath(e.Dir))
		if compared[parent] {
			continue
		}
		s := sets[parent]
		if s == nil {
			s = &set{start: e.Start}
			sets[parent] = s
		}
		s.dirs = append(s.dirs, e.Dir)
		if e.Start.Before(s.start) {
			s.start = e.Start
		}
	}
	var ordered []*set
	for _, s := range sets {
		if len(s.dirs) >= 2 {
			ordered = append(ordered, s)
		}
	}
	slices.SortFunc(ordered, func(a, b *set) int { return b.start.Compare(a.start) })
	h := &compare.History{Source: path}
	for _, s := range ordered[:min(len(ordered), historySets)] {
		var runs []compare.Input
		for _, d := range s.dirs {
			if ctx.Err() != nil {
				return nil
			}
			// A run of the set that cannot be read is left out of it.
			if p, err := LoadRunPage(ctx, d, lang); err == nil {
				runs = append(runs, compare.Input{Path: d, Page: p})
			}
		}
		h.Sets = append(h.Sets, runs)
	}
	if len(h.Sets) < 2 {
		return nil
	}
	return h
}

// abSeries matches the command line of a run of an interleaved A/B series.
var abSeries = regexp.MustCompile(`(^|\s)--(start|target)-b(=|\s|$)`)

// realPath is path absolute with its symbolic links resolved, as far as
// they can be (a folder gone: as given, made absolute).
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return path
}

// oneService is the service and host every input names (ok false when
// they differ or one is unknown).
func oneService(in []compare.Input) (service, host string, ok bool) {
	for i, x := range in {
		if x.Page == nil || x.Page.Run == nil {
			return "", "", false
		}
		s, h := compare.Service(x.Page), x.Page.Run.Host.Hostname
		if s == "" || h == "" || i > 0 && (s != service || h != host) {
			return "", "", false
		}
		service, host = s, h
	}
	return service, host, len(in) > 0
}
