package experiment

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// LogFile is the trial log's name in the experiment folder.
const LogFile = "trials.jsonl"

// Log operations.
const (
	OpPlan     = "plan"     // the plan's hash and seed: a resume must match it
	OpStart    = "start"    // a trial begins (its key, arm, folder)
	OpApplied  = "applied"  // host knobs applied as transaction Tx
	OpReverted = "reverted" // transaction Tx reverted
	OpDone     = "done"     // a trial measured
	OpFailed   = "failed"   // a trial refused (its arm is out)
	OpStopped  = "stopped"  // Ctrl-C during the trial: where the experiment stopped
	OpDrop     = "drop"     // an arm left out after a round
	OpEnd      = "end"      // the experiment finished
)

// Record is one line of the trial log.
type Record struct {
	Op       string        `json:"op"`
	Time     time.Time     `json:"time"`
	PlanHash string        `json:"plan_hash,omitempty"`
	Seed     uint64        `json:"seed,omitempty"`
	Key      string        `json:"key,omitempty"` // phase/round/block/position
	Arm      string        `json:"arm,omitempty"`
	Dir      string        `json:"dir,omitempty"`
	Tx       string        `json:"tx,omitempty"`
	M        *Measurement  `json:"m,omitempty"`
	Reason   *finding.Text `json:"reason,omitempty"`
}

// TrialLog is the append-only log of an experiment: each record is one
// JSON line, fsync'd before the step it announces is taken.
type TrialLog struct {
	f *os.File
	// Recs are the records read back at open (a torn last line dropped).
	Recs []Record
	// Torn is set when the last line was cut off (a crash mid-write).
	Torn bool
	now  func() time.Time
}

// OpenLog opens (creating) dir/trials.jsonl and reads what it holds. A last
// line without its newline or not valid JSON is a write cut short: it is
// cut off the file before anything is appended.
func OpenLog(dir string) (*TrialLog, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LogFile)
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if os.IsNotExist(statErr) {
		// A new file survives a crash only once its directory entry does.
		if d, err := os.Open(dir); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
	l := &TrialLog{f: f, now: time.Now}
	good, err := l.read()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// read parses the log and returns the length of its good part.
func (l *TrialLog) read() (int64, error) {
	r := bufio.NewReader(l.f)
	var good int64
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			l.Torn = len(b) > 0
			return good, nil
		}
		if err != nil {
			return 0, err
		}
		var rec Record
		if jerr := json.Unmarshal(b, &rec); jerr != nil {
			// Only the last line may be torn; damage before it is not ours
			// to guess around.
			if _, perr := r.Peek(1); perr == nil {
				return 0, finding.Errorf(finding.T("%s line %d: not a trial record (%v)", "%s 第 %d 行：不是试验记录（%v）"), LogFile, line, jerr)
			}
			l.Torn = true
			return good, nil
		}
		l.Recs = append(l.Recs, rec)
		good += int64(len(b))
	}
}

// Add appends r (its time set) and fsyncs it.
func (l *TrialLog) Add(r Record) error {
	if r.Time.IsZero() {
		r.Time = l.now().UTC()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("trial log: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("trial log: %w", err)
	}
	l.Recs = append(l.Recs, r)
	return nil
}

// Close closes the log file.
func (l *TrialLog) Close() error { return l.f.Close() }

// PlanHash is the hash of what decides the trials: the plan as read (with
// its defaults) and the seed. A resume with another plan is refused.
func PlanHash(p *Plan) string {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(p)
	s := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(s[:8])
}

// resumeState is what an earlier run of the experiment left in the log.
type resumeState struct {
	done   map[string]Measurement
	failed map[string]finding.Text // by key
	open   []string                // transactions applied and not reverted
	ended  bool
}

func (l *TrialLog) state() resumeState {
	st := resumeState{done: map[string]Measurement{}, failed: map[string]finding.Text{}}
	openTx := map[string]bool{}
	var order []string
	for _, r := range l.Recs {
		switch r.Op {
		case OpDone:
			if r.M != nil {
				st.done[r.Key] = *r.M
			}
		case OpFailed:
			if r.Reason != nil {
				st.failed[r.Key] = *r.Reason
			}
		case OpApplied:
			openTx[r.Tx] = true
			order = append(order, r.Tx)
		case OpReverted:
			delete(openTx, r.Tx)
		case OpEnd:
			st.ended = true
		}
	}
	for i := len(order) - 1; i >= 0; i-- { // newest first
		if openTx[order[i]] {
			st.open = append(st.open, order[i])
			delete(openTx, order[i])
		}
	}
	return st
}
