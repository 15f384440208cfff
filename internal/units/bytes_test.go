package units

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

const (
	k = int64(1) << 10
	m = int64(1) << 20
	g = int64(1) << 30
)

// Which copy accepted which form before the copies were folded here:
// jvm   = jvmopts.ParseSize (-Xmx etc.; decimal, 0x hex, k/m/g/t)
// exp   = experiment/overlay.go parseSize (decimal, k/m/g/t; no hex)
// cli   = cli/analyze.go parseSize (--max-input; K/M/G/T, B, iB, any case)
// new   = accepted only since the fold (the more permissive correct form)
func TestParseJVMSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1", 1, true},           // jvm exp cli
		{"0", 0, true},           // jvm exp (cli refused 0: --max-input checks > 0 itself)
		{"4g", 4 * g, true},      // jvm exp cli
		{"4G", 4 * g, true},      // jvm exp cli
		{"512m", 512 * m, true},  // jvm exp cli
		{"512M", 512 * m, true},  // jvm exp cli
		{"64k", 64 * k, true},    // jvm exp cli
		{"64K", 64 * k, true},    // jvm exp cli
		{"1t", 1 << 40, true},    // jvm exp cli
		{"1T", 1 << 40, true},    // jvm exp cli
		{"0x100", 256, true},     // jvm (exp: new; HotSpot takes it)
		{"0X1k", 1024, true},     // jvm
		{"0xffK", 255 * k, true}, // jvm
		{"9223372036854775807", 1<<63 - 1, true},
		{"8388607t", 8388607 << 40, true},
		{"", 0, false}, {"g", 0, false}, {"-1g", 0, false}, {"1.5g", 0, false},
		{"1gb", 0, false}, {"4GiB", 0, false}, // the JVM refuses these: not JVM sizes
		{"+5", 0, false}, {" 5", 0, false}, {"5 ", 0, false}, {"0x", 0, false}, {"0xg", 0, false},
		{"8388608t", 0, false}, {"9223372036854775808", 0, false}, {"18446744073709551616", 0, false},
		{"0x8000000000000000", 0, false}, {"0x10000000000000000", 0, false},
	} {
		got, ok := ParseJVMSize(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseJVMSize(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		// Every ParseJVMSize form.
		{"1", 1, true}, {"0", 0, true}, {"4g", 4 * g, true}, {"512M", 512 * m, true}, {"100K", 100 * k, true},
		{"1T", 1 << 40, true}, {"0x100", 256, true}, {"0X1k", k, true},
		// cli's forms: case-insensitive, B / iB tails, space around, a "+".
		{"4GiB", 4 * g, true}, {"4gib", 4 * g, true}, {"4GB", 4 * g, true}, {"4gb", 4 * g, true},
		{"512MB", 512 * m, true}, {"512mib", 512 * m, true}, {"100kb", 100 * k, true}, {"100b", 100, true},
		{"100B", 100, true}, {" 32M ", 32 * m, true}, {"+5", 5, true}, {"\t2T\n", 2 << 40, true},
		// new: a space before the unit, Kubernetes' "Gi", hex with a B.
		{"4 GiB", 4 * g, true}, {"100 K", 100 * k, true}, {"4Gi", 4 * g, true}, {"512 Mi", 512 * m, true},
		{"100 B", 100, true}, {"0x10MB", 16 * m, true}, {"0x1B", 27, true}, {"0x1B B", 27, true},
		// Refused by every copy.
		{"", 0, false}, {"lots", 0, false}, {"B", 0, false}, {"GiB", 0, false}, {"-1", 0, false},
		{"-4G", 0, false}, {"1.5G", 0, false}, {"4 4G", 0, false}, {"4XB", 0, false}, {"++4", 0, false},
		{"8388608T", 0, false}, {"9223372036854775808", 0, false},
		// cli took a bare "i" ("4i" = 4 bytes) by accident of trimming; no unit reads so.
		{"4i", 0, false}, {"4iB", 0, false},
	} {
		got, err := ParseBytes(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "512M") {
			t.Errorf("ParseBytes(%q): error %q does not say what is wanted", tt.in, err)
		}
	}
}

func TestShift(t *testing.T) {
	for c := 0; c < 256; c++ {
		sh, ok := Shift(byte(c))
		want := map[byte]uint{'k': 10, 'K': 10, 'm': 20, 'M': 20, 'g': 30, 'G': 30, 't': 40, 'T': 40}[byte(c)]
		if ok != (want != 0) || sh != want {
			t.Errorf("Shift(%q) = %d, %v", byte(c), sh, ok)
		}
	}
}

// The GC log scanner calls Shift on its hot path; -Xmx reading is not hot
// but has no reason to allocate.
func TestSizeNoAlloc(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		Shift('g')
		ParseJVMSize("512m")
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"4GiB", "0x10MB", " 32 M ", "+5", "1t", "9223372036854775807", "4i"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBytes(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseBytes(%q) = %d", s, v)
		}
		// Every JVM size reads the same as a byte size.
		if j, ok := ParseJVMSize(s); ok && j != v {
			t.Fatalf("ParseJVMSize(%q) = %d, ParseBytes %d", s, j, v)
		}
	})
}

func FuzzParseJVMSize(f *testing.F) {
	for _, s := range []string{"4g", "0x100", "0X1k", "9223372036854775807", "8388608t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseJVMSize(s)
		if ok && (v < 0 || FormatJVMSize(v) == "") {
			t.Fatalf("ParseJVMSize(%q) = %d", s, v)
		}
		if ok {
			if back, ok2 := ParseJVMSize(FormatJVMSize(v)); !ok2 || back != v {
				t.Fatalf("%q -> %d -> %q -> %d", s, v, FormatJVMSize(v), back)
			}
		}
	})
}

func TestFormatJVMSize(t *testing.T) {
	// rules/helpers.go jvmSize's forms.
	for in, want := range map[int64]string{4 * g: "4g", 768 * m: "768m", 3 * k: "3k", 1000: "1000", 0: "0", 1536 * m: "1536m", -g: "-1073741824"} {
		if got := FormatJVMSize(in); got != want {
			t.Errorf("FormatJVMSize(%d) = %q, want %q", in, got, want)
		}
	}
}

// FormatBytes is rules/helpers.go human (memory limits, heap, swap in the
// check goldens); FormatBytesExact is input/decode.go humanBytes (limits in
// error messages) and probe/net.go fmtSize.
func TestFormatBytes(t *testing.T) {
	for in, want := range map[int64]string{0: "0 B", 900: "900 B", 1023: "1023 B", 1024: "1 KiB", 1536: "2 KiB",
		512 * m: "512 MiB", 1000 * m: "1000 MiB", g: "1.0 GiB", 15*g + 400*m: "15.4 GiB", -5: "-5 B"} {
		if got := FormatBytes(in); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", in, got, want)
		}
	}
	// FormatBytesExact is also probe's message sizes (1 B, 64 B, 1 KiB, 64 KiB, 1 MiB).
	for in, want := range map[int64]string{0: "0 B", 1: "1 B", 64: "64 B", 1000: "1000 B", 1024: "1 KiB", 1536: "1536 B",
		64 << 10: "64 KiB", m: "1 MiB", 64 * m: "64 MiB", 2 * g: "2 GiB", 3 * g / 2: "1536 MiB", 2*g + 1: "2147483649 B"} {
		if got := FormatBytesExact(in); got != want {
			t.Errorf("FormatBytesExact(%d) = %q, want %q", in, got, want)
		}
		// What it writes reads back exactly.
		if v, err := ParseBytes(want); err != nil || v != in {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", want, v, err, in)
		}
	}
}

// FormatBytesScaled is report.FlameValue's byte branch (profile totals, one
// decimal) and session's sizeText and cli's jvmMiB, which differed: sizeText
// wrote binary sizes as "MB"/"KB" and cut KB to whole, jvmMiB cut MiB to
// whole and wrote a heap under 1 MiB as "0 MiB".
const fk, fm, fg = float64(k), float64(m), float64(g)

func TestFormatBytesScaled(t *testing.T) {
	for _, c := range []struct {
		in   float64
		prec int
		want string
	}{
		{0, 1, "0 B"}, {900, 1, "900 B"}, {1023, 1, "1023 B"}, {1024, 1, "1 KiB"}, {1536, 1, "1.5 KiB"},
		{512 * fk, 1, "512 KiB"}, {1.25 * fm, 1, "1.2 MiB"}, {4 * fm, 1, "4 MiB"}, {768.5 * fm, 1, "768.5 MiB"},
		{fg, 1, "1 GiB"}, {1.5 * fg, 1, "1.5 GiB"}, {5000 * fg, 1, "5000 GiB"}, {-2048, 1, "-2 KiB"},
		{1536, 0, "2 KiB"}, {1.234 * fm, 2, "1.23 MiB"}, {-0.01, 1, "0 B"},
	} {
		if got := FormatBytesScaled(c.in, c.prec); got != c.want {
			t.Errorf("FormatBytesScaled(%v, %d) = %q, want %q", c.in, c.prec, got, c.want)
		}
	}
	// Byte for byte what FlameValue wrote (the profile goldens hold it).
	flameValue := func(v int64) string {
		f := float64(v)
		for _, u := range []string{"B", "KiB", "MiB", "GiB"} {
			if f < 1024 || u == "GiB" {
				return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0") + " " + u
			}
			f /= 1024
		}
		return ""
	}
	for v := int64(1); v < 1<<42; v = v*3 + v/7 + 1 {
		if got, want := FormatBytesScaled(float64(v), 1), flameValue(v); got != want {
			t.Errorf("FormatBytesScaled(%d, 1) = %q, FlameValue wrote %q", v, got, want)
		}
	}
}

// FormatBytesSig is report.FlameDiffValue's byte branch (bytes per request,
// three significant digits), byte for byte.
func TestFormatBytesSig(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0 B"}, {0.5, "0.5 B"}, {-512, "-512 B"}, {1536, "1.5 KiB"}, {1.2345 * fm, "1.23 MiB"}, {-3 * fg, "-3 GiB"}, {5000 * fg, "5e+03 GiB"},
	} {
		if got := FormatBytesSig(c.in, 3); got != c.want {
			t.Errorf("FormatBytesSig(%v, 3) = %q, want %q", c.in, got, c.want)
		}
	}
	flameDiff := func(v float64) string {
		f, u := v, "B"
		for _, next := range []string{"KiB", "MiB", "GiB"} {
			if math.Abs(f) < 1024 {
				break
			}
			f, u = f/1024, next
		}
		if f == 0 {
			return "0 " + u
		}
		return fmt.Sprintf("%.3g", f) + " " + u
	}
	for v := 0.001; v < 1<<42; v = v*2.7 + 0.3 {
		for _, x := range []float64{v, -v} {
			if got, want := FormatBytesSig(x, 3), flameDiff(x); got != want {
				t.Errorf("FormatBytesSig(%v, 3) = %q, FlameDiffValue wrote %q", x, got, want)
			}
		}
	}
}

// FormatMiB keeps one unit (the GC reports: a log's sizes read against
// each other); it was gclog's "%.0f MB", which named MiB "MB".
func TestFormatMiB(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{{495.4, 0, "495 MiB"}, {4096, 0, "4096 MiB"}, {23.64, 1, "23.6 MiB"}, {0.04, 1, "0.0 MiB"}, {-28.1, 1, "-28.1 MiB"}} {
		if got := FormatMiB(c.v, c.prec); got != c.want {
			t.Errorf("FormatMiB(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}
