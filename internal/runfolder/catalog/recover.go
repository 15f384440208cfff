package catalog

// A catalog can be damaged (a disk error, a file overwritten or truncated,
// a copy taken mid-write). It is an index only, so a damaged one is moved
// aside, not repaired: Open starts a fresh one and says so, and Rebuild
// fills it again from the run folders it can find (those the damaged file
// still names, where it can be read, and their neighbours).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// Recovery says that Open found the catalog damaged and moved it aside.
type Recovery struct {
	Cause   string // what SQLite said ("database disk image is malformed (11)")
	MovedTo string // the damaged file, kept for inspection
}

// Message is the user's notice of the recovery, in both languages.
func (r *Recovery) Message() finding.Text {
	return finding.Tf(finding.T("the catalog was damaged (%s): moved aside to %s and started afresh",
		"运行记录目录已损坏（%s）：已移到 %s，并重新创建"), r.Cause, r.MovedTo)
}

// corrupt reports whether err is SQLite saying the file is not a usable
// database: SQLITE_CORRUPT (11) or SQLITE_NOTADB (26).
func corrupt(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "database disk image is malformed") || strings.Contains(s, "file is not a database") ||
		strings.Contains(s, "SQLITE_CORRUPT") || strings.Contains(s, "SQLITE_NOTADB")
}

// check proves the database readable: the schema is applied, and a quick
// integrity check and a read of the runs table pass.
func check(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, catalogSchema+probesSchema); err != nil {
		return err
	}
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return fmt.Errorf("database disk image is malformed: %s", finding.FirstLine(res))
	}
	var n int64
	return db.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&n)
}

// moveAside renames the damaged catalog (and its WAL and shared-memory
// files) to NAME.corrupt-<UTC time>, keeping it for inspection.
func moveAside(path string, now time.Time) (string, error) {
	dst := path + ".corrupt-" + now.UTC().Format("20060102-150405.000")
	if err := os.Rename(path, dst); err != nil {
		return "", err
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + ext); err == nil {
			_ = os.Rename(path+ext, dst+ext)
		}
	}
	return dst, nil
}

// salvageDirs reads what run folders a damaged catalog still names, as far
// as it can be read; nothing when it cannot.
func salvageDirs(ctx context.Context, path string) []string {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(1000)")
	if err != nil {
		return nil
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT dir FROM runs UNION SELECT dir FROM probes`)
	if err != nil { // a catalog from before probes were catalogued
		rows, err = db.QueryContext(ctx, `SELECT dir FROM runs`)
	}
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if rows.Scan(&d) == nil {
			out = append(out, d)
		}
	}
	return out // a read error part way keeps what came before it
}

// Rebuilt is what Rebuild added.
type Rebuilt struct {
	Added   []string // run folders put in the catalog
	Probes  []string // probe folders put in the catalog
	Skipped []string // folders found that could not be read (with why)
}

// Rebuild adds every run folder and probe folder found in roots (such a
// folder itself, or a folder of them one level down), in the folders the
// moved-aside catalog of the last Open still names, and in their parent
// folders. entry makes a run folder's line (the caller knows how its
// findings count); a probe folder's line is what its probe.json says.
func (c *Catalog) Rebuild(ctx context.Context, roots []string, entry func(*runfolder.Folder) (Entry, error)) (*Rebuilt, error) {
	seen := map[string]bool{}
	var dirs, probes []string
	add := func(d string) {
		abs, err := filepath.Abs(d)
		if err != nil || seen[abs] {
			return
		}
		switch {
		case runfolder.IsRunDir(abs):
			dirs = append(dirs, abs)
		case probe.IsDir(abs):
			probes = append(probes, abs)
		default:
			return
		}
		seen[abs] = true
	}
	scan := func(root string) {
		if runfolder.IsRunDir(root) || probe.IsDir(root) {
			add(root)
			return
		}
		ents, err := os.ReadDir(root)
		if err != nil {
			return
		}
		for _, e := range ents {
			if e.IsDir() { // not a link: a run folder is a real folder
				add(filepath.Join(root, e.Name()))
			}
		}
	}
	var named []string
	if c.Recovered != nil {
		named = salvageDirs(ctx, c.Recovered.MovedTo)
	}
	for _, r := range roots {
		scan(r)
	}
	parents := map[string]bool{}
	for _, d := range named {
		add(d)
		parents[filepath.Dir(d)] = true
	}
	for p := range parents {
		scan(p)
	}
	sort.Strings(dirs)
	sort.Strings(probes)
	res := &Rebuilt{}
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		f, err := runfolder.Open(d)
		var e Entry
		if err == nil {
			e, err = entry(f)
		}
		if err == nil {
			err = c.Put(ctx, e)
		}
		if err != nil {
			if corrupt(err) {
				return res, err
			}
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %v", d, err))
			continue
		}
		res.Added = append(res.Added, d)
	}
	for _, d := range probes {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if _, err := c.AddProbe(ctx, d); err != nil {
			if corrupt(err) {
				return res, err
			}
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %v", d, err))
			continue
		}
		res.Probes = append(res.Probes, d)
	}
	return res, nil
}

// openChecked opens path and proves it readable; a damaged file is moved
// aside and a fresh catalog opened in its place (c.Recovered says so).
func openChecked(ctx context.Context, path string) (*sql.DB, *Recovery, error) {
	db, err := openDB(path)
	if err != nil {
		return nil, nil, err
	}
	err = check(ctx, db)
	if err == nil {
		return db, nil, nil
	}
	db.Close()
	if !corrupt(err) {
		return nil, nil, err
	}
	moved, merr := moveAside(path, time.Now())
	if merr != nil {
		return nil, nil, fmt.Errorf("%w; moving it aside failed: %v (move or delete %s by hand)", err, merr, path)
	}
	rec := &Recovery{Cause: err.Error(), MovedTo: moved}
	if db, err = openDB(path); err == nil {
		if err = check(ctx, db); err != nil {
			db.Close()
		}
	}
	if err != nil {
		return nil, nil, errors.Join(err, fmt.Errorf("after moving the damaged catalog to %s", moved))
	}
	return db, rec, nil
}

func openDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout("+strconv.Itoa(busyTimeoutMS)+")&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}
