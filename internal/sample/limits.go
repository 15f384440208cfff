package sample

// /proc/PID/limits: one row per resource limit, the name holding spaces,
// then the soft and hard limits ("unlimited" for RLIM_INFINITY) and a unit
// that some rows lack. Sample:
//
//	Limit                     Soft Limit           Hard Limit           Units
//	Max cpu time              unlimited            unlimited            seconds
//	Max open files            20000                20000                files
//	Max nice priority         0                    0
//
// ParseLimits is the one reader of this file: sysinfo's JVM facts, the
// experiment's read-back of launch limits and (through the same row
// reader, allocation-free) the process sampler's open files limit.

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Unlimited is how a Limit holds "unlimited" (RLIM_INFINITY), as prlimit
// writes it: -1.
const Unlimited = -1

// Limit is one row of /proc/PID/limits; Unlimited (-1) is no limit.
type Limit struct {
	Soft int64  `json:"soft"`
	Hard int64  `json:"hard"`
	Unit string `json:"unit,omitempty"`
}

// ParseLimits reads a whole /proc/PID/limits into name -> limit ("Max open
// files"). The header line is optional; a bad row is skipped and the first
// one reported as an ErrParse naming its line; a file without one row is
// an error.
func ParseLimits(b []byte) (map[string]Limit, error) {
	var sc scratch
	m := map[string]Limit{}
	var err error
	l := lines{b: b}
	for l.next() {
		f := sc.fields(l.line)
		if len(f) == 0 || (l.n == 1 && string(f[0]) == "Limit") {
			continue
		}
		n, lim, what := limitRow(f)
		if what.EN != "" {
			firstErr(&err, badLine(l.n, l.line, what))
			continue
		}
		name := bytes.Join(f[:n], []byte(" "))
		if !utf8.Valid(name) || bytes.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			firstErr(&err, badLine(l.n, l.line, finding.T("binary name", "名称为二进制内容")))
			continue
		}
		m[string(name)] = Limit{Soft: lim.Soft, Hard: lim.Hard, Unit: string(lim.unit)}
	}
	if len(m) == 0 && err == nil {
		err = badLine(l.n, nil, finding.T("no limit rows", "没有限制行"))
	}
	return m, err
}

// row is a Limit whose unit aliases the input.
type row struct {
	Soft, Hard int64
	unit       []byte
}

// limitRow reads a row's fields from the right: an optional unit (a last
// field that is not a value), then hard and soft. n is the number of name
// fields; what says what is wrong. It does not allocate.
func limitRow(f [][]byte) (n int, r row, what finding.Text) {
	if k := len(f); k > 0 {
		if _, ok := limitValue(f[k-1]); !ok {
			r.unit, f = f[k-1], f[:k-1]
		}
	}
	if len(f) < 3 {
		return 0, r, finding.T(`want "Name Soft Hard [Unit]"`, `应为 "Name Soft Hard [Unit]"`)
	}
	var ok1, ok2 bool
	r.Soft, ok1 = limitValue(f[len(f)-2])
	r.Hard, ok2 = limitValue(f[len(f)-1])
	if !ok1 || !ok2 {
		return 0, r, finding.T("bad limit value", "限制值无效")
	}
	return len(f) - 2, r, finding.Text{}
}

// limitValue reads a soft or hard column through units.ParseRlimitValue
// ("unlimited", "infinity", "-1" or a count): RLIM_INFINITY is Unlimited;
// a count above int64 is refused.
func limitValue(b []byte) (int64, bool) {
	v, ok := units.ParseRlimitValue(b)
	switch {
	case !ok:
		return 0, false
	case v == units.RlimInfinity:
		return Unlimited, true
	case v > math.MaxInt64:
		return 0, false
	}
	return int64(v), true
}
