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
