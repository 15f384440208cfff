package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// RlimInfinity is RLIM_INFINITY on Linux (all of amd64 and arm64).
const RlimInfinity = math.MaxUint64

// ParseRlimitValue reads one limit: "unlimited", "infinity" (systemd's
// word) or "-1" (prlimit's) as RlimInfinity, or a decimal count below it.
// It does not allocate, so /proc/PID/limits sampling can call it.
func ParseRlimitValue[T ~string | ~[]byte](b T) (uint64, bool) {
	switch string(b) {
	case "unlimited", "infinity", "-1":
		return RlimInfinity, true
	}
	v, ok := parseDec(b)
	if !ok || v == RlimInfinity {
		return 0, false
	}
	return v, true
}

// ParseRlimit reads a limit a person gave: "N" (soft and hard), or
// "SOFT:HARD", each as ParseRlimitValue with space around it allowed. A
// soft limit above the hard one is refused (the kernel would refuse it).
func ParseRlimit(s string) (soft, hard uint64, err error) {
	a, b, pair := strings.Cut(strings.TrimSpace(s), ":")
	if !pair {
		b = a
	}
	var ok bool
	if soft, ok = ParseRlimitValue(strings.TrimSpace(a)); !ok {
		return 0, 0, fmt.Errorf("%w: %q (want a number, unlimited, or SOFT:HARD)", ErrRlimit, finding.Clip(s, 40))
	}
	if hard, ok = ParseRlimitValue(strings.TrimSpace(b)); !ok {
		return 0, 0, fmt.Errorf("%w: %q (want a number, unlimited, or SOFT:HARD)", ErrRlimit, finding.Clip(s, 40))
	}
	if soft > hard {
		return 0, 0, fmt.Errorf("%q: %w", finding.Clip(s, 40), ErrSoftAboveHard)
	}
	return soft, hard, nil
}

// ErrRlimit is what ParseRlimit's errors wrap; ErrSoftAboveHard wraps it.
var (
	ErrRlimit        = errors.New("not a limit")
	ErrSoftAboveHard = fmt.Errorf("%w: the soft limit is above the hard one", ErrRlimit)
)

// FormatRlimit writes a limit as ulimit and /proc/PID/limits do.
func FormatRlimit(v uint64) string {
	if v == RlimInfinity {
		return "unlimited"
	}
	return strconv.FormatUint(v, 10)
}
