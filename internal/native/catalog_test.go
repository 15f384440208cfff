package native

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// words assembles arm64 instruction words, little-endian.
func words(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

const (
	armLdaxr   = 0x885ffc01 // ldaxr w1, [x0]
	armAdd     = 0x11000421 // add w1, w1, #1
	armStlxr   = 0x8802fc01 // stlxr w2, w1, [x0]
	armCbnz    = 0x35ffffa2 // cbnz w2, -12
	armLdaddal = 0xb8e10002 // ldaddal w1, w2, [x0] (LSE)
	armYield   = 0xd503203f
	armSubs    = 0x71000421 // subs w1, w1, #1
	armBne     = 0x54ffffc1 // b.ne -8
	armCrc32cx = 0x9ac15c00 // crc32cx w0, w0, x1
	armLdrb    = 0x38401422 // ldrb w2, [x1], #1
	armEor     = 0x4a020000 // eor w0, w0, w2
	armRet     = 0xd65f03c0
)

var kunpeng = CPU{Arch: "arm64", Flags: map[string]bool{"fp": true, "asimd": true, "crc32": true, "atomics": true}}

// rec is a recording of 1000 samples with the given hot functions (the
// arm64 cases are recorded samples: function bytes and where the samples fell).
func rec(fs ...Func) *Recording { return &Recording{Samples: 1000, Funcs: fs} }

func found(fs []finding.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, ",")
}

func TestCatalogueARM64(t *testing.T) {
	llsc := Func{Name: "atomic_add_llsc", Kind: "user", Self: 300, Total: 300,
		Code: words(armLdaxr, armAdd, armStlxr, armCbnz, armRet), Offsets: map[uint64]int{0: 200, 8: 100}}
	lse := Func{Name: "atomic_add_lse", Kind: "user", Self: 300, Total: 300, Code: words(armLdaddal, armRet), Offsets: map[uint64]int{0: 300}}
	spin := Func{Name: "ut_delay", Kind: "user", Self: 400, Total: 400, Code: words(armYield, armSubs, armBne, armRet), Offsets: map[uint64]int{0: 150, 4: 250}}
	crcSW := Func{Name: "ut_crc32_sw", Kind: "user", Self: 200, Total: 200, Code: words(armLdrb, armEor, armRet), Offsets: map[uint64]int{4: 200}}
	crcHW := Func{Name: "ut_crc32_hw", Kind: "user", Self: 200, Total: 200, Code: words(armCrc32cx, armRet), Offsets: map[uint64]int{0: 200}}
	for _, c := range []struct {
		name string
		cpu  CPU
		fs   []Func
		want string
	}{
		{"LL/SC on LSE", kunpeng, []Func{llsc}, "native.llsc-atomics"},
		{"LSE atomics", kunpeng, []Func{lse}, ""},
		{"LL/SC on ARMv8.0 (no LSE to use)", CPU{Arch: "arm64", Flags: map[string]bool{"crc32": true}}, []Func{llsc}, ""},
		{"yield loop", kunpeng, []Func{spin}, "native.spin-wait"},
		{"software CRC with crc32", kunpeng, []Func{crcSW}, "native.crc32-software"},
		{"hardware CRC", kunpeng, []Func{crcHW}, ""},
		{"software CRC on a CPU without", CPU{Arch: "arm64", Flags: map[string]bool{}}, []Func{crcSW}, ""},
	} {
		if got := found(Catalogue(rec(c.fs...), c.cpu)); got != c.want {
			t.Errorf("%s: found %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCatalogueX86AndKernel(t *testing.T) {
	x86 := CPU{Arch: "amd64", Flags: map[string]bool{"sse4_2": true, "pclmulqdq": true}}
	// A lock routine with a spin path whose samples are elsewhere is no spin wait.
	lock := Func{Name: "__pthread_mutex_lock", Kind: "user", Self: 300, Code: append(make([]byte, 64), 0xf3, 0x90, 0x83, 0xe8, 0x01, 0x7f, 0xf9), Offsets: map[uint64]int{3: 300}}
	pause := lock
	pause.Offsets = map[uint64]int{66: 300}
	for _, c := range []struct {
		name string
		fs   []Func
		want string
	}{
		{"spin path not taken", []Func{lock}, ""},
		{"spinning", []Func{pause}, "native.spin-wait"},
		{"memcpy", []Func{{Name: "__memmove_avx_unaligned_erms", Kind: "user", Self: 150}}, "native.memcpy"},
		{"futex", []Func{{Name: "do_futex", Kind: "kernel", Total: 200}, {Name: "futex_wait", Kind: "kernel", Total: 150}}, "native.futex-storm"},
		{"faults", []Func{{Name: "handle_mm_fault", Kind: "kernel", Total: 120}}, "native.page-faults"},
		{"compaction", []Func{{Name: "isolate_migratepages_block", Kind: "kernel", Total: 30}}, "native.thp-compaction"},
		{"cold", []Func{{Name: "handle_mm_fault", Kind: "kernel", Total: 20}, {Name: "memcpy", Kind: "user", Self: 20}}, ""},
	} {
		fs := Catalogue(rec(c.fs...), x86)
		if got := found(fs); got != c.want {
			t.Errorf("%s: found %q, want %q", c.name, got, c.want)
		}
		for _, f := range fs {
			if f.Title.EN == "" || f.Title.ZH == "" || f.Recommended.ZH == "" || f.Why.EN == "" || len(f.Evidence) == 0 {
				t.Errorf("%s: incomplete finding %+v", f.ID, f)
			}
		}
	}
	if fs := Catalogue(rec(Func{Name: "compact_zone", Kind: "kernel", Total: 50}), x86); len(fs) != 1 || fs[0].Fix.Apply == "" || fs[0].Fix.Revert == "" {
		t.Errorf("THP compaction has no fix and revert: %+v", fs)
	}
}

func TestParseCPUInfo(t *testing.T) {
	x := ParseCPUInfo(strings.NewReader("processor\t: 0\nflags\t\t: fpu sse4_2 pclmulqdq\n\nprocessor\t: 1\nflags\t\t: fpu\n"), "amd64")
	if ok, flag := x.HasCRC32(); !ok || flag != "sse4_2" || x.Flags["fpu"] != true {
		t.Errorf("x86: %+v", x)
	}
	a := ParseCPUInfo(strings.NewReader("processor\t: 0\nBogoMIPS\t: 200.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid\nCPU implementer\t: 0x48\n"), "arm64")
	if ok, _ := a.HasCRC32(); !ok || !a.Flags["atomics"] {
		t.Errorf("arm64: %+v", a)
	}
}

func TestParsers(t *testing.T) {
	k := parseKallsyms(strings.NewReader("ffffffff81000000 T _stext\nffffffff81e0b6a0 T native_queued_spin_lock_slowpath\nffffffff81e0b900 t futex_wait\n0000000000000000 T hidden\nffffffff82000000 D data\n"))
	if s, ok := k.find(0xffffffff81e0b6b0); !ok || s.Name != "native_queued_spin_lock_slowpath" {
		t.Errorf("kallsyms: %v %v", s, ok)
	}
	if len(k) != 3 {
		t.Errorf("kallsyms kept %d symbols, want 3 (no zero address, no data)", len(k))
	}
	m := parsePerfMap(strings.NewReader("7f1c2d0c5a20 1e0 Ljava/lang/String;::hashCode\n7f1c2d0c6000 40 Interpreter\nbad line\n"))
	if s, ok := m.find(0x7f1c2d0c5a30); !ok || s.Name != "Ljava/lang/String;::hashCode" {
		t.Errorf("perf map: %v", s)
	}
	if _, ok := m.find(0x7f1c2d0c5c10); ok {
		t.Errorf("perf map: an address past the method's size resolved")
	}
	mp := parseMaps(strings.NewReader("55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1 /usr/bin/x\n7f3c48a28000-7f3c48bbd000 r-xp 00028000 08:01 1311 /usr/lib/x86_64-linux-gnu/libc.so.6\n7f00aa000000-7f00aa100000 rwxp 00000000 00:00 0 \n"))
	if len(mp) != 2 || mp[0].Off != 0x28000 || mp[1].Path != "" {
		t.Errorf("maps: %+v", mp)
	}
}

func TestUnavailableSaysTheSetting(t *testing.T) {
	u := &Unavailable{Err: errEPERM{}, Paranoid: "3", Reason: ReasonPermission}
	en, zh := u.Message(finding.EN), u.Message(finding.ZH)
	if !strings.Contains(en, "perf_event_paranoid=-1") || !strings.Contains(en, "CAP_PERFMON") || !strings.Contains(zh, "perf_event_paranoid=-1") || en == zh {
		t.Errorf("%s\n%s", en, zh)
	}
}

type errEPERM struct{}

func (errEPERM) Error() string { return "operation not permitted" }

func FuzzParseSample(f *testing.F) {
	f.Add(make([]byte, 40))
	f.Fuzz(func(t *testing.T, b []byte) { parseSample(b) })
}

// The catalogue's rules validate: both languages, a reference, unique IDs.
func TestCatalogueRulesValidate(t *testing.T) {
	if err := finding.ValidateRules(Rules()); err != nil {
		t.Fatal(err)
	}
}
