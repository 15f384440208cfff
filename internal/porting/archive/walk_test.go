package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

type ent struct {
	name   string
	data   []byte
	stored bool
}

func mkzip(t testing.TB, ents ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range ents {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.stored {
			h.Method = zip.Store
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mktgz(t testing.TB, ents ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range ents {
		tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.data)), Typeflag: tar.TypeReg})
		tw.Write(e.data)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

var elfHead = []byte("\x7fELF\x02\x01\x01\x00rest-of-an-elf")

type rec struct {
	visited  []string
	problems []Problem
	enters   []string
}

func walker(r *rec, l Limits) *Walker {
	return &Walker{
		Limits: l,
		Want: func(_ *Container, name string, _ int64) Action {
			switch {
			case strings.HasSuffix(name, ".so") || strings.HasSuffix(name, ".txt"):
				return Read
			case strings.HasPrefix(name, "bin/"):
				return Sniff
			}
			return Skip
		},
		Visit: func(e *Entry, ra io.ReaderAt, size int64) {
			b := make([]byte, size)
			if _, err := ra.ReadAt(b, 0); err != nil && err != io.EOF {
				panic(err)
			}
			r.visited = append(r.visited, e.Path+"="+string(b[:min(len(b), 4)]))
		},
		Enter:   func(c *Container) { r.enters = append(r.enters, c.Kind+":"+c.Path) },
		Problem: func(p Problem) { r.problems = append(r.problems, p) },
	}
}

func TestWalkNested(t *testing.T) {
	inner := mkzip(t, ent{name: "lib/a.so", data: elfHead}, ent{name: "note.txt", data: []byte("note")})
	tgz := mktgz(t, ent{name: "./x/y.txt", data: []byte("tar!")}, ent{name: "x/in.jar", data: inner})
	outer := mkzip(t,
		ent{name: "BOOT-INF/lib/stored.jar", data: inner, stored: true},
		ent{name: "BOOT-INF/lib/deflated.jar", data: inner},
		ent{name: "dist/b.tar.gz", data: tgz},
		ent{name: "bin/tool", data: elfHead},
		ent{name: "bin/script", data: []byte("#!/bin/sh")},
	)
	// An executable jar: a launch script before the zip data.
	exe := append([]byte("#!/bin/bash\nexec java -jar \"$0\" \"$@\"\n"), outer...)
	dir := t.TempDir()
	p := filepath.Join(dir, "app.jar")
	os.WriteFile(p, exe, 0o644)
	r := &rec{}
	if err := walker(r, Limits{}).Walk(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	sort.Strings(r.visited)
	want := []string{
		p + "!/BOOT-INF/lib/deflated.jar!/lib/a.so=\x7fELF",
		p + "!/BOOT-INF/lib/deflated.jar!/note.txt=note",
		p + "!/BOOT-INF/lib/stored.jar!/lib/a.so=\x7fELF",
		p + "!/BOOT-INF/lib/stored.jar!/note.txt=note",
		p + "!/bin/tool=\x7fELF",
		p + "!/dist/b.tar.gz!/x/in.jar!/lib/a.so=\x7fELF",
		p + "!/dist/b.tar.gz!/x/in.jar!/note.txt=note",
		p + "!/dist/b.tar.gz!/x/y.txt=tar!",
	}
	if !reflect.DeepEqual(r.visited, want) {
		t.Errorf("visited\n%s\nwant\n%s", strings.Join(r.visited, "\n"), strings.Join(want, "\n"))
	}
	if len(r.problems) != 0 {
		t.Errorf("problems: %v", r.problems)
	}
	if len(r.enters) != 5 {
		t.Errorf("containers: %v", r.enters)
	}
}

func TestWalkDirAndLooseFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "lib", "x.so"), elfHead, 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "x.jar"), mkzip(t, ent{name: "y.so", data: elfHead}), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "lib", "link.so"))
	r := &rec{}
	walker(r, Limits{}).Walk(context.Background(), dir)
	sort.Strings(r.visited)
	want := []string{filepath.Join(dir, "lib", "x.jar") + "!/y.so=\x7fELF", filepath.Join(dir, "lib", "x.so") + "=\x7fELF"}
	if !reflect.DeepEqual(r.visited, want) {
		t.Errorf("got %v want %v", r.visited, want)
	}
	r = &rec{}
	walker(r, Limits{}).Walk(context.Background(), filepath.Join(dir, "lib", "x.so"))
	if len(r.visited) != 1 {
		t.Errorf("loose file: %v", r.visited)
	}
	if err := walker(&rec{}, Limits{}).Walk(context.Background(), filepath.Join(dir, "missing")); err == nil {
		t.Error("missing PATH: no error")
	}
}

func TestWalkLimitsAndDamage(t *testing.T) {
	zeros := bytes.Repeat([]byte("0"), 1<<20)
	for _, tc := range []struct {
		name string
		data []byte
		lim  Limits
		kind ProblemKind
		sub  string
	}{
		{"bomb.jar", mkzip(t, ent{name: "a.txt", data: zeros}), Limits{MaxRead: 1000}, Limit, "read limit"},
		{"bomb2.jar", mkzip(t, ent{name: "in.jar", data: mkzip(t, ent{name: "a.txt", data: zeros})}), Limits{MaxEntry: 1000}, Limit, "entry limit"},
		{"total.jar", mkzip(t, ent{name: "a.txt", data: zeros}, ent{name: "b.txt", data: zeros}), Limits{MaxTotal: 1500000}, Limit, "total"},
		{"bomb.tar.gz", mktgz(t, ent{name: "a.bin", data: zeros}, ent{name: "b.txt", data: []byte("x")}), Limits{MaxTotal: 1000}, Limit, "total"},
		{"slip.zip", mkzip(t, ent{name: "../../x.so", data: elfHead}), Limits{}, UnsafeName, "escapes"},
		{"slip2.zip", mkzip(t, ent{name: `..\..\x.so`, data: elfHead}), Limits{}, UnsafeName, "escapes"},
		{"slip.tar.gz", mktgz(t, ent{name: "/etc/x.so", data: elfHead}), Limits{}, UnsafeName, "escapes"},
		{"trunc.jar", half(mkzip(t, ent{name: "a.txt", data: zeros})), Limits{}, Unreadable, "zip"},
		{"trunc.tar.gz", half(mktgz(t, ent{name: "a.txt", data: zeros})), Limits{}, Unreadable, "tar"},
		{"garbage.jar", []byte("this is not a zip file at all"), Limits{}, Unreadable, "zip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.name)
			os.WriteFile(p, tc.data, 0o644)
			r := &rec{}
			if err := walker(r, tc.lim).Walk(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			for _, pr := range r.problems {
				if pr.Kind == tc.kind && strings.Contains(pr.Err.Error(), tc.sub) {
					return
				}
			}
			t.Errorf("want a %s problem mentioning %q, got %v", tc.kind, tc.sub, r.problems)
		})
	}
}

func half(b []byte) []byte { return b[:len(b)/2] }

func TestUnsafeEntryName(t *testing.T) {
	for name, want := range map[string]bool{
		"a/b.so": false, "../a": true, "a/../../b": true, "/etc/passwd": true, `..\x`: true, "C:/x": true,
		"a..b/c": false, "": false, "./a": false,
	} {
		if got := UnsafeEntryName(name); got != want {
			t.Errorf("UnsafeEntryName(%q)=%v", name, got)
		}
	}
}

func FuzzWalkReader(f *testing.F) {
	inner := mkzip(f, ent{name: "lib/a.so", data: elfHead})
	f.Add("a.jar", mkzip(f, ent{name: "x.jar", data: inner, stored: true}, ent{name: "y.jar", data: inner}))
	f.Add("a.tar.gz", mktgz(f, ent{name: "x/in.jar", data: inner}, ent{name: "b.so", data: elfHead}))
	f.Add("a.jar", []byte("PK\x03\x04garbage"))
	f.Fuzz(func(t *testing.T, name string, b []byte) {
		r := &rec{}
		w := walker(r, Limits{MaxEntry: 1 << 20, MaxTotal: 4 << 20, MaxDepth: 4, MaxRead: 1 << 20})
		w.WalkReader(context.Background(), name, bytes.NewReader(b), int64(len(b)))
	})
}

func TestWalkBzip2AndUnsupported(t *testing.T) {
	dir := t.TempDir()
	// bzip2 has no writer in the standard library: a tiny .tar.bz2 made with
	// `tar cjf` (one file "a.so" holding "\x7fELF"), as bytes.
	tbz := []byte("\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\x9f\xe2\xd1\xf1\x00\x00\x74\x7f\x84\xc9\x00\x00\x41\x40\x01\x6f\x80\x03\x04\x00\x04\x60\x00\x9e\x00\x80\x00\x80\x08\x20\x00\x74\x1a\x44\xda\x65\x06\x86\x4d\x36\xa3\xd4\x09\x29\x94\xd0\x00\x06\xd4\x08\xfa\x97\xbb\xa1\x06\xf3\x01\x22\xac\xec\x24\x33\x98\x49\x24\x0c\xa4\x34\x34\x3c\xe6\x0a\x86\x55\x85\x64\x23\x68\xcc\x5f\x94\x95\xd6\x0b\x25\x76\x63\x18\xbf\xb6\x18\x1d\x4d\xbc\x73\x08\xff\x21\x11\x01\xf8\xbb\x92\x29\xc2\x84\x84\xff\x16\x8f\x88")
	os.WriteFile(filepath.Join(dir, "b.tar.bz2"), tbz, 0o644)
	os.WriteFile(filepath.Join(dir, "c.tar.xz"), []byte("\xfd7zXZ\x00"), 0o644)
	r := &rec{}
	walker(r, Limits{}).Walk(context.Background(), dir)
	var unsupported int
	for _, p := range r.problems {
		if p.Kind == Unreadable && strings.Contains(p.Err.Error(), "not supported") {
			unsupported++
		}
	}
	if unsupported != 1 {
		t.Errorf("problems %v", r.problems)
	}
	if len(r.visited) != 1 || !strings.HasSuffix(r.visited[0], "b.tar.bz2!/a.so=\x7fELF") {
		t.Errorf("visited %v", r.visited)
	}
}
