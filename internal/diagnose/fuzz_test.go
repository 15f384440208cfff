package diagnose

import (
	"bytes"
	"io"
	"testing"

	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// FuzzDiagnose feeds arbitrary samples.jsonl content through Build and
// Diagnose: bad input is skipped or reported, never a panic.
func FuzzDiagnose(f *testing.F) {
	// Small seeds: the engine minimises every new input, and a large one
	// (a real 8-CPU sample line is ~1.5 KB) makes that take the whole budget.
	f.Add([]byte(`{"t":"2026-01-01T00:00:00Z","stat":{"all":{"cpu":-1,"us":1},"cpus":[{"cpu":0,"us":1,"si":1},{"cpu":1,"id":1}]},"softirqs":{"cpus":[0,1],"rows":[{"n":"NET_RX","c":[1,1]}]}}` + "\n" +
		`{"t":"2026-01-01T00:00:01Z","stat":{"all":{"cpu":-1,"us":2},"cpus":[{"cpu":0,"us":1,"si":99},{"cpu":1,"id":100}]},"softirqs":{"cpus":[0,1],"rows":[{"n":"NET_RX","c":[9000,2]}]}}` + "\n"))
	f.Add([]byte(`{"t":"2026-01-01T00:00:00Z","stat":{"cpus":[{"cpu":0,"us":5}]}}` + "\n" + `{"t":"2026-01-01T00:00:01Z","stat":{"cpus":[{"cpu":0,"us":1}]},"threads":[[1,"a",82,0,1,2,3,4,5,6,7]]}`))
	f.Add([]byte("garbage\n{}\n{}\n"))
	facts := kunpengFacts()
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Build(bytes.NewReader(data))
		if err != nil {
			return
		}
		fs := Diagnose(Input{Facts: facts, Series: s})
		for _, x := range fs {
			if x.Status == "unavailable" && x.ID != IDNoData {
				t.Fatalf("rule failed: %s %s", x.ID, x.Reason.EN)
			}
		}
		s.Summarize()
	})
}

func BenchmarkAnalyzeFixture(b *testing.B) {
	data := fixtureSamples(b)
	facts := kunpengFacts()
	b.ReportAllocs()
	for b.Loop() {
		s, err := Build(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		Diagnose(Input{Facts: facts, Series: s})
	}
}

// fixtureSamples is the softirq fixture's samples stream, decompressed.
func fixtureSamples(tb testing.TB) []byte {
	tb.Helper()
	f, err := runfolder.Open(SoftirqFixture)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := f.Samples()
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
