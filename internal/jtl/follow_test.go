package jtl

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// A record split across reads (even inside a quoted field spanning lines)
// is read once it is complete: every way of cutting JMeter's output gives
// the samples the whole-file import gives, in order.
func TestFollowerAnySplit(t *testing.T) {
	in := jmeterCSV + "1700000002000,4,\"Server\nError\",500,\"two\nlines\",127.0.0.1:24101-Thread Group 1-9,text,false,,1,1,3,7,http://x/,4,0,0\n" +
		"1700000002100,5,Login,200,OK,Thread Group 1-1,text,true,,1,1,3,3,http://x/,5,0,0" // no final newline
	res, err := ImportCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := samplesOf(t, in, []int{len(in)})
	if int64(len(want)) != res.Samples || len(want) != 7 {
		t.Fatalf("whole: %d samples, import %d", len(want), res.Samples)
	}
	if !strings.Contains(want[5], "Server\nError|500|127.0.0.1:24101-Thread Group 1-9|7") {
		t.Errorf("the multi-line record: %q", want[5])
	}
	r := rand.New(rand.NewPCG(1, 2))
	for cut := 1; cut < len(in); cut++ {
		cuts := []int{cut, len(in)}
		if cut%3 == 0 { // and a second cut somewhere after
			cuts = []int{cut, cut + r.IntN(len(in)-cut+1), len(in)}
		}
		got := samplesOf(t, in, cuts)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("cut at %v: %q\nwant %q", cuts, got, want)
		}
	}
}

func TestFollowerReportsBadLines(t *testing.T) {
	in := "timeStamp,elapsed,label\n1700000000000,12,a\nnot-a-time,3,b\n1700000000001,x,c\n1700000000002,4,d\n"
	f := NewFollower()
	n := 0
	f.Feed([]byte(in), func(*loadgen.Sample) { n++ })
	f.Flush(func(*loadgen.Sample) { n++ })
	if n != 2 || f.Skipped != 2 || len(f.Problems) != 2 || f.Problems[0].Line != 3 || f.Problems[1].Line != 4 {
		t.Fatalf("%d samples, skipped %d, problems %v", n, f.Skipped, f.Problems)
	}
}

// samplesOf feeds in cut at the given offsets and returns the samples.
func samplesOf(t *testing.T, in string, cuts []int) []string {
	t.Helper()
	f := NewFollower()
	var out []string
	emit := func(s *loadgen.Sample) {
		out = append(out, fmt.Sprintf("%d|%d|%s|%d|%s|%d|%v", s.Start.UnixMilli(), s.Elapsed.Milliseconds(), s.Label, s.Code, s.ThreadName, s.AllThreads, s.Success))
	}
	prev := 0
	for _, c := range cuts {
		f.Feed([]byte(in[prev:c]), emit)
		prev = c
	}
	f.Flush(emit)
	return out
}

func FuzzFollower(f *testing.F) {
	f.Add(jmeterCSV, 10)
	f.Add("1,2,\"a\n\"\"b\",200\n", 3)
	f.Add("timeStamp;elapsed;label\n1;2;x\n", 0)
	f.Fuzz(func(t *testing.T, in string, cut int) {
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		whole := samplesOf(t, in, []int{len(in)})
		split := samplesOf(t, in, []int{cut, len(in)})
		if fmt.Sprint(whole) != fmt.Sprint(split) {
			t.Fatalf("cut at %d: %q, whole %q", cut, split, whole)
		}
	})
}
