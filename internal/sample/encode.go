package sample

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Encoder writes Snapshots as JSON lines, one object per tick, each written
// with a single Write (so a crash leaves whole lines).
type Encoder struct {
	w    io.Writer
	buf  bytes.Buffer
	enc  *json.Encoder
	last int // bytes of the last line, for benchmarks
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	e := &Encoder{w: w}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// Encode writes s as one line.
func (e *Encoder) Encode(s *Snapshot) error {
	e.buf.Reset()
	if err := e.enc.Encode(s); err != nil {
		return err
	}
	e.last = e.buf.Len()
	_, err := e.w.Write(e.buf.Bytes())
	return err
}

// Decoder reads the lines an Encoder wrote.
type Decoder struct {
	r    *bufio.Reader
	line int
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: bufio.NewReaderSize(r, 1<<20)} }

// Decode reads the next Snapshot into s; io.EOF at the end. A line that is
// not a snapshot (a torn last line after a crash) is an error naming it;
// the caller may go on to the next one.
func (d *Decoder) Decode(s *Snapshot) error {
	for {
		line, err := d.r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return err
		}
		d.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		*s = Snapshot{}
		if e := json.Unmarshal(line, s); e != nil {
			return fmt.Errorf("line %d: %w", d.line, e)
		}
		return nil
	}
}

// Replay reads a samples.jsonl stream and calls fn with the rates between
// each two consecutive snapshots and the later snapshot, holding only two
// in memory. A line that does not decode (a torn last line after a crash)
// goes to bad, if not nil, and is skipped; an interval that goes back in
// time (a wall clock step) is skipped. fn's error stops the replay.
func Replay(r io.Reader, fn func(rates *Rates, cur *Snapshot) error, bad func(error)) error {
	d := NewDecoder(r)
	var snaps [2]Snapshot
	n := 0
	for {
		cur := &snaps[n%2]
		err := d.Decode(cur)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			if errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, errBadThread) {
				if bad != nil {
					bad(err)
				}
				continue
			}
			return err
		}
		if n > 0 {
			if rates, err := Delta(&snaps[(n+1)%2], cur); err == nil {
				if err := fn(rates, cur); err != nil {
					return err
				}
			}
		}
		n++
	}
}

var errBadThread = errors.New("bad thread row")

// MarshalJSON writes each thread as an array:
// [tid, "name", "state", cpu, utime, stime, start, run_ns, wait_ns, vcs, nvcs].
func (ts Threads) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 80*len(ts)+2)
	b = append(b, '[')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(t.TID), 10)
		b = append(b, ',')
		b = appendJSONString(b, t.Name)
		b = append(b, ",\""...)
		if t.State >= 'A' && t.State <= 'z' && t.State != '\\' {
			b = append(b, t.State)
		}
		b = append(b, "\","...)
		b = strconv.AppendInt(b, int64(t.CPU), 10)
		for _, v := range [...]uint64{t.Utime, t.Stime, t.Start, t.RunNS, t.WaitNS, t.VCS, t.NVCS} {
			b = append(b, ',')
			b = strconv.AppendUint(b, v, 10)
		}
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (ts *Threads) UnmarshalJSON(b []byte) error {
	var rows [][]json.RawMessage
	if err := json.Unmarshal(b, &rows); err != nil {
		return err
	}
	out := make(Threads, 0, len(rows))
	for i, r := range rows {
		if len(r) < 11 {
			return fmt.Errorf("%w %d: %d fields, want 11", errBadThread, i, len(r))
		}
		var t Thread
		var state string
		var cpu int32
		errs := []error{json.Unmarshal(r[0], &t.TID), json.Unmarshal(r[1], &t.Name), json.Unmarshal(r[2], &state), json.Unmarshal(r[3], &cpu)}
		for j, dst := range [...]*uint64{&t.Utime, &t.Stime, &t.Start, &t.RunNS, &t.WaitNS, &t.VCS, &t.NVCS} {
			errs = append(errs, json.Unmarshal(r[4+j], dst))
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("%w %d: %w", errBadThread, i, err)
		}
		t.CPU = cpu
		if len(state) == 1 {
			t.State = state[0]
		}
		out = append(out, t)
	}
	*ts = out
	return nil
}

// appendJSONString quotes s for JSON. Thread names are bytes the program
// chose: control bytes and invalid UTF-8 are escaped as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20 || c == 0x7f:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
