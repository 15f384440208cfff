package sysinfo

import (
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"0-1", []int{0, 1}, false},
		{"0-3,8,10-11\n", []int{0, 1, 2, 3, 8, 10, 11}, false},
		{"5,1,1", []int{1, 5}, false},
		{"0-7:2", []int{0, 2, 4, 6}, false},
		{"", []int{}, false},
		{"3-1", nil, true},
		{"0-", nil, true},
		{"a", nil, true},
		{"1,,2", nil, true},
		{"0-4294967295", nil, true},
		{"-1", nil, true},
		// experiment/launchknobs.go parseCPUList (now calling this) took
		// these; it refused "" and CPUs >= 8192 itself and still does.
		{"0-3,8", []int{0, 1, 2, 3, 8}, false},
		{" 2 , 4-5 ", []int{2, 4, 5}, false},
		{"8191", []int{8191}, false},
	}
	for _, tt := range tests {
		got, err := ParseCPUList(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseHexMask(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"0", []int{}, false},
		{"00000000,00000000", []int{}, false},
		{"3", []int{0, 1}, false},
		{"00000000,0000ff00", []int{8, 9, 10, 11, 12, 13, 14, 15}, false},
		{"1,00000001", []int{0, 32}, false},
		{"ffffffff", seq(0, 31), false},
		{"", nil, true},
		{"xyz", nil, true},
		{"1,,1", nil, true},
		{"123456789", nil, true},
	}
	for _, tt := range tests {
		got, err := parseHexMask(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("parseHexMask(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func seq(a, b int) []int {
	var s []int
	for i := a; i <= b; i++ {
		s = append(s, i)
	}
	return s
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3,8,10-11", "0-7:2", "", "1-0", "0-65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseCPUList(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
			t.Fatalf("not sorted/distinct: %v", l)
		}
		for _, c := range l {
			if c < 0 || c >= maxCPU {
				t.Fatalf("cpu %d out of range", c)
			}
		}
		// What FormatCPUList writes reads back the same.
		if back, err := ParseCPUList(FormatCPUList(l)); err != nil || !slices.Equal(back, l) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, l, FormatCPUList(l), back, err)
		}
	})
}

// FormatCPUList replaces rules/helpers.go cpuList (sorted, deduplicated),
// diagnose/window.go cpuList and experiment cpuListText (both assumed
// sorted input); on sorted distinct CPUs all three wrote the same.
func TestFormatCPUList(t *testing.T) {
	for _, tt := range []struct {
		in   []int
		want string
	}{
		{nil, ""}, {[]int{3}, "3"}, {[]int{0, 1, 2, 3, 8, 10, 11}, "0-3,8,10-11"},
		{[]int{0, 1, 64, 65, 66}, "0-1,64-66"}, {[]int{5, 1, 1, 2}, "1-2,5"}, {[]int{2, 4, 6}, "2,4,6"},
	} {
		if got := FormatCPUList(tt.in); got != tt.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	in := []int{3, 1, 2}
	FormatCPUList(in)
	if !slices.Equal(in, []int{3, 1, 2}) {
		t.Errorf("FormatCPUList changed its input: %v", in)
	}
}

func FuzzParseHexMask(f *testing.F) {
	for _, s := range []string{"0000ff00", "1,00000001", "ffffffff,ffffffff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseHexMask(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(l) {
			t.Fatalf("not sorted: %v", l)
		}
		for _, c := range l {
			if c < 0 || c >= maxCPU {
				t.Fatalf("cpu %d out of range", c)
			}
		}
		// What FormatCPUList writes reads back the same.
		if back, err := ParseCPUList(FormatCPUList(l)); err != nil || !slices.Equal(back, l) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, l, FormatCPUList(l), back, err)
		}
	})
}
