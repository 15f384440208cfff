package porting

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// writeBigFatJar writes a Spring Boot-style fat jar of about totalMB
// megabytes with nJars nested jars (stored, as Spring Boot requires), each
// holding deflated class files (half random, half repetitive: they compress
// about 2:1 like real classes), a large stored resource, and every tenth a
// pair of native libraries. Returns the number of classes.
func writeBigFatJar(tb testing.TB, path string, nJars, totalMB int) int {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(bw)
	rng := rand.New(rand.NewChaCha8([32]byte{1}))
	x86, arm := elfFixture(tb, "x86_64"), elfFixture(tb, "aarch64")
	perJar := totalMB << 20 / nJars
	classesPerJar := 400
	if totalMB < 50 {
		classesPerJar = 40 // the small test run
	}
	classes := 0
	rnd := func(n int) []byte {
		b := make([]byte, n)
		for i := 0; i+8 <= n; i += 8 {
			v := rng.Uint64()
			for k := 0; k < 8; k++ {
				b[i+k] = byte(v >> (8 * k))
			}
		}
		return b
	}
	fw, _ := flate.NewWriter(io.Discard, flate.BestSpeed) // one writer, reset per entry
	text := []byte("Ljava/lang/String;Ljava/util/List;org/springframework/beans/factory/")
	for j := 0; j < nJars; j++ {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("BOOT-INF/lib/lib%03d-1.0.%d.jar", j, j), Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		inner := zip.NewWriter(w)
		inner.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) { fw.Reset(out); return fw, nil })
		add := func(name string, data []byte, m uint16) {
			iw, err := inner.CreateHeader(&zip.FileHeader{Name: name, Method: m})
			if err != nil {
				tb.Fatal(err)
			}
			iw.Write(data)
		}
		add(fmt.Sprintf("META-INF/maven/com.example/lib%03d/pom.properties", j), pomProps("com.example", fmt.Sprintf("lib%03d", j), fmt.Sprintf("1.0.%d", j)), zip.Deflate)
		written := 0
		for c := 0; c < classesPerJar; c++ {
			pad := append(rnd(2048), text...)
			for len(pad) < 4096 {
				pad = append(pad, text...)
			}
			lib := ""
			if c == 0 && j%7 == 0 {
				lib = fmt.Sprintf("native%03d", j)
			}
			cls := classFile(fmt.Sprintf("com/example/lib%03d/C%04d", j, c), lib, c == 0 && j%7 == 0, pad)
			add(fmt.Sprintf("com/example/lib%03d/C%04d.class", j, c), cls, zip.Deflate)
			written += len(cls) / 2
			classes++
		}
		if j%10 == 0 {
			add(fmt.Sprintf("native/linux-x86-64/libn%03d.so", j), x86, zip.Deflate)
			add(fmt.Sprintf("native/linux-aarch64/libn%03d.so", j), arm, zip.Deflate)
		}
		if rest := perJar - written; rest > 0 {
			add("assets/blob.bin", rnd(rest), zip.Store)
		}
		if err := inner.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	return classes
}

// BenchmarkScanFatJar scans a generated 300 MB fat jar with 200 nested
// jars (run with -cpu 1 for the one-core figure; the goal is under 5 s).
func BenchmarkScanFatJar(b *testing.B) {
	path := filepath.Join(b.TempDir(), "fat.jar")
	classes := writeBigFatJar(b, path, 200, 300)
	fi, _ := os.Stat(path)
	b.ReportAllocs()
	b.SetBytes(fi.Size())
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		r, err := Scan(context.Background(), path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if r.Jars != 201 || r.Classes != classes {
			b.Fatalf("jars %d classes %d (want 201, %d)", r.Jars, r.Classes, classes)
		}
	}
	// CPU seconds per scan: the one-core cost, whatever else runs on the host.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(fi.Size())/(1<<20), "MB")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestFatJarSmall runs the benchmark's generator small, so the shape it
// builds is checked by every test run.
func TestFatJarSmall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fat.jar")
	classes := writeBigFatJar(t, path, 15, 8)
	r := scanPath(t, path, Options{})
	if r.Jars != 16 || r.Classes != classes || r.Natives != 4 {
		t.Errorf("jars %d classes %d natives %d", r.Jars, r.Classes, r.Natives)
	}
	// lib000 and lib007 load native000/native007 (not bundled): to confirm.
	n := 0
	for _, res := range r.Results {
		if res.Verdict == Confirm && res.Kind == "jni" {
			n++
		}
		if res.Verdict == Blocker || res.Verdict == Upgrade {
			t.Errorf("unexpected %s: %s", res.Verdict, res.Component)
		}
	}
	if n != 2 { // lib007, lib014 (lib000 bundles natives of its own, so passes on them)
		t.Errorf("%d jni findings", n)
	}
}
