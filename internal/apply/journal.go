package apply

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// Journal operations, in the order a key goes through them.
const (
	OpBegin     = "begin"     // a transaction: its roots and findings
	OpPlanned   = "planned"   // before a write: the value read before and the one to write
	OpWritten   = "written"   // the write returned
	OpVerified  = "verified"  // read back as written
	OpUndone    = "undone"    // did not read back (or its group failed): put back at once
	OpReverted  = "reverted"  // put back by revert
	OpDrift     = "drift"     // revert refused: changed by someone else since
	OpConfirmed = "confirmed" // the dead-man timer was answered
	OpWatchdog  = "watchdog"  // a dead-man timer was started (PID, deadline)
	OpExpired   = "expired"   // the dead-man timer fired and reverted
)

// Record is one line of a transaction's journal file.
type Record struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Op   string    `json:"op"`
	// Group is the finding's index in the transaction: its keys go together.
	Group   int    `json:"group,omitempty"`
	Finding string `json:"finding,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Key     string `json:"key,omitempty"`
	Path    string `json:"path,omitempty"`
	PID     int    `json:"pid,omitempty"`
	// PIDStart tells a restarted process from the one we changed.
	PIDStart     uint64 `json:"pid_start,omitempty"`
	Before       string `json:"before"`
	BeforeAbsent bool   `json:"before_absent,omitempty"`
	Want         string `json:"want"`
	After        string `json:"after,omitempty"`
	Err          string `json:"error,omitempty"`
	// Begin only.
	Roots    *hostfs.FS `json:"roots,omitempty"`
	Findings []string   `json:"findings,omitempty"`
	Persist  bool       `json:"persist,omitempty"`
	// Deadline of a dead-man timer (OpWatchdog).
	Deadline time.Time `json:"deadline,omitempty"`
	// Prev is the SHA-256 of the previous line: an edited or damaged
	// journal is told from a good one before it is acted on.
	Prev string `json:"prev,omitempty"`
}

// Journal is a directory of transactions, one append-only JSON-lines file
// each (TX-ID.jsonl). Every record is fsync'd before the step it announces;
// a new file is fsync'd with its directory.
type Journal struct {
	Dir string
	// Hook, when set, is called after every durable step (a journal
	// record or a write to the host); the crash test kills the process there.
	Hook func()
}

// DefaultDir is /var/lib/tuneloop/journal for root, else
// $XDG_STATE_HOME/tuneloop/journal (~/.local/state/tuneloop/journal).
func DefaultDir(getenv func(string) string) string {
	if os.Geteuid() == 0 {
		return "/var/lib/tuneloop/journal"
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "tuneloop", "journal")
	}
	home := getenv("HOME")
	if home == "" {
		home = "."
	}
	return filepath.Join(home, ".local", "state", "tuneloop", "journal")
}

func (j *Journal) step() {
	if j.Hook != nil {
		j.Hook()
	}
}

// lock takes the journal's single-writer lock (flock on DIR/.lock); the
// returned func releases it. Apply, revert, confirm and the watchdog all
// take it, so they never interleave.
func (j *Journal) lock() (func(), error) {
	if err := os.MkdirAll(j.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w", j.Dir, err)
	}
	f, err := os.OpenFile(filepath.Join(j.Dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("journal lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// txFile is an open transaction file, appended to record by record.
type txFile struct {
	j    *Journal
	id   string
	f    *os.File
	seq  int
	prev string // hash of the last line written
}

// newTxID is sortable by time: 20261125-174831-3f2a.
func newTxID(now time.Time) string {
	var b [2]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// create starts a new transaction file and makes its name durable.
func (j *Journal) create(now time.Time) (*txFile, error) {
	if err := os.MkdirAll(j.Dir, 0o700); err != nil {
		return nil, err
	}
	for i := 0; i < 10; i++ {
		id := newTxID(now)
		f, err := os.OpenFile(filepath.Join(j.Dir, id+".jsonl"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := syncDir(j.Dir); err != nil {
			f.Close()
			return nil, err
		}
		return &txFile{j: j, id: id, f: f}, nil
	}
	return nil, errors.New("journal: could not pick a transaction ID")
}

// reopen appends to an existing transaction, dropping a torn last line (a
// crash of the machine mid-write; a killed process never tears a write).
func (j *Journal) reopen(id string, recs []Record) (*txFile, error) {
	p := filepath.Join(j.Dir, id+".jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if n := bytes.LastIndexByte(b, '\n') + 1; n < len(b) {
		if err := os.Truncate(p, int64(n)); err != nil {
			return nil, err
		}
		b = b[:n]
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	seq := 0
	if len(recs) > 0 {
		seq = recs[len(recs)-1].Seq
	}
	prev := ""
	if len(b) > 0 {
		body := b[:len(b)-1]
		prev = lineHash(body[bytes.LastIndexByte(body, '\n')+1:])
	}
	return &txFile{j: j, id: id, f: f, seq: seq, prev: prev}, nil
}

// add appends one record and fsyncs it before returning.
func (t *txFile) add(r Record) error {
	t.seq++
	r.Seq, r.Prev = t.seq, t.prev
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	t.prev = lineHash(b)
	if _, err := t.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", t.id, err)
	}
	if err := t.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: %w", t.id, err)
	}
	t.j.step()
	return nil
}

func (t *txFile) close() error { return t.f.Close() }

func lineHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ChainError is a journal whose lines do not follow each other (edited,
// or damaged on disk): not acted on unless forced.
type ChainError struct {
	Tx  string
	Seq int
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("journal %s: record %d does not follow the one before (edited or damaged)", e.Tx, e.Seq)
}

// read returns the records of one transaction; a torn last line is
// ignored. A broken hash chain returns the records and a *ChainError.
func (j *Journal) read(id string) ([]Record, error) {
	if !validID(id) {
		return nil, fmt.Errorf("no transaction %q", id)
	}
	f, err := os.Open(filepath.Join(j.Dir, id+".jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no transaction %q in %s", id, j.Dir)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Record
	var chain error
	prev := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue // torn tail; a complete line always parses
		}
		if r.Prev != prev && chain == nil {
			chain = &ChainError{Tx: id, Seq: r.Seq}
		}
		prev = lineHash(sc.Bytes())
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	return out, chain
}

// validID accepts the IDs newTxID makes (no path separators or dots).
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-') {
			return false
		}
	}
	return true
}

// ids lists the transactions, oldest first.
func (j *Journal) ids() ([]string, error) {
	es, err := os.ReadDir(j.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && validID(id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}

// syncDir fsyncs a directory, so a created, renamed or removed name in it
// survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
