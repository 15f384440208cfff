package native

// The catalogue of known native pathologies, checked on a recording's hot
// functions and gated on what the CPU has:
//
//	native.spin-wait        a hot function whose body is a pause/yield/isb loop (InnoDB's ut_delay)
//	native.crc32-software   a hot crc32* function without the CPU's CRC32 instruction while the CPU has one
//	native.llsc-atomics     arm64: hot LL/SC (ldxr/stxr) loops on a core with LSE atomics
//	native.memcpy           memcpy/memmove/memset hot
//	native.futex-storm      the kernel's futex code hot: threads queueing on one lock
//	native.page-faults      the kernel's page-fault path hot
//	native.thp-compaction   the kernel compacting memory for transparent huge pages

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// CPU is what the catalogue needs to know of the processor.
type CPU struct {
	Arch  string          // amd64 or arm64 (GOARCH names)
	Flags map[string]bool // x86 "flags" / arm64 "Features" of /proc/cpuinfo
}

// ParseCPUInfo reads the first processor's flags (x86) or Features (arm64):
//
//	flags		: fpu vme de pse tsc msr pae mce cx8 apic sep ... sse4_2 ... pclmulqdq
//	Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid
func ParseCPUInfo(r io.Reader, arch string) CPU {
	c := CPU{Arch: arch, Flags: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if k = strings.TrimSpace(k); !ok || (k != "flags" && k != "Features") {
			continue
		}
		for _, f := range strings.Fields(v) {
			c.Flags[f] = true
		}
		break
	}
	return c
}

// ReadCPU is this host's CPU.
func ReadCPU() CPU {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return CPU{Arch: runtime.GOARCH, Flags: map[string]bool{}}
	}
	defer f.Close()
	return ParseCPUInfo(f, runtime.GOARCH)
}

// HasCRC32 says whether the CPU has a CRC32 instruction, and which flag says so.
func (c CPU) HasCRC32() (bool, string) {
	switch c.Arch {
	case "amd64", "386":
		return c.Flags["sse4_2"], "sse4_2"
	case "arm64":
		return c.Flags["crc32"], "crc32"
	}
	return false, ""
}

// Thresholds: the share of all samples a function (self) or a kernel path
// (total) must hold to be named.
const (
	hotSelf        = 0.05
	hotCopy        = 0.10
	hotFutex       = 0.10
	hotFaults      = 0.10
	hotCompaction  = 0.02
	maxCodeScanned = 4096
)

// Catalogue checks rec's hot functions against the known pathologies: the
// rules of Rules, evaluated by the engine, ranked.
func Catalogue(rec *Recording, cpu CPU) []finding.Finding {
	if rec == nil || rec.Samples == 0 {
		return nil
	}
	return finding.Evaluate(Rules(), newInput(rec, cpu))
}

// Input is what the catalogue's rules read: the recording's hot functions,
// the CPU's features, and the kernel paths and copy routines summed once.
type Input struct {
	Rec *Recording
	CPU CPU
	n   float64
	// copyShare is memcpy/memmove/memset's own share, copyTop the hottest.
	copyShare              float64
	copyTop                Func
	futex, faults, compact int
}

func newInput(rec *Recording, cpu CPU) *Input {
	in := &Input{Rec: rec, CPU: cpu, n: float64(rec.Samples)}
	for _, f := range rec.Funcs {
		name := strings.ToLower(f.Name)
		switch f.Kind {
		case "user":
			if isCopy(name) {
				in.copyShare += float64(f.Self) / in.n
				if f.Self > in.copyTop.Self {
					in.copyTop = f
				}
			}
		case "kernel":
			switch {
			case strings.HasPrefix(name, "futex_") || name == "do_futex" || strings.HasSuffix(name, "sys_futex"):
				in.futex = max(in.futex, f.Total)
			case name == "handle_mm_fault" || name == "do_user_addr_fault" || name == "exc_page_fault" || name == "do_page_fault" || name == "do_translation_fault" || name == "do_mem_abort":
				in.faults = max(in.faults, f.Total)
			case name == "compact_zone" || strings.HasPrefix(name, "isolate_migratepages") || name == "try_to_compact_pages":
				in.compact = max(in.compact, f.Total)
			}
		}
	}
	return in
}

// hotUser is each user function holding at least hotSelf of the samples
// on its own, with its share.
func (in *Input) hotUser(each func(f Func, self float64)) {
	for _, f := range in.Rec.Funcs {
		if self := float64(f.Self) / in.n; f.Kind == "user" && self >= hotSelf {
			each(f, self)
		}
	}
}

// ev is the evidence of a hot function.
func (in *Input) ev(f Func, share float64) []finding.Evidence {
	e := []finding.Evidence{{Key: "function", Value: finding.SafeLine(f.Name), Source: "perf_event_open cpu-clock"},
		{Key: "share", Value: fmt.Sprintf("%.1f%% of %d samples", 100*share, in.Rec.Samples)}}
	if f.Module != "" {
		e = append(e, finding.Evidence{Key: "module", Value: finding.SafeLine(f.Module), Source: "/proc/PID/maps"})
	}
	return e
}

// kernel is the outcome of a kernel path on at least min of the samples
// (v of them), said by observed.
func (in *Input) kernel(v int, min float64, path string, conf float64, observed func(s float64) finding.Text) []finding.Outcome {
	s := float64(v) / in.n
	if s < min {
		return nil
	}
	return []finding.Outcome{{Status: finding.Fail, Confidence: conf, Observed: observed(s),
		Evidence: []finding.Evidence{{Key: "kernel path", Value: path, Source: "perf_event_open cpu-clock, /proc/kallsyms"},
			{Key: "share", Value: fmt.Sprintf("%.1f%% of %d samples", 100*s, in.Rec.Samples)}}}}
}

// knownSpin names spin-wait functions known from practice.
func knownSpin(name string) bool {
	switch name {
	case "ut_delay", "SpinPause":
		return true
	}
	return false
}

// pauses are the offsets of the pause (x86: F3 90) or yield/isb (arm64)
// instructions in code.
func pauses(code []byte, arch string) []uint64 {
	code = code[:min(len(code), maxCodeScanned)]
	var at []uint64
	switch arch {
	case "amd64", "386":
		for i := 0; i+2 <= len(code); i++ {
			if code[i] == 0xf3 && code[i+1] == 0x90 {
				at = append(at, uint64(i))
			}
		}
	case "arm64":
		for i := 0; i+4 <= len(code); i += 4 {
			switch binary.LittleEndian.Uint32(code[i:]) {
			case 0xd503203f, 0xd5033fdf: // yield, isb
				at = append(at, uint64(i))
			}
		}
	}
	return at
}

// spinning says whether most of f's own samples sit in a pause loop (within
// 16 bytes of a pause instruction): a lock routine that merely has a spin
// path, but spends its time elsewhere, is not a spin wait.
func spinning(f Func, arch string) bool {
	at := pauses(f.Code, arch)
	if len(at) == 0 || f.Self == 0 {
		return false
	}
	in, all := 0, 0
	for off, n := range f.Offsets {
		all += n
		for _, p := range at {
			if off+16 >= p && off <= p+16 {
				in += n
				break
			}
		}
	}
	return all > 0 && 2*in >= all
}

// hasCRCInstruction finds the CPU's CRC32 instruction in code: x86 SSE4.2
// crc32 (F2 [REX] 0F 38 F0/F1), arm64 CRC32{B,H,W,X}/CRC32C*.
func hasCRCInstruction(code []byte, arch string) bool {
	code = code[:min(len(code), maxCodeScanned)]
	switch arch {
	case "amd64", "386":
		for i := 0; i+4 <= len(code); i++ {
			if code[i] != 0xf2 {
				continue
			}
			j := i + 1
			if code[j]&0xf0 == 0x40 && j+4 <= len(code) { // REX
				j++
			}
			if j+3 <= len(code) && code[j] == 0x0f && code[j+1] == 0x38 && (code[j+2] == 0xf0 || code[j+2] == 0xf1) {
				return true
			}
		}
	case "arm64":
		for i := 0; i+4 <= len(code); i += 4 {
			if binary.LittleEndian.Uint32(code[i:])&0x7fe0e000 == 0x1ac04000 {
				return true
			}
		}
	}
	return false
}

// llscLoop is an arm64 body with a load-exclusive and a store-exclusive
// (ldxr/ldaxr ... stxr/stlxr): atomics done the ARMv8.0 way.
func llscLoop(code []byte) bool {
	var ld, st bool
	for i := 0; i+4 <= min(len(code), maxCodeScanned); i += 4 {
		w := binary.LittleEndian.Uint32(code[i:])
		switch w & 0x3fe00000 {
		case 0x08400000:
			ld = true
		case 0x08000000:
			st = true
		}
	}
	return ld && st
}

func isCopy(name string) bool {
	for _, p := range []string{"memcpy", "memmove", "memset", "__memcpy", "__memmove", "__memset"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func pct(s float64) string { return fmt.Sprintf("%.0f%%", 100*s) }
