package attach

import (
	"os"
	"strings"
	"testing"
)

func BenchmarkParseReply(b *testing.B) {
	reply := []byte("0\n" + strings.Repeat("\"worker-1\" #42 daemon prio=5 os_prio=0 cpu=1.00ms elapsed=2.00s tid=0x1 nid=0x2 waiting on condition  [0x3]\n", 20000))
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := parseReply(reply); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePerfData(b *testing.B) {
	data, err := os.ReadFile("testdata/hsperfdata-jdk25")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parsePerfData(data); err != nil {
			b.Fatal(err)
		}
	}
}
