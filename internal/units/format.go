package units

import (
	"math"
	"strconv"
	"strings"
)

// FormatJVMSize writes a byte count as the JVM option value that reads
// back to it: the largest of g/m/k that divides it ("4g", "768m"), else
// plain bytes. It is ParseJVMSize's inverse.
func FormatJVMSize(b int64) string {
	for _, u := range [...]struct {
		sh uint
		c  string
	}{{30, "g"}, {20, "m"}, {10, "k"}} {
		if b > 0 && b%(1<<u.sh) == 0 {
			return strconv.FormatInt(b>>u.sh, 10) + u.c
		}
	}
	return strconv.FormatInt(b, 10)
}

// FormatBytes writes a byte count for a person to read, in binary units:
// GiB with one decimal ("15.4 GiB"), MiB and KiB whole ("512 MiB"), else
// bytes ("900 B"). It is the figure the rules quote (memory limits, heap,
// swap); the goldens of `check` hold it.
func FormatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB"
	case b >= 1<<20:
		return strconv.FormatFloat(float64(b)/(1<<20), 'f', 0, 64) + " MiB"
	case b >= 1<<10:
		return strconv.FormatFloat(float64(b)/(1<<10), 'f', 0, 64) + " KiB"
	}
	return strconv.FormatInt(b, 10) + " B"
}

// FormatBytesExact writes a byte count without rounding, for a limit a
// user may give back or a size they chose (a probe's message size): the
// largest of GiB/MiB/KiB that divides it ("64 MiB", "2 GiB"), else "N B".
func FormatBytesExact(n int64) string {
	for _, u := range [...]struct {
		sh   uint
		name string
	}{{30, " GiB"}, {20, " MiB"}, {10, " KiB"}} {
		if n >= 1<<u.sh && n%(1<<u.sh) == 0 {
			return strconv.FormatInt(n>>u.sh, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// FormatBytesScaled writes a byte count in the largest binary unit up to
// GiB that leaves it at least 1 (B, KiB, MiB, GiB), with prec decimals and
// the fraction's trailing zeros cut ("1.5 KiB", "4 MiB", "900 B"): a size
// that is measured, not a limit, where one decimal tells 1.0 from 1.4 MiB
// (profile totals, a file kept in part, a JVM's heap). A negative count
// scales by its magnitude.
func FormatBytesScaled(v float64, prec int) string {
	f, u := scaleBytes(v)
	s := strconv.FormatFloat(f, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s + " " + u
}

// FormatMiB writes a size already in MiB with prec decimals ("4096 MiB"):
// the GC reports keep one unit through a log, as the logs' own "M" (MiB)
// does, so sizes read against each other without rescaling.
func FormatMiB(mib float64, prec int) string {
	return strconv.FormatFloat(mib, 'f', prec, 64) + " MiB"
}

// FormatBytesSig is FormatBytesScaled with digits significant digits
// instead of fixed decimals ("1.23 MiB", "-512 B", "0.5 B"): a figure per
// request, which may be a fraction of a byte.
func FormatBytesSig(v float64, digits int) string {
	f, u := scaleBytes(v)
	return strconv.FormatFloat(f, 'g', digits, 64) + " " + u
}

// scaleBytes divides v by 1024 until it is under 1024 in magnitude or in
// GiB, and names the unit.
func scaleBytes(v float64) (float64, string) {
	u := "B"
	for _, next := range [...]string{"KiB", "MiB", "GiB"} {
		if math.Abs(v) < 1024 {
			break
		}
		v, u = v/1024, next
	}
	return v, u
}
