package input

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"testing"
)

// JRockit -Xverbose:gcpause names the threads a GC held
// (`Thread "x" id=22 idx=0x4c ...`): those logs are GC logs, not thread
// dumps (they were refused as "not a thread dump").
func TestDetectJRockitGCPause(t *testing.T) {
	for _, f := range []string{"SampleJRockit1_5_20_memstats2.txt", "SampleJRockit1_6_verbose_gc_mode_singleparcon.txt"} {
		b, err := os.ReadFile("../jvm/gclog/testdata/public/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(b[:min(len(b), HeadLen)], f); got != GCLog {
			t.Errorf("%s: detected %v, want a GC log", f, got)
		}
	}
}

// A zip archive on standard input is opened like a zip file: each entry an
// input (it was refused as binary though --help says zips are recognised).
func TestZipOnStdin(t *testing.T) {
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, f := range []string{"SampleSun1_5_0AdaptiveSizePolicy.txt", "SampleJRockit1_5_20_memstats2.txt"} {
		b, err := os.ReadFile("../jvm/gclog/testdata/public/" + f)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := zw.Create("logs/" + f)
		_, _ = w.Write(b)
	}
	_ = zw.Close()
	files, err := openAll(context.Background(), "-", DefaultLimits(), bytes.NewReader(zb.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "stdin!logs/SampleSun1_5_0AdaptiveSizePolicy.txt" || files[0].Format != GCLog || files[1].Format != GCLog {
		for _, f := range files {
			t.Logf("%s %v", f.Name, f.Format)
		}
		t.Fatalf("%d inputs, want the two GC logs of the archive", len(files))
	}
	rc, err := files[1].Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Contains(b, []byte("[YC#1]")) {
		t.Errorf("entry content: %.200s", b)
	}
	// Past the bound, said and refused, not read whole into memory.
	lim := DefaultLimits()
	lim.MaxBytes = 1 << 10
	big := append(append([]byte(nil), zb.Bytes()...), bytes.Repeat([]byte{0}, sniffMax+HeadLen+1)...)
	if _, err := openAll(context.Background(), "-", lim, bytes.NewReader(big)); err == nil || !bytes.Contains([]byte(err.Error()), []byte("give its path instead")) {
		t.Errorf("an over-large zip on stdin: %v", err)
	}
}
