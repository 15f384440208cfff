package sample

import (
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
)

const realLimits = `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max stack size            8388608              unlimited            bytes     
Max processes             96365                96365                processes 
Max open files            20000                20000                files     
Max nice priority         0                    0                    
Max realtime timeout      unlimited            unlimited            us        
`

// TestParseLimitsForms covers every row form either former reader took
// (sysinfo.ParseProcLimits: the whole file, fields from the right, -1 for
// unlimited; sample's parseLimits: the Max open files row, 0 for
// unlimited) through units.ParseRlimitValue ("unlimited", "infinity",
// "-1"), and what is refused.
func TestParseLimitsForms(t *testing.T) {
	m, err := ParseLimits([]byte(realLimits))
	want := map[string]Limit{
		"Max cpu time":         {Unlimited, Unlimited, "seconds"},
		"Max stack size":       {8388608, Unlimited, "bytes"},
		"Max processes":        {96365, 96365, "processes"},
		"Max open files":       {20000, 20000, "files"},
		"Max nice priority":    {0, 0, ""},
		"Max realtime timeout": {Unlimited, Unlimited, "us"},
	}
	if err != nil || !maps.Equal(m, want) {
		t.Errorf("%v %v", m, err)
	}
	for _, c := range []struct {
		row  string
		name string
		lim  Limit
		bad  bool
	}{
		{row: "Max open files  1024  4096  files", name: "Max open files", lim: Limit{1024, 4096, "files"}},
		{row: "Max open files\t1024\t4096\tfiles\r", name: "Max open files", lim: Limit{1024, 4096, "files"}},
		{row: "Max locked memory 65536 65536 bytes", name: "Max locked memory", lim: Limit{65536, 65536, "bytes"}},
		{row: "Max nice priority 0 0", name: "Max nice priority", lim: Limit{0, 0, ""}},
		{row: "Max cpu time infinity -1 seconds", name: "Max cpu time", lim: Limit{Unlimited, Unlimited, "seconds"}},
		{row: "Max file size 9223372036854775807 unlimited bytes", name: "Max file size", lim: Limit{1<<63 - 1, Unlimited, "bytes"}},
		{row: "Max open files x y files", bad: true},
		{row: "Max open files 1 files", bad: true},
		{row: "Max file size 9223372036854775808 unlimited bytes", bad: true}, // sample took it (uint64); over int64
		{row: "Max file size 18446744073709551615 unlimited bytes", bad: true},
		{row: "Max open files -2 5 files", bad: true},
		{row: "garbage", bad: true},
		{row: "Max\x01files 1 2 files", bad: true},
	} {
		m, err := ParseLimits([]byte("Limit Soft Limit Hard Limit Units\n" + c.row + "\nMax processes 5 5 processes\n"))
		if c.bad {
			if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2") || m["Max processes"].Soft != 5 || len(m) != 1 {
				t.Errorf("%q: %v %v", c.row, m, err)
			}
			continue
		}
		if err != nil || m[c.name] != c.lim {
			t.Errorf("%q: %v %v", c.row, m, err)
		}
		// The sampler reads the same row the same way.
		if strings.HasPrefix(c.row, "Max open files") {
			var pr Proc
			var sc scratch
			if err := parseLimits([]byte(c.row), &pr, &sc); err != nil || pr.FDSoft != c.lim.Soft || pr.FDHard != c.lim.Hard {
				t.Errorf("sampler %q: %+v %v", c.row, pr, err)
			}
		}
	}
	for _, bad := range []string{"", "Limit\n", "Limit Soft Hard\n", "\n\n"} {
		if _, err := ParseLimits([]byte(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseLimits(%q): %v, want ErrParse", bad, err)
		}
	}
}

// This process's own limits: every row the kernel writes reads.
func TestParseLimitsSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		t.Skip(err)
	}
	m, err := ParseLimits(b)
	if err != nil || len(m) < 16 || m["Max open files"].Soft <= 0 || m["Max open files"].Unit != "files" {
		t.Errorf("%d rows %v %v", len(m), m, err)
	}
}

func FuzzParseLimits(f *testing.F) {
	f.Add([]byte(realLimits))
	f.Add([]byte("Max open files infinity -1 files\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseLimits(b)
		checkParseErr(t, err)
		for k, l := range m {
			if k == "" || l.Soft < Unlimited || l.Hard < Unlimited {
				t.Fatalf("%q %+v", k, l)
			}
		}
		var pr Proc
		var sc scratch
		checkParseErr(t, parseLimits(b, &pr, &sc))
	})
}
