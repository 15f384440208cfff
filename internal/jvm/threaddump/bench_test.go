package threaddump

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	bigOnce sync.Once
	bigDump []byte
)

var (
	nameRE = regexp.MustCompile(`^"([^"]*)" #(\d+)`)
	addrRE = regexp.MustCompile(`<0x([0-9a-f]+)>`)
	nidRE  = regexp.MustCompile(`nid=0x[0-9a-f]+`)
)

// big5000 builds a 5,000-thread JDK 17 dump from the thread entries of the
// live fixtures (contention, logback, log4j, deadlock), each copy renamed and
// with its own lock addresses, so locks, pools and stack groups stay realistic.
func big5000(tb testing.TB) []byte {
	bigOnce.Do(func() {
		var blocks []string
		for _, f := range []string{"jdk17_contention_jcmd.txt", "jdk17_logbacklike_jcmd.txt", "jdk17_log4j1like_jcmd.txt", "jdk17_log4j2like_jcmd.txt"} {
			src, err := os.ReadFile("testdata/" + f)
			if err != nil {
				tb.Fatal(err)
			}
			s := string(src)
			s = s[:strings.Index(s, "JNI global refs")]
			for _, b := range strings.Split(s, "\n\n\"")[1:] {
				b = "\"" + b
				if strings.Contains(b, "java.lang.Thread.State") && strings.HasPrefix(b, "\"") && !strings.Contains(b[:strings.IndexByte(b, '\n')], "line1") {
					blocks = append(blocks, b)
				}
			}
		}
		var out bytes.Buffer
		out.WriteString("4242:\n2026-11-21 23:56:07\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):\n\n")
		id := 100
		for n := 0; n < 5000; n++ {
			b := blocks[n%len(blocks)]
			copyN := n / len(blocks)
			id++
			b = nameRE.ReplaceAllString(b, fmt.Sprintf(`"$1-c%d" #%d`, copyN, id))
			b = nidRE.ReplaceAllString(b, "nid=0x"+strconv.FormatInt(int64(0x10000+id), 16))
			b = addrRE.ReplaceAllStringFunc(b, func(a string) string {
				v, _ := strconv.ParseUint(a[3:len(a)-1], 16, 64)
				return fmt.Sprintf("<0x%016x>", v+uint64(copyN)<<40)
			})
			out.WriteString(b)
			out.WriteString("\n\n")
		}
		out.WriteString("JNI global refs: 25, weak refs: 3\n")
		bigDump = out.Bytes()
	})
	return bigDump
}

func TestBig5000(t *testing.T) {
	src := big5000(t)
	start := time.Now()
	ds, err := ParseText(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(ds[0])
	el := time.Since(start)
	if len(ds[0].Threads) != 5000 {
		t.Fatalf("threads %d", len(ds[0].Threads))
	}
	if len(r.Culprits) < 10 || r.Locks[0].NWaiter < 19 {
		t.Errorf("culprits %d top lock %d", len(r.Culprits), r.Locks[0].NWaiter)
	}
	// The speed is BenchmarkParseAnalyze5000's to measure: a timed unit test
	// fails on a busy machine (2.28 s under -race at load average 36).
	t.Logf("5,000 threads, %.1f MB: parse+analyse %v", float64(len(src))/1e6, el)
}

func BenchmarkParseAnalyze5000(b *testing.B) {
	src := big5000(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ds, err := ParseText(bytes.NewReader(src))
		if err != nil {
			b.Fatal(err)
		}
		Analyze(ds[0])
	}
}

func BenchmarkParse5000(b *testing.B) {
	src := big5000(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseText(bytes.NewReader(src)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAnalyze5000(b *testing.B) {
	ds, err := ParseText(bytes.NewReader(big5000(b)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Analyze(ds[0])
	}
}

func BenchmarkParseJSON(b *testing.B) {
	src, err := os.ReadFile("testdata/jdk25_contention_threaddump.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJSON(bytes.NewReader(src)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteText(b *testing.B) {
	ds, err := ParseText(bytes.NewReader(big5000(b)))
	if err != nil {
		b.Fatal(err)
	}
	rs := []*Report{Analyze(ds[0])}
	b.ReportAllocs()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteText(&buf, setOf(rs), "en"); err != nil {
			b.Fatal(err)
		}
	}
}
