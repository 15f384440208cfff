// Package loaddetail is a load test's detail over time as a run folder keeps
// it (raw/load-detail.json): per second (or per few seconds, when capped)
// the requests, errors by kind, responses by status code, p50/p90/p99/max,
// the open model's send lag, the busiest labels' requests and p90, and the
// latency at each percentile of the whole load. load.json is the summary;
// this is what the load charts of a run's report are drawn from.
//
// The file is written by the run flow and read back as untrusted input:
// Decode checks its shape and bounds, so a damaged or hostile file is an
// error to report, not a page drawn from nonsense. It imports nothing of
// tuneloop: the recorder that fills it (report.LoadRecorder) and the reader
// (verdict) both depend on it.
package loaddetail

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// File is the detail's place in a run folder.
const File = "raw/load-detail.json"

// Schema names the format.
const Schema = "tuneloop.load-detail/v1"

// Bounds that keep the file small whatever the load's length or labels:
// beyond MaxRows seconds, rows cover several seconds each (Width); beyond
// MaxLabels labels, the busiest are kept (the summary has every label).
const (
	MaxRows     = 1800
	MaxLabels   = 12
	MaxKeys     = 32      // distinct error kinds or status codes, over the whole detail
	MaxBytes    = 8 << 20 // a file larger than this is refused
	maxPoints   = 100     // percentile plot points
	maxKeyBytes = 64
)

// Detail is the load over time.
type Detail struct {
	Schema string `json:"schema"`
	// Start is the Unix second of the first row; a row's T counts from it.
	Start int64 `json:"start"`
	// Width is how many seconds one row covers: 1, or more when the load was
	// longer than MaxRows seconds (then Seconds says how many it had).
	Width   int `json:"width"`
	Seconds int `json:"seconds"`
	// LabelsDropped is how many labels had no series of their own (past
	// MaxLabels, or past the recorder's own bound).
	LabelsDropped int `json:"labels_dropped,omitempty"`
	// Rows are every row from Start on, one per Width seconds (a row
	// without requests has N 0).
	Rows []Row `json:"rows"`
	// Labels are the busiest labels, their counts aligned with Rows.
	Labels []Label `json:"labels,omitempty"`
	// Percentiles is the whole load's latency at each percentile.
	Percentiles []Point `json:"percentiles,omitempty"`
}

// Row is one second (Width seconds) of the load. Latencies are in ms and
// mean nothing when N is 0; the lag means nothing when Lagged is 0.
type Row struct {
	T int `json:"t"` // seconds after Start
	// Span is how much of the row the measured window covered, in seconds
	// (Width but at the window's edges): counts divided by it are rates.
	Span   float64          `json:"span"`
	N      int64            `json:"n"`
	Errors int64            `json:"errors,omitempty"`
	P50    float64          `json:"p50,omitempty"`
	P90    float64          `json:"p90,omitempty"`
	P99    float64          `json:"p99,omitempty"`
	Max    float64          `json:"max,omitempty"`
	Kinds  map[string]int64 `json:"kinds,omitempty"` // errors by kind
	Codes  map[string]int64 `json:"codes,omitempty"` // responses by status code
	// Lagged sends had a lag behind the open model's schedule: its mean and max.
	Lagged  int64   `json:"lagged,omitempty"`
	LagMean float64 `json:"lag_mean,omitempty"`
	LagMax  float64 `json:"lag_max,omitempty"`
}

// Label is one label's requests and p90 (ms) per row; the p90 of a row
// without its requests means nothing.
type Label struct {
	Label string    `json:"label"`
	N     []int64   `json:"n"`
	P90   []float64 `json:"p90"`
}

// Point is the latency (ms) at or below which Pct% of the requests completed.
type Point struct {
	Pct float64 `json:"pct"`
	MS  float64 `json:"ms"`
}

// Capped says whether the detail is coarser than the load: rows of several
// seconds, or labels without a series.
func (d *Detail) Capped() bool { return d.Width > 1 || d.LabelsDropped > 0 }

// Decode reads a detail written by the run flow, checking it as untrusted:
// the schema, the bounds above, rows in time order within the seconds it
// claims, labels aligned with the rows, numbers finite and not negative.
func Decode(b []byte) (*Detail, error) {
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxBytes)
	}
	var d Detail
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	return &d, nil
}

func (d *Detail) check() error {
	switch {
	case d.Schema != Schema:
		return fmt.Errorf("schema %q, want %q", d.Schema, Schema)
	case d.Width < 1 || d.Width > 1<<20:
		return fmt.Errorf("row width %d s", d.Width)
	case len(d.Rows) == 0:
		return errors.New("no rows")
	case len(d.Rows) > MaxRows:
		return fmt.Errorf("%d rows, at most %d", len(d.Rows), MaxRows)
	case len(d.Labels) > MaxLabels:
		return fmt.Errorf("%d label series, at most %d", len(d.Labels), MaxLabels)
	case len(d.Percentiles) > maxPoints:
		return fmt.Errorf("%d percentile points, at most %d", len(d.Percentiles), maxPoints)
	case d.Seconds < 1 || (d.Seconds+d.Width-1)/d.Width != len(d.Rows) || d.LabelsDropped < 0:
		return fmt.Errorf("%d rows of %d s for %d seconds", len(d.Rows), d.Width, d.Seconds)
	}
	keys := map[string]bool{}
	for i, r := range d.Rows {
		if r.T != i*d.Width {
			return fmt.Errorf("row %d: t=%d, want %d", i, r.T, i*d.Width)
		}
		if r.N < 0 || r.Errors < 0 || r.Errors > r.N || r.Lagged < 0 || r.Lagged > r.N {
			return fmt.Errorf("row %d: counts %d/%d/%d", i, r.N, r.Errors, r.Lagged)
		}
		for _, v := range []float64{r.Span, r.P50, r.P90, r.P99, r.Max, r.LagMean, r.LagMax} {
			if !ok(v) {
				return fmt.Errorf("row %d: a value %v", i, v)
			}
		}
		if r.Span > float64(d.Width) {
			return fmt.Errorf("row %d: span %v s in a row of %d s", i, r.Span, d.Width)
		}
		for _, m := range []map[string]int64{r.Kinds, r.Codes} {
			for k, n := range m {
				if n < 0 || len(k) > maxKeyBytes {
					return fmt.Errorf("row %d: count %q %d", i, k, n)
				}
				keys[k] = true
			}
		}
	}
	if len(keys) > 2*MaxKeys {
		return fmt.Errorf("%d distinct kinds and codes, at most %d", len(keys), 2*MaxKeys)
	}
	for _, l := range d.Labels {
		if len(l.N) != len(d.Rows) || len(l.P90) != len(d.Rows) || len(l.Label) > 1024 {
			return fmt.Errorf("label series %.40q not aligned with the rows", l.Label)
		}
		for i := range l.N {
			if l.N[i] < 0 || !ok(l.P90[i]) {
				return fmt.Errorf("label series %.40q: row %d", l.Label, i)
			}
		}
	}
	for _, p := range d.Percentiles {
		if !ok(p.MS) || !ok(p.Pct) || p.Pct > 100 {
			return fmt.Errorf("percentile point %v", p)
		}
	}
	return nil
}

// ok is a value a row may hold: finite, not negative.
func ok(v float64) bool { return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
