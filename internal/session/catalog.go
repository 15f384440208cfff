package session

import (
	"context"
	"os"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/run/catalog"
)

func addToCatalog(ctx context.Context, path string, getenv func(string) string, f *run.Folder, fs []finding.Finding) error {
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
	return c.Put(ctx, CatalogEntry(f, fs))
}

// CatalogEntry is a finished run folder's line in the catalog: its failing
// findings counted, the first (the ranked top) named.
func CatalogEntry(f *run.Folder, fs []finding.Finding) catalog.Entry {
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
