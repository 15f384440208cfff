package stacks

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestReadCollapsedLines(t *testing.T) {
	in := "# comment\n" +
		"[http-nio-8080-exec-1 tid=42];java/lang/Thread.run_[j];com/acme/Svc.handle_[i];java/util/HashMap.get_[0] 7\n" +
		"[http-nio-8080-exec-1 tid=42];java/lang/Thread.run_[j];com/acme/Svc.handle_[1];java/util/HashMap.get_[j] 3\n" +
		"\n" +
		"java;[unknown Java];write;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k] 5\r\n" +
		"main;Foo::bar(int, char const*) 2\n" +
		"not a stack\n"
	p, err := ReadCollapsed(strings.NewReader(in), CPU)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 17 || p.Events != 4 || len(p.Samples) != 3 {
		t.Fatalf("total %d events %d stacks %d, want 17, 4, 3 (the two HashMap.get lines are one stack)", p.Total, p.Events, len(p.Samples))
	}
	want := "[http-nio-8080-exec-1 tid=42];java.lang.Thread.run;com.acme.Svc.handle;java.util.HashMap.get"
	if got := strings.Join(p.Samples[0].Stack, ";"); got != want || p.Samples[0].Value != 10 {
		t.Errorf("first stack %q = %d, want %q = 10", got, p.Samples[0].Value, want)
	}
	if got := strings.Join(p.Samples[1].Stack, ";"); got != "java;[unknown Java];write;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]" {
		t.Errorf("kernel stack %q", got)
	}
	if got := strings.Join(p.Samples[2].Stack, ";"); got != "main;Foo::bar(int, char const*)" {
		t.Errorf("C++ frame %q", got)
	}
	if !strings.Contains(p.Note, "1 lines") || !strings.Contains(p.Note, "line 7") {
		t.Errorf("note %q, want the skipped line said", p.Note)
	}
}

func TestReadCollapsedRefuses(t *testing.T) {
	for _, in := range []string{"", "hello world\n", "a;b;c\n", "a;b -3\n"} {
		if _, err := ReadCollapsed(strings.NewReader(in), CPU); err != ErrNotCollapsed {
			t.Errorf("%q: err %v, want ErrNotCollapsed", in, err)
		}
	}
	long := strings.Repeat("a;", MaxCollapsedLine) + " 1\n"
	if _, err := ReadCollapsed(strings.NewReader(long), CPU); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("a line past the limit: %v", err)
	}
}

// A real async-profiler 3.0 file (testdata/README.md): the threads, JIT,
// inlined, C1, interpreted and kernel frames all read, the hot code found.
func TestReadCollapsedAsyncProfiler(t *testing.T) {
	b, err := os.ReadFile("testdata/asprof-pool.collapsed")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadCollapsed(bytes.NewReader(b), CPU)
	if err != nil {
		t.Fatal(err)
	}
	if p.Events != 221 || p.Note != "" {
		t.Errorf("%d lines read (note %q), want all 221", p.Events, p.Note)
	}
	var lines int64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		_, v, _ := parseCollapsedLine([]byte(l))
		lines += v
	}
	if p.Total != lines {
		t.Errorf("total %d, want the sum of the counts %d", p.Total, lines)
	}
	_, byTotal := p.Top(50)
	got := map[string]int64{}
	for _, f := range byTotal {
		got[f.Frame] = f.Total
	}
	if got["[formatter tid=32284]"] == 0 || got["java.lang.String.format"] == 0 || got["java.lang.Thread.run"] == 0 {
		t.Errorf("top frames by total lack the formatter thread or String.format: %v", got)
	}
	for _, s := range p.Samples {
		for _, f := range s.Stack {
			if strings.HasSuffix(f, "_[j]") || strings.HasSuffix(f, "_[i]") || strings.HasSuffix(f, "_[1]") || strings.HasPrefix(f, "java/") {
				t.Fatalf("frame %q kept its annotation or slashes", f)
			}
		}
	}
}

func FuzzReadCollapsed(f *testing.F) {
	b, _ := os.ReadFile("testdata/asprof-pool.collapsed")
	f.Add(b[:min(len(b), 4096)])
	f.Add([]byte("a;b;c 1\n;;; 2\n[x tid=1];y_[k] 9223372036854775807\nz 9223372036854775807\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ReadCollapsed(bytes.NewReader(in), CPU)
		if err != nil {
			return
		}
		var sum int64
		for _, s := range p.Samples {
			if len(s.Stack) == 0 || len(s.Stack) > MaxFrames || s.Value <= 0 {
				t.Fatalf("bad sample %+v", s)
			}
			sum = addSat(sum, s.Value)
		}
		if sum != p.Total {
			t.Fatalf("samples sum to %d, total %d", sum, p.Total)
		}
	})
}

func BenchmarkReadCollapsed(b *testing.B) {
	in, err := os.ReadFile("testdata/asprof-pool.collapsed")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		if _, err := ReadCollapsed(bytes.NewReader(in), CPU); err != nil {
			b.Fatal(err)
		}
	}
}
