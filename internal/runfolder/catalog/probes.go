package catalog

// Probe folders (`tuneloop probe`: probes/<time>-<host>/probe.json) are
// catalogued beside the runs, in their own table: a probe has no target,
// findings or headline, and old binaries, which list the runs table only,
// keep working on a catalog that holds probes. A probe is put in the
// catalog when it starts (status probing) and again when it ends, so a
// probe killed before its end stays listed as incomplete; `runs rebuild`
// reads the same status back from its probe.json.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/probe"
)

// ProbeEntry is one probe folder in the catalog.
type ProbeEntry struct {
	ID       string    `json:"id"`
	Dir      string    `json:"dir"` // absolute path of the probe folder
	Host     string    `json:"host"`
	Kernel   string    `json:"kernel,omitempty"`
	Arch     string    `json:"arch,omitempty"`
	CPUModel string    `json:"cpu_model,omitempty"`
	CPUs     int       `json:"cpus,omitempty"`
	Parts    []string  `json:"parts"`
	Quick    bool      `json:"quick,omitempty"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end,omitzero"`
	// Status is probe.StatusProbing (running, or killed before its end),
	// StatusComplete or StatusInterrupted.
	Status  string `json:"status"`
	Figures int    `json:"figures"`
	Peer    string `json:"peer,omitempty"`
	// Missing is set by ListProbes when the folder no longer holds a probe.
	Missing bool `json:"missing,omitempty"`
}

// Incomplete: the probe never ended (killed, or still running).
func (e ProbeEntry) Incomplete() bool { return e.Status == probe.StatusProbing }

// ProbeEntryOf is the catalog line of the probe r kept in dir.
func ProbeEntryOf(dir string, r *probe.Result) ProbeEntry {
	e := ProbeEntry{ID: filepath.Base(dir), Dir: dir, Host: r.Host.Name, Kernel: r.Host.Kernel, Arch: r.Host.Arch, CPUModel: r.Host.CPUModel,
		CPUs: r.Host.CPUs, Parts: r.Parts, Quick: r.Quick, Start: r.Start.UTC(), Status: r.State(), Peer: r.Peer}
	if !r.End.IsZero() {
		e.End = r.End.UTC()
	}
	for _, f := range r.Figures {
		if len(f.Rounds) > 0 {
			e.Figures++
		}
	}
	return e
}

const probesSchema = `
CREATE TABLE IF NOT EXISTS probes (
	id        TEXT NOT NULL,
	dir       TEXT PRIMARY KEY,
	host      TEXT NOT NULL DEFAULT '',
	kernel    TEXT NOT NULL DEFAULT '',
	arch      TEXT NOT NULL DEFAULT '',
	cpu_model TEXT NOT NULL DEFAULT '',
	cpus      INTEGER NOT NULL DEFAULT 0,
	parts     TEXT NOT NULL DEFAULT '',
	quick     INTEGER NOT NULL DEFAULT 0,
	start_ns  INTEGER NOT NULL,
	end_ns    INTEGER NOT NULL DEFAULT 0,
	status    TEXT NOT NULL,
	figures   INTEGER NOT NULL DEFAULT 0,
	peer      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS probes_host ON probes(host, start_ns);
`

// PutProbe adds or replaces the entry for e.Dir (made absolute).
func (c *Catalog) PutProbe(ctx context.Context, e ProbeEntry) error {
	dir, err := filepath.Abs(e.Dir)
	if err != nil {
		return err
	}
	var end int64
	if !e.End.IsZero() {
		end = e.End.UnixNano()
	}
	quick := 0
	if e.Quick {
		quick = 1
	}
	_, err = c.exec(ctx, `INSERT OR REPLACE INTO probes
		(id, dir, host, kernel, arch, cpu_model, cpus, parts, quick, start_ns, end_ns, status, figures, peer)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, dir, e.Host, e.Kernel, e.Arch, e.CPUModel, e.CPUs, strings.Join(e.Parts, ","), quick, e.Start.UnixNano(), end, e.Status, e.Figures, e.Peer)
	if err != nil {
		return fmt.Errorf("catalog %s: %w", c.Path, err)
	}
	return nil
}

const probeColumns = `id, dir, host, kernel, arch, cpu_model, cpus, parts, quick, start_ns, end_ns, status, figures, peer`

func scanProbes(rows *sql.Rows) ([]ProbeEntry, error) {
	defer rows.Close()
	var out []ProbeEntry
	for rows.Next() {
		var e ProbeEntry
		var start, end int64
		var parts string
		var quick int
		if err := rows.Scan(&e.ID, &e.Dir, &e.Host, &e.Kernel, &e.Arch, &e.CPUModel, &e.CPUs, &parts, &quick, &start, &end, &e.Status, &e.Figures, &e.Peer); err != nil {
			return nil, err
		}
		e.Start, e.Quick = time.Unix(0, start).UTC(), quick != 0
		if end != 0 {
			e.End = time.Unix(0, end).UTC()
		}
		e.Parts = []string{}
		if parts != "" {
			e.Parts = strings.Split(parts, ",")
		}
		e.Missing = !probe.IsDir(e.Dir)
		out = append(out, e)
	}
	return out, rows.Err()
}

// ListProbes returns every probe, newest first, marking folders that are gone.
func (c *Catalog) ListProbes(ctx context.Context) ([]ProbeEntry, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT `+probeColumns+` FROM probes ORDER BY start_ns DESC, dir`)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.Path, err)
	}
	return scanProbes(rows)
}

// probeDirsOf lists the folders of the finished probes of host, newest first.
func probeDirsOf(ctx context.Context, db *sql.DB, host string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT dir FROM probes WHERE host = ? AND status = ? ORDER BY start_ns DESC, dir LIMIT 200`, host, probe.StatusComplete)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ProbeLookup is probe.For's lookup over the catalog at path, read only:
// a catalog that does not exist yet, or was made before probes were
// catalogued, holds none (no error, nothing created); one that cannot be
// read is an error For reports as a note.
func ProbeLookup(ctx context.Context, path string) probe.Lookup {
	return func(host string) ([]string, error) {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(1000)")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'probes'`).Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if n == 0 {
			return nil, nil
		}
		dirs, err := probeDirsOf(ctx, db, host)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return dirs, nil
	}
}

// readProbe is the catalog line of the probe folder dir, read as untrusted.
func readProbe(dir string) (ProbeEntry, error) {
	r, _, err := probe.Read(dir)
	if err != nil {
		return ProbeEntry{}, err
	}
	return ProbeEntryOf(dir, r), nil
}

// AddProbe catalogs the probe folder dir as its probe.json says.
func (c *Catalog) AddProbe(ctx context.Context, dir string) (ProbeEntry, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ProbeEntry{}, err
	}
	e, err := readProbe(abs)
	if err != nil {
		return e, err
	}
	return e, c.PutProbe(ctx, e)
}
