package units

import (
	"strconv"
	"strings"
	"testing"
)

// Which copy accepted which form: lg = loadgen/response.go parseHex (chunk
// sizes, at most 15 digits), tcp = sample/tcpstates.go hexu (16 digits),
// jvm = the 0x part of jvmopts.ParseSize (strconv, up to 63 bits).
func TestParseHex(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"a", 10, true}, {"F", 15, true}, {"1a2B", 0x1a2b, true}, // lg tcp jvm
		{"0000000f", 15, true},                // lg tcp jvm: /proc/net/tcp pads
		{"fffffffffffffff", 1<<60 - 1, true},  // lg tcp jvm: 15 digits
		{"ffffffffffffffff", 1<<64 - 1, true}, // tcp (lg refused 16 digits)
		{"", 0, false}, {"g", 0, false}, {"0x1", 0, false}, {"-1", 0, false}, {" 1", 0, false},
		{"1;ext", 0, false}, {"10000000000000000", 0, false},
	} {
		got, ok := ParseHex(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseHex(%q) = %x, %v; want %x, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if gb, okb := ParseHex([]byte(tt.in)); gb != got || okb != ok {
			t.Errorf("ParseHex([]byte %q) = %x, %v; string gave %x, %v", tt.in, gb, okb, got, ok)
		}
	}
}

// Which copy accepted which form: nid = threaddump/header.go parseNid
// (strconv, signed 64 bits), jc = threaddump/javacore.go parseNum (strconv,
// spaces trimmed by the caller, a sign accepted, 0 when neither).
func TestParseHexOrDec(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0x2a43", 0x2a43, true}, {"0X2A43", 0x2a43, true}, {"18445", 18445, true}, {"0", 0, true}, // nid jc
		{"0x0000000000000101", 0x101, true}, // jc: a javacore's padded 64-bit id
		{"18446744073709551615", 1<<64 - 1, true},
		{"", 0, false}, {"0x", 0, false}, {"0xg", 0, false}, {"12a", 0, false}, {"-5", 0, false}, // jc took -5: no id is negative
		{"18446744073709551616", 0, false}, {" 1", 0, false},
	} {
		got, ok := ParseHexOrDec(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseHexOrDec(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if gb, okb := ParseHexOrDec([]byte(tt.in)); gb != got || okb != ok {
			t.Errorf("ParseHexOrDec([]byte %q) = %d, %v; string gave %d, %v", tt.in, gb, okb, got, ok)
		}
	}
}

func FuzzParseHex(f *testing.F) {
	for _, s := range []string{"0", "1a2B", "ffffffffffffffff", "10000000000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseHex(s)
		if !ok {
			return
		}
		if got := strings.TrimLeft(strings.ToLower(s), "0"); got != strings.TrimLeft(strconvHex(v), "0") {
			t.Fatalf("ParseHex(%q) = %x", s, v)
		}
	})
}

func strconvHex(v uint64) string { return strconv.FormatUint(v, 16) }

// Chunked bodies (loadgen) and /proc/net/tcp sampling call it per field.
func TestHexNoAlloc(t *testing.T) {
	b := []byte("1a2b")
	if n := testing.AllocsPerRun(100, func() { ParseHex(b) }); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}
