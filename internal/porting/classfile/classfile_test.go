package classfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func loader(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "Loader.class"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseLoader(t *testing.T) {
	i, err := Parse(loader(t))
	if err != nil {
		t.Fatal(err)
	}
	if i.Name != "Loader" || i.Major != 52 {
		t.Errorf("name %q major %d", i.Name, i.Major)
	}
	if !reflect.DeepEqual(i.NativeMethods, []string{"compress"}) {
		t.Errorf("native methods %v", i.NativeMethods)
	}
	want := []Call{
		{API: "java/lang/System.loadLibrary"},                               // computed(): "acme_" + os.arch
		{API: "java/lang/Runtime.load", Lib: "/opt/acme/libacme-x86_64.so"}, // after a lookupswitch
		{API: "java/lang/System.loadLibrary", Lib: "acme"},                  // static {}
	}
	if !reflect.DeepEqual(i.Calls, want) {
		t.Errorf("calls\n got %+v\nwant %+v", i.Calls, want)
	}
	if !i.Native() {
		t.Error("Native() false")
	}
}

func TestParseBad(t *testing.T) {
	b := loader(t)
	if _, err := Parse([]byte("PK\x03\x04")); !errors.Is(err, ErrNotClass) {
		t.Errorf("zip magic: %v", err)
	}
	for n := 0; n < len(b); n += 7 {
		if _, err := Parse(b[:n]); err == nil {
			t.Errorf("truncated at %d accepted", n)
		}
	}
	bad := append([]byte{}, b...)
	bad[10] = 99 // first constant pool tag
	if _, err := Parse(bad); err == nil {
		t.Error("unknown constant pool tag accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(loader(f))
	f.Add([]byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		i, err := Parse(b)
		if err == nil && i == nil {
			t.Fatal("nil info without error")
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data := loader(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
