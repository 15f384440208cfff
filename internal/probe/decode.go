package probe

// probe.json, as Run writes it (abridged):
//
//	{"schema": "tuneloop.probe/v1", "tool": "tuneloop 0.9", "parts": ["net"], "rounds": 7,
//	 "figures": [{"id": "net.tcp_lat.1", "part": "net", "unit": "us", "median": 4.04,
//	   "lo": 3.26, "hi": 41.1, "coverage": 0.969, "ci_ok": true, "rounds": [4.0, 3.3, ...]}],
//	 "core_to_core": {"cpus": [0, 1], "ns": [[null, 891], [891, null]], "rounds": 6}}

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// MaxFileBytes caps a probe.json read back (a large host's matrix is well under).
const MaxFileBytes = 32 << 20

// Caps on what a probe.json may hold: it may come from anywhere.
const (
	maxFigures     = 4096
	maxRounds      = 1000
	maxMatrixSide  = 1024
	maxDistBuckets = 64
)

// Decode reads a probe.json written by Run, as untrusted input: the
// schema must match, the matrix must be square and every list bounded,
// so no renderer can index out of range. name is for messages.
func Decode(r io.Reader, name string) (*Result, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s: over %d MiB: not a probe", name, MaxFileBytes>>20)
	}
	var res Result
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&res); err != nil {
		var se *json.SyntaxError
		if ok := asSyntax(err, &se); ok {
			line := bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")) + 1
			return nil, fmt.Errorf("%s:%d: not a probe: %v", name, line, err)
		}
		return nil, fmt.Errorf("%s: not a probe: %v", name, err)
	}
	if res.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %.40q, want %q", name, res.Schema, Schema)
	}
	switch res.Status {
	case "", StatusProbing, StatusComplete, StatusInterrupted:
	default:
		return nil, fmt.Errorf("%s: status %.40q unknown (want %s, %s or %s)", name, res.Status, StatusProbing, StatusComplete, StatusInterrupted)
	}
	if len(res.Figures) > maxFigures {
		return nil, fmt.Errorf("%s: %d figures (at most %d)", name, len(res.Figures), maxFigures)
	}
	for i := range res.Figures {
		f := &res.Figures[i]
		if f.ID == "" {
			return nil, fmt.Errorf("%s: figure %d has no id", name, i+1)
		}
		if len(f.Rounds) > maxRounds || len(f.Preempt) > maxRounds || len(f.Segment) > maxRounds || len(f.Dist) > maxDistBuckets {
			return nil, fmt.Errorf("%s: figure %.60q: too many rounds or buckets", name, f.ID)
		}
		for _, v := range f.Rounds {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: figure %.60q: a round is not a number", name, f.ID)
			}
		}
	}
	if m := res.Matrix; m != nil {
		n := len(m.CPUs)
		if n > maxMatrixSide || len(m.NS) != n {
			return nil, fmt.Errorf("%s: core-to-core matrix is %d rows for %d CPUs", name, len(m.NS), n)
		}
		for i, row := range m.NS {
			if len(row) != n {
				return nil, fmt.Errorf("%s: core-to-core matrix row %d has %d cells for %d CPUs", name, i+1, len(row), n)
			}
		}
	}
	return &res, nil
}

func asSyntax(err error, se **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*se = s
	}
	return ok
}
