package probe

import (
	"encoding/json"
	"math"
)

// jnum is a float64 that JSON writes as null when it is not a number
// (a figure without rounds, the matrix's diagonal) and reads back as NaN.
type jnum float64

func (n jnum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

func (n *jnum) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = jnum(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(n))
}

// figureJSON shadows Figure's numbers that may be NaN.
type figureJSON struct {
	plainFigure
	Median jnum `json:"median"`
	Lo     jnum `json:"lo"`
	Hi     jnum `json:"hi"`
}

type plainFigure Figure

// MarshalJSON writes NaN as null.
func (f Figure) MarshalJSON() ([]byte, error) {
	return json.Marshal(figureJSON{plainFigure(f), jnum(f.Median), jnum(f.Lo), jnum(f.Hi)})
}

// UnmarshalJSON reads null as NaN.
func (f *Figure) UnmarshalJSON(b []byte) error {
	v := figureJSON{Median: jnum(math.NaN()), Lo: jnum(math.NaN()), Hi: jnum(math.NaN())}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Figure(v.plainFigure)
	f.Median, f.Lo, f.Hi = float64(v.Median), float64(v.Lo), float64(v.Hi)
	return nil
}

type plainMatrix Matrix

type matrixJSON struct {
	plainMatrix
	NS [][]jnum `json:"ns"`
}

// MarshalJSON writes the diagonal (NaN) as null.
func (m Matrix) MarshalJSON() ([]byte, error) {
	v := matrixJSON{plainMatrix: plainMatrix(m), NS: make([][]jnum, len(m.NS))}
	for i, row := range m.NS {
		v.NS[i] = make([]jnum, len(row))
		for j, x := range row {
			v.NS[i][j] = jnum(x)
		}
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads null as NaN.
func (m *Matrix) UnmarshalJSON(b []byte) error {
	var v matrixJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = Matrix(v.plainMatrix)
	m.NS = make([][]float64, len(v.NS))
	for i, row := range v.NS {
		m.NS[i] = make([]float64, len(row))
		for j, x := range row {
			m.NS[i][j] = float64(x)
		}
	}
	return nil
}

type plainRow CompareRow

type rowJSON struct {
	plainRow
	ChangePct jnum `json:"change_pct"`
	LoPct     jnum `json:"lo_pct"`
	HiPct     jnum `json:"hi_pct"`
}

// MarshalJSON writes an unknown change as null.
func (r CompareRow) MarshalJSON() ([]byte, error) {
	return json.Marshal(rowJSON{plainRow(r), jnum(r.ChangePct), jnum(r.LoPct), jnum(r.HiPct)})
}
