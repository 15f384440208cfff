package sysinfo

import (
	"errors"
	"reflect"
	"runtime/debug"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// Options tune a collection.
type Options struct {
	// Now stamps Facts.CollectedAt; time.Now when nil (tests pin it).
	Now func() time.Time
	// NoEthtool skips the ethtool ioctl even on a live host.
	NoEthtool bool
	// OnPanic, when set, hears about a collector that panicked (a bug; the
	// area's facts are left unavailable). Tests use it to fail loudly.
	OnPanic func(area string, v any, stack []byte)
}

// Collect reads every fact it can from h. It never fails and never panics:
// what cannot be read is an unavailable Field carrying the reason. A bug in
// one area only loses that area (recovered, see area).
func Collect(h hostfs.FS, opts Options) *Facts {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	// area runs one collector; a panic in it is a bug, which must cost that
	// area's facts (left zero, i.e. unavailable) and not the whole report.
	var failed []string
	area := func(name string, fn func()) {
		defer func() {
			if r := recover(); r != nil {
				failed = append(failed, name)
				if opts.OnPanic != nil {
					opts.OnPanic(name, r, debug.Stack())
				}
			}
		}()
		fn()
	}
	f := &Facts{SchemaVersion: SchemaVersion, CollectedAt: now().UTC(), Live: h.IsLive()}

	// The process scan feeds irqbalance/tuned/auditd/daemons and the JVM list.
	var procs procScan
	area("processes", func() { procs = scanProcs(h) })

	area("hostname", func() { f.Hostname = readField(h, h.ProcPath("sys/kernel/hostname"), parseText) })
	area("machine id", func() { f.MachineID = readField(h, h.EtcPath("machine-id"), machineID) })
	area("kernel", func() { f.Kernel = collectKernel(h) })
	area("os", func() { f.OS = collectOS(h) })
	var ci cpuInfo
	area("cpu", func() { f.CPU, ci = collectCPU(h) })
	if f.Kernel.Arch.Err != "" && ci.arch != "" {
		f.Kernel.Arch = Got(ci.arch, "derived: /proc/cpuinfo")
	}
	area("topology", func() { collectTopology(h, &f.CPU) })
	area("cpufreq", func() { f.CPU.Cpufreq = collectCpufreq(h) })
	area("cpuidle", func() { f.CPU.Cpuidle = collectCpuidle(h) })
	area("vulnerabilities", func() { f.CPU.Vulnerabilities = collectVulnerabilities(h) })
	area("hypervisor", func() { f.CPU.Hypervisor = collectHypervisor(h, ci, f.Kernel.Cmdline) })
	area("steal", func() { f.CPU.StealPct = collectSteal(h) })
	area("numa", func() { f.NUMA = collectNUMA(h) })
	area("memory", func() { f.Memory = collectMemory(h) })
	area("sysctl", func() { f.Sysctl = collectSysctl(h) })
	area("cgroup", func() { f.Cgroup = collectCgroup(h) })
	area("nics", func() { f.NICs = collectNICs(h, !opts.NoEthtool && h.IsLive()) })
	area("softnet", func() { f.Softnet = collectSoftnet(h) })
	area("disks", func() { f.Disks = collectDisks(h) })
	area("daemons", func() {
		f.Daemons = procs.daemons()
		f.IRQBalance = procs.running("irqbalance")
		f.Tuned = Tuned{ActiveProfile: readField(h, h.EtcPath("tuned/active_profile"), parseText), Running: procs.running("tuned")}
	})
	area("security", func() { f.Security = collectSecurity(h, f.Kernel, procs) })
	area("clocksource", func() { f.Clocksource = collectClocksource(h) })
	area("jvms", func() { f.JVMs = collectJVMs(h, procs) })
	if len(failed) > 0 {
		explainUnset(reflect.ValueOf(f).Elem(), "not collected: internal error in the "+strings.Join(failed, ", ")+" collector")
	}
	return f
}

// explainUnset gives every Field left zero (by a collector that panicked)
// a reason, so no fact is unavailable without saying why.
func explainUnset(v reflect.Value, reason string) {
	switch v.Kind() {
	case reflect.Struct:
		if ok := v.FieldByName("OK"); ok.IsValid() && ok.Kind() == reflect.Bool && v.FieldByName("Err").IsValid() {
			if e := v.FieldByName("Err"); !ok.Bool() && e.String() == "" && e.CanSet() {
				e.SetString(reason)
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				explainUnset(v.Field(i), reason)
			}
		}
	case reflect.Map:
		if v.IsNil() || v.Type().Elem().Kind() != reflect.Struct {
			return
		}
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			explainUnset(e, reason)
			v.SetMapIndex(k, e)
		}
	}
}

// readField reads one file (trimmed) and parses it into a Field sourced at
// the file's host path.
func readField[T any](h hostfs.FS, p string, parse func(string) (T, error)) Field[T] {
	s, err := h.ReadString(p)
	if err != nil {
		return Missing[T](err)
	}
	v, err := parse(s)
	if err != nil {
		return Missing[T](fileErr(h, p, err))
	}
	return Got(v, h.Display(p))
}

// fileErr names the host file in a parse error.
func fileErr(h hostfs.FS, p string, err error) error {
	return finding.Errorf(finding.T("%s: %v", "%s: %v"), h.Display(p), err)
}

// parseDetail is a sample parser's error as host facts cite it: "line N:
// ..." without sample's "malformed: ", in both languages.
func parseDetail(err error) error {
	var pe *sample.ParseError
	if errors.As(err, &pe) {
		return &finding.Error{Msg: pe.Detail(), Err: err}
	}
	return err
}

// lineErr is a parse error at a 1-based line of a line-format file, said
// in both languages (t's verbs take args).
func lineErr(line int, t finding.Text, args ...any) error {
	return finding.Errorf(finding.Tf(finding.T("line %d: %s", "第 %d 行：%s"), line, t), args...)
}

var errEmpty = finding.Errorf(finding.T("empty", "为空"))

// parseText accepts a one-line human-readable value (release, hostname,
// governor, profile name). Binary or multi-line content is garbage.
//
//	6.18.44-fc-v595
//	throughput-performance
func parseText(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errEmpty
	}
	if strings.ContainsAny(s, "\n\r") {
		return "", finding.Errorf(finding.T("expected one line, got %q", "应为一行，实际为 %q"), finding.Clip(s, 40))
	}
	if err := checkText(s); err != nil {
		return "", err
	}
	return s, nil
}

// checkText rejects invalid UTF-8 and control characters (other than tab
// and newline): the mark of a binary or corrupt file.
func checkText(s string) error {
	for i, r := range s {
		if r == utf8.RuneError || (r != '\t' && r != '\n' && unicode.IsControl(r)) {
			if r == utf8.RuneError && strings.HasPrefix(s[i:], "\uFFFD") {
				continue // a real U+FFFD, not a decoding error
			}
			return finding.Errorf(finding.T("binary or corrupt content (byte %d)", "二进制或损坏的内容（第 %d 字节）"), i)
		}
	}
	return nil
}
