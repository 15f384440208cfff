package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// jdkRange is the JDK majors advice is meant for: min..max, max 0 = no end.
type jdkRange struct{ min, max int }

// empty: advice labelled for other JDKs than its source's (the JDK 8 form
// offered beside the 9+ one) is for none of them.
func (r jdkRange) empty() bool { return r.max != 0 && r.max < r.min }

func (r jdkRange) has(m int) bool { return m >= r.min && (r.max == 0 || m <= r.max) }

func (r jdkRange) and(o jdkRange) jdkRange {
	out := jdkRange{max(r.min, o.min), r.max}
	if out.max == 0 || (o.max != 0 && o.max < out.max) {
		out.max = o.max
	}
	return out
}

func (r jdkRange) String() string {
	switch {
	case r.max == 0:
		return "JDK " + strconv.Itoa(r.min) + "+"
	case r.min == r.max:
		return "JDK " + strconv.Itoa(r.min)
	}
	return "JDK " + strconv.Itoa(r.min) + "-" + strconv.Itoa(r.max)
}

// optAdvice is one JVM option a finding recommends, for the JDKs of its source.
type optAdvice struct {
	opt    string
	jdks   jdkRange
	source string // file and finding ID, for the failure message
}

var (
	// An option in a fix or a recommendation: -XX:, -Xlog, -Xm (heap
	// sizes) and -D system properties.
	reAdviceOpt = regexp.MustCompile(`(?:^|[\s(])(-(?:XX:|Xlog|Xm|D)[^\s)]+)`)
	// A label that says which JDK an option is for: "(JDK 8)", "(JDK 9+)".
	reJDKLabel = regexp.MustCompile(`\(JDK (\d+)(\+?)\)`)
	reMajor    = regexp.MustCompile(`^(?:1\.)?(\d+)`)
)

// adviceOf collects the options of f's Fix.Apply and Recommended text; an
// option followed in its clause by a JDK label is for that JDK only.
func adviceOf(f finding.Finding, src jdkRange, source string) []optAdvice {
	var out []optAdvice
	for _, text := range []string{f.Fix.Apply, f.Recommended.EN} {
		for _, m := range reAdviceOpt.FindAllStringSubmatchIndex(text, -1) {
			opt := strings.TrimRight(text[m[2]:m[3]], ".,;:")
			r := src
			clause := text[m[3]:]
			if i := strings.IndexAny(clause, ";\n"); i >= 0 {
				clause = clause[:i]
			}
			if i := strings.Index(clause, ". "); i >= 0 {
				clause = clause[:i]
			}
			if l := reJDKLabel.FindStringSubmatch(clause); l != nil {
				n, _ := strconv.Atoi(l[1])
				lr := jdkRange{n, n}
				if l[2] == "+" {
					lr.max = 0
				}
				r = r.and(lr)
			}
			if r.empty() {
				continue
			}
			out = append(out, optAdvice{opt: opt, jdks: r, source: source + " " + f.ID})
		}
	}
	return out
}

func majorOf(v string) int {
	if m := reMajor.FindStringSubmatch(v); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// gclogAdvice: every real GC log of gclog's testdata (HotSpot formats);
// a log is for the JDK its header names, else what its format and
// collector imply (JDK 8 format: 8; unified: 9+; CMS: up to 13).
func gclogAdvice(t *testing.T) []optAdvice {
	var files []string
	for _, d := range []string{"corpus", "live"} {
		fs, _ := filepath.Glob(filepath.Join("..", "jvm", "gclog", "testdata", d, "*"))
		files = append(files, fs...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d GC logs found", len(files))
	}
	var out []optAdvice
	for _, f := range files {
		r, err := gclog.Analyze(gclog.FileSources(f), gclog.DefaultThresholds())
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s := r.Summary
		jdks := jdkRange{9, 0}
		switch s.Format {
		case gclog.FormatJDK8:
			jdks = jdkRange{5, 8}
		case gclog.FormatUnified:
		default:
			t.Logf("%s: %s format, not HotSpot's: skipped", f, s.FormatName)
			continue
		}
		if s.Collector == gclog.CMS {
			jdks = jdks.and(jdkRange{1, 13})
		}
		if len(s.Files) > 0 {
			if m := majorOf(s.Files[0].JVMVersion); m > 0 {
				jdks = jdkRange{m, m}
			}
		}
		for _, x := range r.Findings {
			out = append(out, adviceOf(x, jdks, filepath.Base(f))...)
		}
	}
	return out
}

// troubledAdvice: the GC findings of a troubled log of each collector each
// JDK has (full GCs, long pauses, slow safepoints, humongous objects,
// stalls): the testdata's real logs do not reach every branch for every
// collector and JDK, and a branch may name another collector's options.
func troubledAdvice() []optAdvice {
	var out []optAdvice
	for _, jdk := range []struct {
		version    string
		format     gclog.Format
		collectors []gclog.Collector
	}{
		{"1.8.0_392", gclog.FormatJDK8, []gclog.Collector{gclog.Serial, gclog.Parallel, gclog.CMS, gclog.G1}},
		{"17.0.15", gclog.FormatUnified, []gclog.Collector{gclog.Serial, gclog.Parallel, gclog.G1, gclog.Shenandoah, gclog.ZGC}},
		{"25.0.3", gclog.FormatUnified, []gclog.Collector{gclog.Serial, gclog.Parallel, gclog.G1, gclog.Shenandoah, gclog.ZGCGenerational}},
	} {
		m := majorOf(jdk.version)
		for _, c := range jdk.collectors {
			s := gclog.Summary{Format: jdk.format, Collector: c, Files: []gclog.FileSummary{{Name: "gc.log", JVMVersion: jdk.version}},
				HasTime: true, DurationS: 3600, Pauses: 1000, PauseTotalMs: 400000, PauseAvgMs: 400, PauseP50Ms: 300, PauseP95Ms: 900,
				PauseP99Ms: 1500, PauseMaxMs: 3000, ThroughputPct: 88, WorstWindowPct: 30, Collections: 1000, Events: 1000, HeapMaxKB: 4 << 20,
				AllocRateMBs: 900, PromotionRateMBs: 50, FullGCs: 20, FullGCMs: 40000, FullGCsExplicit: 5, ExplicitGCs: 5, MetadataGCs: 3,
				HumongousGCs: 50, ToSpaceExhausted: 3, Degenerated: 2, DegeneratedMs: 400, Stalls: 10, StallTotalMs: 900, StallMaxMs: 200,
				Safepoints: 2000, SafepointTotalMs: 600000, SafepointMaxMs: 900, TTSPMaxMs: 800, TTSPTotalMs: 9000}
			for _, x := range gclog.Findings(s, gclog.DefaultThresholds(), "gc.log") {
				out = append(out, adviceOf(x, jdkRange{m, m}, "troubled "+c.String()+" JDK "+jdk.version)...)
			}
		}
	}
	return out
}

// threaddumpAdvice: every real dump (or series) of threaddump's testdata,
// for the JDK its header names (any JDK when it names none).
func threaddumpAdvice(t *testing.T) []optAdvice {
	dir := filepath.Join("..", "jvm", "threaddump", "testdata")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []optAdvice
	for _, e := range ents {
		if e.Name() == "java" || e.Name() == "README.md" {
			continue
		}
		paths := []string{filepath.Join(dir, e.Name())}
		if e.IsDir() {
			paths, _ = filepath.Glob(filepath.Join(dir, e.Name(), "*.txt"))
		}
		var ins []threaddump.Input
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ins = append(ins, threaddump.Input{Name: p, R: strings.NewReader(string(b))})
		}
		s := threaddump.ReadSet(ins)
		jdks := jdkRange{1, 0}
		if len(s.Dumps) > 0 {
			if m := s.Dumps[0].JDKMajor(); m > 0 {
				jdks = jdkRange{m, m}
			}
		}
		for _, x := range s.Findings {
			out = append(out, adviceOf(x, jdks, e.Name())...)
		}
	}
	return out
}

// The labels are read as meant: the GC-logging optAdvice offers the unified
// form for 9+ and the old flags for 8.
func TestAdviceOfReadsJDKLabels(t *testing.T) {
	f := finding.Finding{ID: "x", Recommended: finding.T("Log GC with: -Xlog:gc*,safepoint:file=gc.log (JDK 9+) or -Xloggc:gc.log -XX:+PrintGCDetails (JDK 8); or -XX:+DisableExplicitGC.", "")}
	got := map[string]jdkRange{}
	for _, a := range adviceOf(f, jdkRange{1, 0}, "t") {
		got[a.opt] = a.jdks
	}
	want := map[string]jdkRange{"-Xlog:gc*,safepoint:file=gc.log": {9, 0}, "-Xloggc:gc.log": {8, 8}, "-XX:+PrintGCDetails": {8, 8}, "-XX:+DisableExplicitGC": {1, 0}}
	for o, r := range want {
		if got[o] != r {
			t.Errorf("%s: %v, want %v (all: %v)", o, got[o], r, got)
		}
	}
}

// TestGCAndDumpAdviceStartRealJDKs starts each JDK installed here with every
// JVM option the GC log and thread dump analyses recommend for a log or dump
// of that JDK (their real testdata): an option the JVM refuses, or accepts
// with a warning, fails; a flag named without a value must exist in it.
func TestGCAndDumpAdviceStartRealJDKs(t *testing.T) {
	all := append(append(gclogAdvice(t), troubledAdvice()...), threaddumpAdvice(t)...)
	opts := map[string]bool{}
	for _, a := range all {
		opts[a.opt] = true
	}
	for _, want := range []string{"-XX:+ExplicitGCInvokesConcurrent", "-XX:G1HeapRegionSize=16m", "-Djava.security.egd=file:/dev/./urandom", "-Dlog4j2.asyncQueueFullPolicy=Discard"} {
		if !opts[want] {
			t.Errorf("no finding recommends %s any more: the testdata no longer reach that optAdvice", want)
		}
	}
	// What no JDK here can start is checked by what is known of it: JDK 8
	// refuses -Xlog, JDK 14 and later refuse CMS.
	for _, a := range all {
		if a.jdks.max != 0 && a.jdks.max <= 8 && strings.HasPrefix(a.opt, "-Xlog:") {
			t.Errorf("%s recommends %s for %v", a.source, a.opt, a.jdks)
		}
		if a.jdks.min >= 14 && strings.Contains(a.opt, "CMS") {
			t.Errorf("%s recommends %s for %v", a.source, a.opt, a.jdks)
		}
	}
	jdks := []string{"java", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"}
	tested := 0
	for _, java := range jdks {
		bin, err := exec.LookPath(java)
		if err != nil {
			t.Logf("%s not installed: its optAdvice is not started", java)
			continue
		}
		out, err := exec.Command(bin, "-XX:+PrintFlagsFinal", "-XshowSettings:properties", "-version").CombinedOutput()
		if err != nil {
			t.Fatalf("%s -version: %v\n%s", bin, err, out)
		}
		ver := regexp.MustCompile(`java\.version = (\S+)`).FindSubmatch(out)
		if ver == nil {
			t.Fatalf("%s: no java.version in\n%s", bin, out)
		}
		major := majorOf(string(ver[1]))
		flags := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^\s*\S+\s+(\w+)\s+=`).FindAllSubmatch(out, -1) {
			flags[string(m[1])] = true
		}
		t.Run("JDK "+string(ver[1]), func(t *testing.T) {
			byOpt := map[string][]string{}
			for _, a := range all {
				if a.jdks.has(major) {
					byOpt[a.opt] = append(byOpt[a.opt], a.source)
				}
			}
			var list []string
			for o := range byOpt {
				list = append(list, o)
			}
			sort.Strings(list)
			dir := t.TempDir()
			for _, o := range list {
				where := strings.Join(byOpt[o][:min(3, len(byOpt[o]))], ", ")
				if name, ok := strings.CutPrefix(o, "-XX:"); ok && !strings.ContainsAny(name[:1], "+-") && !strings.Contains(name, "=") {
					// A flag named in prose ("raise -XX:G1ReservePercent"):
					// it must be one this JDK has.
					if !flags[name] {
						t.Errorf("JDK %d has no flag %s, recommended for it by %s", major, o, where)
					}
					continue
				}
				args := []string{o}
				switch {
				case o == "-Xmx" || o == "-Xmn" || o == "-Xms":
					continue // the standard heap options, named without a size
				case strings.HasPrefix(o, "-Xmn"):
					args = []string{"-Xmx64m", "-Xmn16m"} // sizes are the host's business
				case strings.HasPrefix(o, "-Xmx"), strings.HasPrefix(o, "-Xms"):
					args = []string{o[:4] + "64m"}
				}
				cmd := exec.Command(bin, append(args, "-version")...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				tested++
				if err != nil {
					t.Errorf("JDK %d refuses %q, recommended for it by %s: %v\n%s", major, o, where, err, out)
					continue
				}
				if bad := regexp.MustCompile(`(?i)Unrecognized|Ignoring option|deprecated|obsolete|Invalid`).Find(out); bad != nil {
					t.Errorf("JDK %d warns about %q (%s), recommended for it by %s:\n%s", major, o, bad, where, out)
				}
			}
			t.Logf("JDK %d: %d options recommended for it checked", major, len(list))
		})
	}
	if tested == 0 {
		t.Log("no JDK installed here started: nothing checked")
	}
}
