package cli

import (
	"context"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkCheck is the whole audit (read every fact, run every rule, render
// text): the target is well under 2 s on any host.
func BenchmarkCheck(b *testing.B) {
	for _, c := range []struct{ name, root string }{
		{"live", ""},
		{"kunpeng920-2s4n", filepath.Join(hostsDir, "kunpeng920-2s4n")},
		{"centos7-3.10-cgv1", filepath.Join(hostsDir, "centos7-3.10-cgv1")},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := &Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
			o := &CheckOptions{Root: c.root, ProcRoot: "/proc", SysRoot: "/sys", EtcRoot: "/etc", Output: "text", Profile: "java-web"}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := RunCheck(context.Background(), env, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
