package units

import "strconv"

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
// user may give back: the largest of GiB/MiB/KiB that divides it
// ("64 MiB", "2 GiB"), else "N bytes".
func FormatBytesExact(n int64) string {
	for _, u := range [...]struct {
		sh   uint
		name string
	}{{30, " GiB"}, {20, " MiB"}, {10, " KiB"}} {
		if n >= 1<<u.sh && n%(1<<u.sh) == 0 {
			return strconv.FormatInt(n>>u.sh, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
