package units

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// Which copy accepted which form: ap = apply/knob.go parseLimits
// (unlimited, infinity, -1), ex = experiment/launchknobs.go parseLimit
// (unlimited only; refuses soft > hard), si = sysinfo/procfiles.go and
// sa = sample/proc.go (/proc/PID/limits: unlimited or a number).
func TestParseRlimit(t *testing.T) {
	const inf = RlimInfinity
	for _, tt := range []struct {
		in         string
		soft, hard uint64
		ok         bool
	}{
		{"1024", 1024, 1024, true},           // ap ex
		{"0", 0, 0, true},                    // ap ex
		{"1024:4096", 1024, 4096, true},      // ap ex
		{"unlimited", inf, inf, true},        // ap ex
		{"infinity", inf, inf, true},         // ap (ex: new)
		{"-1", inf, inf, true},               // ap (ex: new)
		{"1024:unlimited", 1024, inf, true},  // ap ex
		{"65536:infinity", 65536, inf, true}, // ap
		{" 1024 ", 1024, 1024, true},         // ap (ex: new)
		{"1024 : 4096", 1024, 4096, true},    // new
		{"18446744073709551614", inf - 1, inf - 1, true},
		{"4096:1024", 0, 0, false}, // ex (ap: prlimit's EINVAL later)
		{"unlimited:1024", 0, 0, false},
		{"", 0, 0, false}, {"lots", 0, 0, false}, {"-2", 0, 0, false}, {"1:2:3", 0, 0, false},
		{"18446744073709551615", 0, 0, false}, {"18446744073709551616", 0, 0, false},
		{"1k", 0, 0, false}, {":", 0, 0, false}, {"1:", 0, 0, false},
	} {
		s, h, err := ParseRlimit(tt.in)
		if (err == nil) != tt.ok || s != tt.soft || h != tt.hard {
			t.Errorf("ParseRlimit(%q) = %d, %d, %v; want %d, %d, ok %v", tt.in, s, h, err, tt.soft, tt.hard, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrRlimit) {
			t.Errorf("ParseRlimit(%q): %v does not wrap ErrRlimit", tt.in, err)
		}
	}
	// /proc/PID/limits words (si sa): "unlimited" or a count.
	for in, want := range map[string]uint64{"unlimited": inf, "1024": 1024, "8388608": 8388608} {
		if v, ok := ParseRlimitValue([]byte(in)); !ok || v != want {
			t.Errorf("ParseRlimitValue(%q) = %d, %v", in, v, ok)
		}
	}
	if _, _, err := ParseRlimit("10:5"); !errors.Is(err, ErrSoftAboveHard) {
		t.Errorf("ParseRlimit(10:5) = %v, want ErrSoftAboveHard", err)
	}
	if RlimInfinity != uint64(unix.RLIM_INFINITY) {
		t.Fatal("RlimInfinity differs from unix.RLIM_INFINITY")
	}
	if FormatRlimit(inf) != "unlimited" || FormatRlimit(1024) != "1024" {
		t.Error("FormatRlimit")
	}
}

func FuzzParseRlimit(f *testing.F) {
	for _, s := range []string{"1024", "1024:4096", "unlimited", "infinity:-1", " 1 : 2 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		soft, hard, err := ParseRlimit(s)
		if err != nil {
			return
		}
		if soft > hard {
			t.Fatalf("ParseRlimit(%q) = %d > %d", s, soft, hard)
		}
		// What is written reads back.
		s2, h2, err := ParseRlimit(FormatRlimit(soft) + ":" + FormatRlimit(hard))
		if err != nil || s2 != soft || h2 != hard {
			t.Fatalf("%q does not read back: %d %d %v", s, s2, h2, err)
		}
	})
}

// /proc/PID/limits sampling calls it per process.
func TestRlimitNoAlloc(t *testing.T) {
	b := []byte("unlimited")
	n := []byte("1048576")
	if a := testing.AllocsPerRun(100, func() { ParseRlimitValue(b); ParseRlimitValue(n) }); a != 0 {
		t.Errorf("%v allocations per run", a)
	}
}
