// Package native samples native and kernel stacks through perf_event_open
// (a software cpu-clock event on every CPU: no hardware counters needed)
// and names every frame: kernel ones from /proc/kallsyms, native ones from
// the ELF symbol tables of the files in /proc/PID/maps, and JIT-compiled
// Java from the JVM's perf map (Compiler.perfmap, JDK 17+), so a mixed
// stack reads from the Java method down into the kernel. Catalogue checks
// the hot functions against known native pathologies, gated on what the
// CPU has (/proc/cpuinfo).
//
// Frame names follow FlameGraph's convention: kernel frames end in "_[k]",
// JIT-compiled Java frames in "_[j]"; a stack's root is the process name.
package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// MaxRawSamples caps the samples kept for resolving at the end.
const MaxRawSamples = 2_000_000

// Options tune Sample.
type Options struct {
	// PID keeps only this process's samples (0: every process).
	PID int
	// Hz is the sampling frequency per CPU; default 99 (perf's default
	// rate is 4000; 99 keeps the cost negligible and avoids lockstep
	// with 100 Hz timers).
	Hz int
	// NoPerfMap does not ask JVMs to write their perf map.
	NoPerfMap bool
}

// Func is one function's share of a recording.
type Func struct {
	Name   string `json:"name"` // without the _[k] / _[j] suffix
	Module string `json:"module,omitempty"`
	Kind   string `json:"kind"` // user, kernel, java, unknown
	Self   int    `json:"self"`
	Total  int    `json:"total"`
	// Code is the start of the function's body (native functions among the
	// hottest only), for the catalogue's instruction checks.
	Code []byte `json:"-"`
	// Offsets counts the self samples by offset into the function (native
	// functions only): where in its body the time goes.
	Offsets map[uint64]int `json:"-"`
}

// Recording is what Sample returns.
type Recording struct {
	Duration time.Duration
	Hz       int
	PID      int
	Samples  int    // samples kept (of PID when given)
	Lost     uint64 // samples the kernel dropped (ring buffer full)
	Profile  *stacks.Profile
	Funcs    []Func // by self, then total, descending
	// JITFrames are frames in a JVM's code cache; JITResolved those the
	// perf map named. Their ratio is the share of JIT frames named.
	JITFrames, JITResolved int
	Notes                  []finding.Text
}

// JITShare is the share of JIT frames resolved to Java methods; -1 when
// there were none.
func (r *Recording) JITShare() float64 {
	if r.JITFrames == 0 {
		return -1
	}
	return float64(r.JITResolved) / float64(r.JITFrames)
}

// Sample records every CPU for d (or until ctx ends) and resolves the
// stacks. A host where perf_event_open is refused gives an *Unavailable
// saying the setting that would allow it.
func Sample(ctx context.Context, d time.Duration, o Options) (*Recording, error) {
	if o.Hz <= 0 {
		o.Hz = 99
	}
	t0 := time.Now()
	var raw []rawSample
	dropped := 0
	lost, err := sampleSystem(ctx, o.Hz, d, func(s rawSample) {
		if o.PID != 0 && int(s.pid) != o.PID {
			return
		}
		if len(raw) >= MaxRawSamples {
			dropped++
			return
		}
		raw = append(raw, s)
	})
	if err != nil {
		return nil, err
	}
	rec := &Recording{Duration: time.Since(t0), Hz: o.Hz, PID: o.PID, Lost: lost + uint64(dropped)}
	rec.resolve(ctx, raw, o)
	return rec, nil
}

// resolve names every frame and merges the stacks.
func (rec *Recording) resolve(ctx context.Context, raw []rawSample, o Options) {
	var ksyms symTable
	if f, err := os.Open("/proc/kallsyms"); err == nil {
		ksyms = parseKallsyms(f)
		f.Close()
	}
	if len(ksyms) == 0 {
		rec.Notes = append(rec.Notes, finding.T(
			"kernel frames unnamed: /proc/kallsyms shows no addresses to this user (run as root, or sysctl kernel.kptr_restrict=0)",
			"内核帧无法命名：/proc/kallsyms 对当前用户不显示地址（请以 root 运行，或 sysctl kernel.kptr_restrict=0）"))
	}
	procs := map[uint32]*process{}
	defer func() {
		for _, p := range procs {
			p.close()
		}
	}()
	proc := func(pid uint32) *process {
		p := procs[pid]
		if p == nil {
			p = loadProcess(int(pid))
			if p.isJava && !o.NoPerfMap {
				if err := writePerfMap(ctx, int(pid), p); err != nil {
					rec.Notes = append(rec.Notes, finding.T(
						fmt.Sprintf("pid %d: Java frames unnamed: %v (JDK 17+ writes its perf map on request; older JDKs need -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit or perf-map-agent)", pid, err),
						fmt.Sprintf("pid %d：Java 帧无法命名：%v（JDK 17+ 可按需写出 perf map；更早的 JDK 需 -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit 或 perf-map-agent）", pid, err)))
				}
			}
			procs[pid] = p
		}
		return p
	}
	type key struct{ name, module, kind string }
	funcs := map[key]*Func{}
	codeOf := map[key]func() []byte{}
	offsets := map[key]map[uint64]int{}
	acc := map[string]int64{}
	seen := map[key]bool{}
	for _, s := range raw {
		if s.pid == 0 && len(s.user) == 0 {
			// the idle task: not work
			if len(s.kernel) > 0 {
				if k, ok := ksyms.find(s.kernel[0]); ok && isIdle(k.Name) {
					continue
				}
			}
		}
		rec.Samples++
		p := proc(s.pid)
		comm := p.comm
		if comm == "" {
			comm = fmt.Sprintf("pid %d", s.pid)
		}
		st := []string{comm}
		var ks []key
		for i := len(s.user) - 1; i >= 0; i-- {
			f := p.resolve(s.user[i])
			k := key{f.name, f.module, "user"}
			name := f.name
			switch f.kind {
			case jitFrame:
				k.kind, name = "java", f.name+"_[j]"
				rec.JITFrames++
				rec.JITResolved++
			case unknownJIT:
				k.kind = "java"
				rec.JITFrames++
			case unknownFrame:
				k.kind = "unknown"
			}
			if f.code != nil {
				codeOf[k] = f.code
				if i == 0 && len(s.kernel) == 0 { // the leaf: where the CPU was
					if offsets[k] == nil {
						offsets[k] = map[uint64]int{}
					}
					offsets[k][f.off]++
				}
			}
			st = append(st, name)
			ks = append(ks, k)
		}
		for i := len(s.kernel) - 1; i >= 0; i-- {
			name := "[unknown]"
			if k, ok := ksyms.find(s.kernel[i]); ok {
				name = k.Name
			}
			st = append(st, name+"_[k]")
			ks = append(ks, key{name, "", "kernel"})
		}
		acc[strings.Join(st, "\x00")]++
		clear(seen)
		for i, k := range ks {
			f := funcs[k]
			if f == nil {
				f = &Func{Name: k.name, Module: k.module, Kind: k.kind}
				funcs[k] = f
			}
			if i == len(ks)-1 {
				f.Self++
			}
			if !seen[k] {
				seen[k] = true
				f.Total++
			}
		}
	}
	pr := &stacks.Profile{Kind: "native", Unit: "samples", Events: rec.Samples, Total: int64(rec.Samples)}
	for k, v := range acc {
		pr.Samples = append(pr.Samples, stacks.Sample{Stack: strings.Split(k, "\x00"), Value: v})
	}
	sort.Slice(pr.Samples, func(i, j int) bool {
		if pr.Samples[i].Value != pr.Samples[j].Value {
			return pr.Samples[i].Value > pr.Samples[j].Value
		}
		return strings.Join(pr.Samples[i].Stack, ";") < strings.Join(pr.Samples[j].Stack, ";")
	})
	rec.Profile = pr
	var keys []key
	for k := range funcs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := funcs[keys[i]], funcs[keys[j]]
		if a.Self != b.Self {
			return a.Self > b.Self
		}
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Name+a.Module < b.Name+b.Module
	})
	for i, k := range keys {
		f := funcs[k]
		if c := codeOf[k]; c != nil && i < 50 {
			f.Code, f.Offsets = c(), offsets[k]
		}
		rec.Funcs = append(rec.Funcs, *f)
	}
	if rec.JITFrames > 0 && rec.JITShare() < 0.9 {
		rec.Notes = append(rec.Notes, finding.T(
			fmt.Sprintf("%.0f%% of %d JIT frames named from the perf map (code compiled or moved after it was written stays unnamed)", 100*rec.JITShare(), rec.JITFrames),
			fmt.Sprintf("%d 个 JIT 帧中 %.0f%% 由 perf map 命名（写出 perf map 之后编译或移动的代码无法命名）", rec.JITFrames, 100*rec.JITShare())))
	}
}

// isIdle is the kernel's idle loop, where a CPU with nothing to run sits.
func isIdle(name string) bool {
	switch name {
	case "default_idle", "native_safe_halt", "pv_native_safe_halt", "cpu_idle_poll", "intel_idle", "acpi_idle_do_entry",
		"arch_cpu_idle", "cpuidle_enter_state", "mwait_idle", "do_idle", "psci_cpu_suspend_enter", "cpu_do_idle", "arch_cpu_idle_exit":
		return true
	}
	return false
}

// writePerfMap asks the JVM to write /tmp/perf-NSPID.map (JDK 17+) and reads it.
func writePerfMap(ctx context.Context, pid int, p *process) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	vm, err := attach.AttachContext(ctx, pid, attach.Options{})
	if err != nil {
		return err
	}
	if _, err := vm.Execute(ctx, "Compiler.perfmap"); err != nil {
		var ce *attach.CommandError
		if errors.As(err, &ce) {
			return fmt.Errorf("no Compiler.perfmap in this JVM (JDK 17+ has it)")
		}
		return err
	}
	err = p.loadPerfMap(vm.NSPID)
	// Ours: a perf map of a big JVM is tens of MB in its /tmp.
	_ = os.Remove(fmt.Sprintf("/proc/%d/root/tmp/perf-%d.map", pid, vm.NSPID))
	return err
}

// Unavailable is sampling refused by the host, with what would allow it.
type Unavailable struct {
	Err      error
	Paranoid string // /proc/sys/kernel/perf_event_paranoid
	Reason   string
}

// Reasons sampling is unavailable.
const (
	ReasonPermission = "permission"
	ReasonNoPerf     = "no-perf-events"
	ReasonOther      = "other"
)

func (u *Unavailable) Error() string { return u.Message(finding.EN) }

// Unwrap gives the system call's error.
func (u *Unavailable) Unwrap() error { return u.Err }

// Message says why and the setting that would allow it.
func (u *Unavailable) Message(l finding.Lang) string {
	var t finding.Text
	switch u.Reason {
	case ReasonPermission:
		t = finding.T(
			"perf_event_open refused (%v; kernel.perf_event_paranoid=%s): system-wide sampling needs root or CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8), or sysctl kernel.perf_event_paranoid=-1; in a container also a seccomp profile that allows perf_event_open (docker --cap-add PERFMON --security-opt seccomp=unconfined)",
			"perf_event_open 被拒绝（%v；kernel.perf_event_paranoid=%s）：全系统采样需要 root 或 CAP_PERFMON（Linux 5.8 之前为 CAP_SYS_ADMIN），或 sysctl kernel.perf_event_paranoid=-1；容器内还需允许 perf_event_open 的 seccomp 配置（docker --cap-add PERFMON --security-opt seccomp=unconfined）")
	case ReasonNoPerf:
		t = finding.T("perf_event_open is not available (%v; kernel.perf_event_paranoid=%s): a kernel built with CONFIG_PERF_EVENTS is needed",
			"perf_event_open 不可用（%v；kernel.perf_event_paranoid=%s）：需要启用 CONFIG_PERF_EVENTS 的内核")
	default:
		t = finding.T("perf_event_open failed (%v; kernel.perf_event_paranoid=%s)", "perf_event_open 失败（%v；kernel.perf_event_paranoid=%s）")
	}
	return fmt.Sprintf(t.In(l), u.Err, u.Paranoid)
}
