package units

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Shift is the power of two a size suffix letter stands for: k 10, m 20,
// g 30, t 40 (either case, binary as in HotSpot). ok is false for any
// other byte. It is the one table of size letters: ParseJVMSize and
// ParseBytes, the GC log scanner (gclog parseSizeKB, on its hot path, so
// it stays a switch that inlines) and the thread dump header's
// allocated= (threaddump parseBytes) call it.
func Shift(c byte) (shift uint, ok bool) {
	switch c {
	case 'k', 'K':
		return 10, true
	case 'm', 'M':
		return 20, true
	case 'g', 'G':
		return 30, true
	case 't', 'T':
		return 40, true
	}
	return 0, false
}

// ParseJVMSize reads a size in HotSpot's syntax (-Xmx, -XX:MaxMetaspaceSize):
// decimal digits or a 0x hex number, with an optional k/m/g/t suffix in
// either case ("4g", "512M", "0x100", "1048576"). Like the JVM it refuses
// a sign, spaces, fractions, a "B" ("1gb") and anything over int64.
func ParseJVMSize(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	sh, ok := Shift(s[len(s)-1])
	if ok {
		s = s[:len(s)-1]
	}
	var n uint64
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		n, ok = ParseHex(s[2:])
	} else {
		n, ok = parseDec(s)
	}
	if !ok || n > uint64(math.MaxInt64)>>sh {
		return 0, false
	}
	return int64(n << sh), true
}

// ParseBytes reads a size a person typed (--max-input and the like): every
// form ParseJVMSize takes, plus space around it and before the unit, a
// leading "+", and a unit spelt with "B", "iB" or "i" in any case
// ("4GiB", "4 GB", "512mb", "4Gi", "100b"). Units are binary: "GB" is
// 2^30, as the JVM reads "g". It refuses negatives and overflow.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "+")
	if v, ok := ParseJVMSize(t); ok { // first, so that hex "0x1B" is 27, not 1 byte
		return v, nil
	}
	// Drop a "B"/"iB"/"i" tail so that what is left ends in the unit letter.
	if n := len(t); n > 0 && (t[n-1] == 'b' || t[n-1] == 'B') {
		t = t[:n-1]
		if n := len(t); n > 1 && (t[n-1] == 'i' || t[n-1] == 'I') {
			if _, ok := Shift(t[n-2]); ok {
				t = t[:n-1]
			}
		}
	} else if n > 1 && (t[n-1] == 'i' || t[n-1] == 'I') {
		if _, ok := Shift(t[n-2]); ok {
			t = t[:n-1]
		}
	}
	// "100 K": one run of spaces before the unit letter.
	if n := len(t); n > 1 {
		if _, ok := Shift(t[n-1]); ok {
			t = strings.TrimRight(t[:n-1], " \t") + t[n-1:]
		} else {
			t = strings.TrimRight(t, " \t")
		}
	}
	v, ok := ParseJVMSize(t)
	if !ok {
		return 0, fmt.Errorf("%w: want a size such as 512M, 4G or 4GiB, got %q", ErrSize, finding.Clip(s, 40))
	}
	return v, nil
}

// ErrSize is what ParseBytes's errors wrap.
var ErrSize = errors.New("not a size")

// parseDec reads unsigned decimal digits into a uint64 without allocating.
func parseDec[T ~string | ~[]byte](b T) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
