package catalog

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// holdWrite takes the catalog's write lock from another connection (as a
// second tuneloop writing it does) until release is called.
func holdWrite(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "COMMIT")
		conn.Close()
		db.Close()
	}
}

// A busy catalog is waited for with a message (it was a bare SQLITE_BUSY
// after 5 s), and the write lands once the other writer is done.
func TestPutWaitsForBusyCatalog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	c, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var said []string
	c.Waiting = func(m finding.Text) { said = append(said, m.EN) }
	release := holdWrite(t, path)
	go func() { time.Sleep(2500 * time.Millisecond); release() }()
	e := Entry{ID: "r1", Dir: filepath.Join(t.TempDir(), "r1"), Start: time.Now(), Status: runfolder.Recording}
	if err := c.Put(context.Background(), e); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "is busy") || !strings.Contains(said[0], path) {
		t.Errorf("messages %q, want one saying the catalog is busy", said)
	}
	es, err := c.List(context.Background())
	if err != nil || len(es) != 1 {
		t.Fatalf("%v %+v", err, es)
	}
}

// Past the wait, the error says what is busy and how to add the run later.
func TestPutGivesUpOnBusyCatalog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	c, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.MaxWait = 1500 * time.Millisecond
	release := holdWrite(t, path)
	defer release()
	err = c.Put(context.Background(), Entry{ID: "r1", Dir: "/tmp/r1", Start: time.Now(), Status: runfolder.Complete})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "runs add") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v", err)
	}
}
