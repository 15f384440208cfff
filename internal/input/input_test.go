package input

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/tuneloop/tuneloop/internal/finding"
)

const dumpText = "2026-11-21 22:41:08\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing):\n\n" +
	"\"main\" #1 prio=5 os_prio=0 cpu=394.05ms elapsed=8.68s tid=0x00007f190c019a40 nid=0x4154 waiting on condition  [0x00007f19119de000]\n" +
	"   java.lang.Thread.State: TIMED_WAITING (sleeping)\n\tat java.lang.Thread.sleep(java.base@17.0.15/Native Method)\n\n" +
	"JNI global refs: 15, weak refs: 0\n"

func write(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readAll(t *testing.T, f *File) string {
	t.Helper()
	rc, err := f.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return string(b)
}

func utf16Bytes(s string, le, bom bool) []byte {
	var out []byte
	put := func(u uint16) {
		if le {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	if bom {
		put(0xFEFF)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		put(u)
	}
	return out
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// Every encoding a user's dump arrives in reads as the same text.
func TestOpenDecodes(t *testing.T) {
	crlf := strings.ReplaceAll(dumpText, "\n", "\r\n")
	cases := []struct {
		name, enc string
		data      []byte
	}{
		{"plain.txt", "", []byte(dumpText)},
		{"crlf.txt", "", []byte(crlf)},
		{"bom.txt", "utf-8-bom", append([]byte("\xEF\xBB\xBF"), dumpText...)},
		{"ps.txt", "utf-16le", utf16Bytes(crlf, true, true)}, // PowerShell: jcmd PID Thread.print > ps.txt
		{"be.txt", "utf-16be", utf16Bytes(dumpText, false, true)},
		{"le-nobom.txt", "utf-16le", utf16Bytes(dumpText, true, false)},
		{"be-nobom.txt", "utf-16be", utf16Bytes(dumpText, false, false)},
		{"dump.gz", "gzip", gz([]byte(dumpText))},
		{"dump.txt.gz", "gzip+utf-16le", gz(utf16Bytes(crlf, true, true))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(context.Background(), write(t, c.name, c.data), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Encoding != c.enc {
				t.Errorf("encoding %q, want %q", f.Encoding, c.enc)
			}
			if f.Format != HotSpot {
				t.Errorf("format %q, want hotspot", f.Format)
			}
			if got := readAll(t, f); got != dumpText {
				t.Errorf("text differs:\n%q\nwant\n%q", got, dumpText)
			}
		})
	}
}

func TestOpenZipEachEntry(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{"dumps/a.txt": dumpText, "gc.log": "[0.002s][info][gc] Using G1\n"} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Create("dumps/") // a directory entry is no input
	zw.Close()
	p := write(t, "evidence.zip", buf.Bytes())
	fs, err := OpenAll(context.Background(), p, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Format{}
	for _, f := range fs {
		got[strings.TrimPrefix(f.Name, p)] = f.Format
		readAll(t, f)
	}
	if len(got) != 2 || got["!dumps/a.txt"] != HotSpot || got["!gc.log"] != GCLog {
		t.Errorf("entries %v", got)
	}
	if _, err := Open(context.Background(), p, Limits{}); err == nil || !strings.Contains(err.Error(), "zip archive of 2 files") {
		t.Errorf("Open of a 2-file zip: %v", err)
	}
}

// Hostile inputs: each ends quickly with a message naming the file and what it is.
func TestRefusesDevicesAndDirectories(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: a character device, not a file"},
		{"/dev/urandom", "/dev/urandom: a character device, not a file"},
		{os.TempDir(), os.TempDir() + ": a directory, not a file"},
	} {
		_, err := Open(context.Background(), c.path, Limits{})
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrNotFile) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
		if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, "不是文件") {
			t.Errorf("zh: %q", zh)
		}
	}
	if _, err := Open(context.Background(), "/nonexistent/x.log", Limits{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// Random bytes on stdin end at the byte limit, named.
func TestURandomOnStdinBounded(t *testing.T) {
	u, err := os.Open("/dev/urandom")
	if err != nil {
		t.Skip(err)
	}
	defer u.Close()
	lim := Limits{MaxBytes: 8 << 20}
	f, err := OpenReader(context.Background(), "stdin", u, lim)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != Binary {
		t.Errorf("format %q, want binary", f.Format)
	}
	rc, _ := f.Open(context.Background())
	_, err = io.Copy(io.Discard, rc)
	if !errors.Is(err, ErrLimit) || err.Error() != "stdin: more than 8 MiB read; limit --max-input" {
		t.Errorf("err %v", err)
	}
}

// A FIFO nobody writes: open(2) waits for a writer; ctx ends it within a second.
func TestFIFONobodyWrites(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Open(ctx, p, Limits{})
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), p) {
		t.Errorf("err %v", err)
	}
}

// A FIFO whose writer stops writing without closing: the read ends with ctx.
func TestFIFOStalledWriter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	w := make(chan *os.File, 1)
	go func() {
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.Write([]byte(dumpText))
		w <- f
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Open(ctx, p, Limits{})
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
	(<-w).Close()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v", err)
	}
}

// A 100 MB line is cut at MaxLine and counted; the lines around it pass.
func TestHundredMegabyteLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "long.log")
	fd, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	fd.WriteString("[0.002s][info][gc] Using G1\n")
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 100 {
		fd.Write(chunk)
	}
	fd.WriteString("\n[0.010s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 3.456ms\n")
	fd.Close()
	f, err := Open(context.Background(), p, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != GCLog {
		t.Errorf("format %q", f.Format)
	}
	got := readAll(t, f)
	lines := strings.Split(got, "\n")
	if len(lines) != 4 || len(lines[1]) != 1<<20 || !strings.HasPrefix(lines[2], "[0.010s]") {
		t.Errorf("%d lines, second %d bytes", len(lines), len(lines[1]))
	}
	if f.LongLines() != 1 {
		t.Errorf("LongLines %d", f.LongLines())
	}
}

// A sparse 10 GB file (no disk used) ends at the byte limit with a message.
func TestSparseTenGigabytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gc.log")
	if err := os.WriteFile(p, []byte("[0.002s][info][gc] Using G1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 10<<30); err != nil {
		t.Skip(err)
	}
	f, err := Open(context.Background(), p, Limits{MaxBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != GCLog {
		t.Errorf("format %q", f.Format)
	}
	rc, _ := f.Open(context.Background())
	_, err = io.Copy(io.Discard, rc)
	if !errors.Is(err, ErrLimit) || err.Error() != p+": more than 256 MiB read; limit --max-input" {
		t.Errorf("err %v", err)
	}
	// All NULs from the start: binary, said at once.
	q := filepath.Join(t.TempDir(), "hole")
	os.WriteFile(q, nil, 0o644)
	os.Truncate(q, 10<<30)
	start := time.Now()
	g, err := Open(context.Background(), q, Limits{})
	if err != nil || g.Format != Binary || time.Since(start) > 2*time.Second {
		t.Errorf("hole: %v %v after %v", g, err, time.Since(start))
	}
}

// `jstack PID | tuneloop analyze -`: stdin is read once and replayed for a second read.
func TestStdinReplay(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write(gz([]byte(dumpText)))
		pw.Close()
	}()
	f, err := OpenReader(context.Background(), "stdin", pr, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != HotSpot || f.Encoding != "gzip" {
		t.Errorf("%q %q", f.Format, f.Encoding)
	}
	for i := range 2 {
		if got := readAll(t, f); got != dumpText {
			t.Errorf("read %d: %q", i, got)
		}
	}
}

func TestStdinPastReplayBuffer(t *testing.T) {
	big := strings.Repeat("[0.002s][info][gc] Using G1\n", 40000) // ~1.1 MB
	f, err := OpenReader(context.Background(), "stdin", strings.NewReader(big), Limits{MaxBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := f.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, rc)
	if !errors.Is(err, ErrLimit) {
		t.Errorf("err %v", err)
	}
}

func TestEmpty(t *testing.T) {
	f, err := Open(context.Background(), write(t, "empty.txt", nil), Limits{})
	if err != nil || f.Format != Empty {
		t.Fatalf("%v %v", f, err)
	}
	if got := Describe(f.Format, f.Head).In(finding.EN); got != "empty" {
		t.Errorf("%q", got)
	}
}
