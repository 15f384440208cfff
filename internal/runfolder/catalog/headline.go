package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"
)

// Headline is what a run measured, for the history of a service: the
// service (target URL or process), the scenario (the load model) and the
// headline numbers.
type Headline struct {
	Service  string  `json:"service"`
	Scenario string  `json:"scenario"`
	TPS      float64 `json:"tps"`
	P99MS    float64 `json:"p99_ms"`
}

// Point is one run of a history.
type Point struct {
	ID    string    `json:"id"`
	Dir   string    `json:"dir"`
	Start time.Time `json:"start"`
	Headline
}

// headlineColumns are added to catalogs made before them. Old catalogs stay
// readable (and writable) by old binaries: the columns are new, with
// defaults, and List does not read them.
var headlineColumns = []struct{ name, decl string }{
	{"service", "TEXT NOT NULL DEFAULT ''"},
	{"scenario", "TEXT NOT NULL DEFAULT ''"},
	{"tps", "REAL"},
	{"p99_ms", "REAL"},
}

// migrateHeadline adds the headline columns that are missing.
func (c *Catalog) migrateHeadline(ctx context.Context) error {
	rows, err := c.db.QueryContext(ctx, `SELECT name FROM pragma_table_info('runs')`)
	if err != nil {
		return fmt.Errorf("catalog %s: %w", c.Path, err)
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		have[n] = true
	}
	rows.Close()
	for _, col := range headlineColumns {
		if !have[col.name] {
			if _, err := c.exec(ctx, `ALTER TABLE runs ADD COLUMN `+col.name+` `+col.decl); err != nil {
				return fmt.Errorf("catalog %s: adding %s: %w", c.Path, col.name, err)
			}
		}
	}
	return nil
}

// PutHeadline records what the run in dir measured; the run must be in
// the catalog (Put first).
func (c *Catalog) PutHeadline(ctx context.Context, dir string, h Headline) error {
	if err := c.migrateHeadline(ctx); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, `UPDATE runs SET service = ?, scenario = ?, tps = ?, p99_ms = ? WHERE dir = ?`, h.Service, h.Scenario, h.TPS, h.P99MS, abs)
	if err != nil {
		return fmt.Errorf("catalog %s: %w", c.Path, err)
	}
	return nil
}

// MissingHeadline lists the folders of runs without a headline, oldest first.
func (c *Catalog) MissingHeadline(ctx context.Context) ([]string, error) {
	if err := c.migrateHeadline(ctx); err != nil {
		return nil, err
	}
	rows, err := c.db.QueryContext(ctx, `SELECT dir FROM runs WHERE tps IS NULL ORDER BY start_ns, dir`)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.Path, err)
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

// History returns the runs with a headline, oldest first; service "" is
// every service.
func (c *Catalog) History(ctx context.Context, service string) ([]Point, error) {
	if err := c.migrateHeadline(ctx); err != nil {
		return nil, err
	}
	rows, err := c.db.QueryContext(ctx, `SELECT id, dir, start_ns, service, scenario, tps, p99_ms FROM runs
		WHERE tps IS NOT NULL AND (? = '' OR service = ?) ORDER BY service, scenario, start_ns, dir`, service, service)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.Path, err)
	}
	defer rows.Close()
	var out []Point
	for rows.Next() {
		var p Point
		var start int64
		var p99 sql.NullFloat64
		if err := rows.Scan(&p.ID, &p.Dir, &start, &p.Service, &p.Scenario, &p.TPS, &p99); err != nil {
			return nil, err
		}
		p.Start, p.P99MS = time.Unix(0, start).UTC(), p99.Float64
		out = append(out, p)
	}
	return out, rows.Err()
}

// RemoveDir drops the entry for dir (a run or a probe) and says whether
// there was one.
func (c *Catalog) RemoveDir(ctx context.Context, dir string) (bool, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	var n int64
	for _, table := range []string{"runs", "probes"} {
		res, err := c.exec(ctx, `DELETE FROM `+table+` WHERE dir = ?`, abs)
		if err != nil {
			return false, fmt.Errorf("catalog %s: %w", c.Path, err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return false, err
		}
		n += k
	}
	return n > 0, nil
}
