package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// addToCatalog puts the run folder f in the catalog at path (the default
// when ""), waiting up to maxWait for a busy catalog (0: the catalog's own
// bound), saying so through warn.
func addToCatalog(ctx context.Context, path string, getenv func(string) string, f *runfolder.Folder, fs []finding.Finding, maxWait time.Duration, warn func(error)) error {
	if path == "" {
		if getenv == nil {
			getenv = os.Getenv
		}
		p, err := catalog.DefaultPath(getenv)
		if err != nil {
			return err
		}
		path = p
	}
	c, err := catalog.Open(ctx, path)
	if err != nil {
		return err
	}
	defer c.Close()
	c.Waiting = func(t finding.Text) { warn(finding.Errorf(finding.T("%s", "%s"), t)) }
	c.MaxWait = maxWait
	if c.Recovered != nil {
		// Found damaged and moved aside: fill the fresh one from the run
		// folders next to this one, and say so.
		r, _ := RebuildCatalog(ctx, c, []string{filepath.Dir(f.Dir)})
		warn(finding.Errorf(finding.T("warning: %s", "警告：%s"), CatalogRecovered(c, r)))
	}
	return c.Put(ctx, CatalogEntry(f, fs))
}

// RebuildCatalog adds the run folders found under roots (and those a
// damaged catalog moved aside still names) to c.
func RebuildCatalog(ctx context.Context, c *catalog.Catalog, roots []string) (*catalog.Rebuilt, error) {
	return c.Rebuild(ctx, roots, func(f *runfolder.Folder) (catalog.Entry, error) {
		fs, err := f.Findings()
		if err != nil {
			return catalog.Entry{}, err
		}
		return CatalogEntry(f, fs), nil
	})
}

// CatalogRecovered is the notice for a catalog found damaged, moved aside
// and rebuilt (r may be nil when the rebuild failed).
func CatalogRecovered(c *catalog.Catalog, r *catalog.Rebuilt) finding.Text {
	n := 0
	if r != nil {
		n = len(r.Added)
	}
	return finding.Tf(finding.T("%s; %d run folders added back (tuneloop runs rebuild DIR adds others)",
		"%s；已重新加入 %d 个运行目录（其他目录可用 tuneloop runs rebuild DIR 加入）"), c.Recovered.Message(), n)
}

// CatalogEntry is a finished run folder's line in the catalog: its failing
// findings counted, the first (the ranked top) named.
func CatalogEntry(f *runfolder.Folder, fs []finding.Finding) catalog.Entry {
	m := &f.Manifest
	e := catalog.Entry{ID: m.ID, Dir: f.Dir, Host: m.Host, Start: m.Start, End: m.End, Status: m.Status, Command: strings.Join(m.Argv, " ")}
	if m.Target != nil {
		e.PID, e.Comm = m.Target.PID, m.Target.Comm
	}
	for i := range fs {
		if fs[i].Status == finding.Fail {
			e.Findings++
			if e.Top == "" {
				e.Top = fs[i].Key()
			}
		}
	}
	return e
}

// ProbeLookup is probe.For's lookup in the catalog at path (the default
// when ""), read only; nil with noCatalog (the catalog left alone).
func ProbeLookup(ctx context.Context, path string, noCatalog bool, getenv func(string) string) probe.Lookup {
	if noCatalog {
		return nil
	}
	if path == "" {
		if getenv == nil {
			getenv = os.Getenv
		}
		p, err := catalog.DefaultPath(getenv)
		if err != nil {
			return func(string) ([]string, error) { return nil, err }
		}
		path = p
	}
	return catalog.ProbeLookup(ctx, path)
}
