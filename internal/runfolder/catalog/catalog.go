// Package catalog indexes run folders and probe folders in an embedded
// SQLite database (pure Go, modernc.org/sqlite) so `tuneloop runs` can list
// them and run and check can find this host's newest probe (probes.go). It
// is an index only: each folder is complete on its own.
package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// Entry is one run in the catalog.
type Entry struct {
	ID       string           `json:"id"`
	Dir      string           `json:"dir"` // absolute path of the run folder
	Host     string           `json:"host"`
	Start    time.Time        `json:"start"`
	End      time.Time        `json:"end,omitzero"`
	Status   runfolder.Status `json:"status"`
	Command  string           `json:"command"`
	PID      int              `json:"pid,omitempty"`
	Comm     string           `json:"comm,omitempty"`
	Findings int              `json:"findings"`
	Top      string           `json:"top,omitempty"` // ID of the first-ranked finding
	// Missing is set by List when the folder is no longer there.
	Missing bool `json:"missing,omitempty"`
}

// Catalog indexes run folders in a SQLite database.
type Catalog struct {
	db   *sql.DB
	Path string
	// Recovered is set when Open found the file damaged and moved it
	// aside: the catalog is fresh until Rebuild fills it.
	Recovered *Recovery
	// Waiting, when set, hears once that a write waits for a catalog
	// another tuneloop is writing; MaxWait bounds the wait (0: a minute).
	Waiting func(finding.Text)
	MaxWait time.Duration
}

// DefaultPath is $XDG_DATA_HOME/tuneloop/runs.db, else
// ~/.local/share/tuneloop/runs.db.
func DefaultPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "tuneloop", "runs.db"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no catalog location: set XDG_DATA_HOME or HOME, or use --catalog")
		}
		home = h
	}
	return filepath.Join(home, ".local", "share", "tuneloop", "runs.db"), nil
}

const catalogSchema = `
CREATE TABLE IF NOT EXISTS runs (
	id       TEXT NOT NULL,
	dir      TEXT PRIMARY KEY,
	host     TEXT NOT NULL DEFAULT '',
	start_ns INTEGER NOT NULL,
	end_ns   INTEGER NOT NULL DEFAULT 0,
	status   TEXT NOT NULL,
	command  TEXT NOT NULL DEFAULT '',
	pid      INTEGER NOT NULL DEFAULT 0,
	comm     TEXT NOT NULL DEFAULT '',
	findings INTEGER NOT NULL DEFAULT 0,
	top      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_start ON runs(start_ns);
`

// Open opens (creating) the catalog at path.
func Open(ctx context.Context, path string) (*Catalog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating the catalog directory: %w", err)
	}
	// A damaged file is moved aside and a fresh one started (recover.go).
	db, rec, err := openChecked(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("opening the catalog %s: %w", path, err)
	}
	return &Catalog{db: db, Path: path, Recovered: rec}, nil
}

// Close closes the database.
func (c *Catalog) Close() error { return c.db.Close() }

// Put adds or replaces the entry for e.Dir (made absolute).
func (c *Catalog) Put(ctx context.Context, e Entry) error {
	dir, err := filepath.Abs(e.Dir)
	if err != nil {
		return err
	}
	var end int64
	if !e.End.IsZero() {
		end = e.End.UnixNano()
	}
	_, err = c.exec(ctx, `INSERT OR REPLACE INTO runs
		(id, dir, host, start_ns, end_ns, status, command, pid, comm, findings, top)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, dir, e.Host, e.Start.UnixNano(), end, string(e.Status), e.Command, e.PID, e.Comm, e.Findings, e.Top)
	if err != nil {
		return fmt.Errorf("catalog %s: %w", c.Path, err)
	}
	return nil
}

// Remove drops the entry for dir.
func (c *Catalog) Remove(ctx context.Context, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, `DELETE FROM runs WHERE dir = ?`, abs)
	return err
}

// List returns every entry, newest first, marking folders that are gone.
func (c *Catalog) List(ctx context.Context) ([]Entry, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT id, dir, host, start_ns, end_ns, status, command, pid, comm, findings, top
		FROM runs ORDER BY start_ns DESC, dir`)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.Path, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var start, end int64
		var status string
		if err := rows.Scan(&e.ID, &e.Dir, &e.Host, &start, &end, &status, &e.Command, &e.PID, &e.Comm, &e.Findings, &e.Top); err != nil {
			return nil, err
		}
		e.Start = time.Unix(0, start).UTC()
		if end != 0 {
			e.End = time.Unix(0, end).UTC()
		}
		e.Status = runfolder.Status(status)
		e.Missing = !runfolder.IsRunDir(e.Dir)
		out = append(out, e)
	}
	return out, rows.Err()
}
