package gclog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// benchInput repeats fixture files up to about 32 MB.
func benchInput(b *testing.B, globs ...string) []byte {
	b.Helper()
	var one []byte
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			d, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			one = append(one, d...)
		}
	}
	if len(one) == 0 {
		b.Skip("no fixtures")
	}
	var buf bytes.Buffer
	for buf.Len() < 32<<20 {
		buf.Write(one)
	}
	return buf.Bytes()
}

// benchParseOnly measures the parser alone (events to a no-op).
func benchParseOnly(b *testing.B, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		if _, err := Parse(bytes.NewReader(data), "bench", func(*Event) { n++ }); err != nil {
			b.Fatal(err)
		}
	}
}

// benchParse measures parsing plus the KPI summary and findings.
func benchParse(b *testing.B, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := NewSummariser()
		st, err := Parse(bytes.NewReader(data), "bench", s.Add)
		if err != nil {
			b.Fatal(err)
		}
		s.AddStats(st)
		_ = Findings(s.Summary(), DefaultThresholds(), "bench")
	}
}

func unifiedInput(b *testing.B) []byte { return benchInput(b, "testdata/live/*.log") }

// jdk8Input: CMS with concurrent mode failures, G1 verbose, CMS with causes, Parallel with GC ids.
func jdk8Input(b *testing.B) []byte {
	return benchInput(b, "testdata/corpus/openjdk_SampleSun1_5_0ConcurrentModeFailure.txt",
		"testdata/corpus/openjdk_SampleSun1_6_0G1_gc_verbose.txt", "testdata/corpus/openjdk_SampleSun1_7_0_40CMS_PrintGCCause.txt",
		"testdata/corpus/openjdk_SampleSun1_8_0ParallelPrintGCID.txt")
}

// JDK 17/25 logs of every collector, several decorator sets.
func BenchmarkParseUnified(b *testing.B)   { benchParseOnly(b, unifiedInput(b)) }
func BenchmarkAnalyzeUnified(b *testing.B) { benchParse(b, unifiedInput(b)) }

// JDK 8 logs: nearly every line is an event, so this is the harder case.
func BenchmarkParseJDK8(b *testing.B)   { benchParseOnly(b, jdk8Input(b)) }
func BenchmarkAnalyzeJDK8(b *testing.B) { benchParse(b, jdk8Input(b)) }
