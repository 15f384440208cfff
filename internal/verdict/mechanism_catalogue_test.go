package verdict

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// branchFamilies are the catalogue families that can explain a verdict's
// branch (nil: any).
func branchFamilies(b Branch) []mechanism.Family {
	switch b {
	case GCCritical, GC:
		return []mechanism.Family{mechanism.GC}
	}
	return nil
}

// checkNamed asserts the first named mechanism is one of want and that the
// code line it names is the application's.
func checkNamed(t *testing.T, name string, ns []mechanism.Named, want []string, code string) {
	t.Helper()
	if len(ns) == 0 {
		t.Fatalf("%s: nothing named, want %v", name, want)
	}
	n := ns[0]
	for i, x := range ns {
		if i < 4 {
			t.Logf("%s: %s score %.2f: %s", name, x.Entry.ID, x.Score, x.Finding.Observed.EN)
		}
	}
	if !slices.Contains(want, n.Entry.ID) {
		t.Fatalf("%s: named %s (%s), want one of %v", name, n.Entry.ID, n.Finding.Observed.EN, want)
	}
	var mech, line string
	for _, ev := range n.Finding.Evidence {
		switch ev.Key {
		case "mechanism":
			mech = ev.Value
		case "code":
			line = ev.Value
		}
	}
	if mech != n.Entry.ID {
		t.Errorf("%s: evidence mechanism %q, want %q", name, mech, n.Entry.ID)
	}
	if n.Finding.Recommended.EN == "" || n.Finding.Recommended.ZH == "" || len(n.Finding.References) == 0 {
		t.Errorf("%s: %s has no bilingual fix or no reference", name, n.Entry.ID)
	}
	if code == "" {
		return
	}
	if !n.Match.HasCode || line != n.Match.Code.String() {
		t.Fatalf("%s: code evidence %q, match %v", name, line, n.Match.Code)
	}
	if mechanism.IsLibrary(n.Match.Code.Method) {
		t.Errorf("%s: the named code %s is a library frame", name, line)
	}
	if !strings.HasPrefix(n.Match.Code.Method, code) || n.Match.Code.Line <= 0 {
		t.Errorf("%s: code %s, want %s:<line>", name, line, code)
	}
}

// On the recorded runs the catalogue names what an expert reading the
// dumps and the GC log would: the mechanism, and the application's line.
func TestCatalogueNamesTheRecordedRuns(t *testing.T) {
	cases := []struct {
		run  string
		want []string
		code string // the application method the named line is in ("": a facts-only entry)
	}{
		{"single-thread", []string{"mech.pool.executor-saturated"}, "com.example.zoo.OrderSequencer.handle"},
		{"future-serial", []string{"mech.pool.executor-saturated"}, "com.example.zoo.QuoteService.handle"},
		{"remote-call", []string{"mech.wait.downstream"}, "com.example.zoo.StockClient.remoteStock"},
		{"dispatcher-cpu-others", []string{"mech.eventloop.blocking-call"}, "org.tally.credit.BureauClient.score"},
		{"deadlock", []string{"mech.lock.deadlock"}, "com.example.zoo.AccountService.transfer"},
		// The verdict's branch is GC: the catalogue's GC family explains it.
		{"gc-pressure", []string{"mech.gc.heap-too-small", "mech.gc.allocation-rate"}, ""},
		// The zoo's cpu-hot runs String.format and Pattern.compile per request.
		{"cpu-hot", []string{"mech.cpu.string-format", "mech.cpu.regex-compile"}, "com.example.zoo.PriceCalculator.computeChecksum"},
		{"sync-logging", []string{"mech.logging.logback-sync"}, "com.example.zoo.OrderAuditLogback.placeOrder"},
		{"sync-logging-jfr", []string{"mech.logging.logback-sync"}, "com.example.zoo.OrderAuditLogback.placeOrder"},
		{"pool-starvation", []string{"mech.pool.jdbc-exhausted"}, "com.example.zoo.InventoryRepository.handle"},
		{"fsync-io", []string{"mech.lock.io-under-lock"}, "com.example.zoo.Journal.append"},
		// No thread shows the 40 ms: the verdict's delayed-ACK finding does.
		{"delayed-ack", []string{"mech.net.delayed-ack"}, ""},
	}
	for _, c := range cases {
		t.Run(c.run, func(t *testing.T) {
			L, err := Load(filepath.Join("testdata", "runs", c.run))
			if err != nil {
				t.Fatal(err)
			}
			d := Decide(L)
			e := Evidence(L)
			ns := mechanism.Name(e, branchFamilies(d.Branch)...)
			checkNamed(t, c.run+" ("+string(d.Branch)+")", ns, c.want, c.code)
			if c.code != "" && ns[0].Match.Share < 0.3 {
				t.Errorf("%s: share %.2f of the request time, want most of it", c.run, ns[0].Match.Share)
			}
		})
	}
}

// healthy: nothing the catalogue names rises above a warning.
func TestCatalogueQuietOnHealthyRun(t *testing.T) {
	L, err := Load(filepath.Join("testdata", "runs", "healthy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range mechanism.Name(Evidence(L)) {
		if n.Finding.Severity > finding.Warning {
			t.Errorf("healthy: %s %s: %s", n.Entry.ID, n.Finding.Severity, n.Finding.Observed.EN)
		}
	}
}

// dumpEvidence reads thread dumps (a file, or every dump*.txt of a folder)
// into the catalogue's evidence through the verdict's own slice adapter.
func dumpEvidence(t *testing.T, path string) *mechanism.Evidence {
	t.Helper()
	files := []string{path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "dump*.txt"))
	}
	e := &mechanism.Evidence{Events: map[string]int{}, Frameworks: map[string]bool{}}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := threaddump.ParseText(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, d := range ds {
			rep := threaddump.Analyze(d)
			e.Slices = append(e.Slices, dumpSlices(d, rep)...)
			e.Dumps++
			if len(rep.Deadlocks) > 0 {
				e.Deadlock = true
			}
		}
	}
	if e.Dumps == 0 {
		t.Fatalf("%s: no dumps", path)
	}
	frameworks(e)
	return e
}

// On real dumps of real libraries (zoo/fingerprints.sh, java/WaitKinds.java;
// see the testdata README) each names its library's mechanism and the
// application line that called into it.
func TestCatalogueNamesLibraryDumps(t *testing.T) {
	const zoo = "com.example.zoo."
	cases := []struct {
		file string
		want string
		code string
	}{
		{"lib_hikari_jcmd.txt", "mech.pool.jdbc-exhausted", zoo + "Fingerprints.lambda$pool$"},
		{"lib_dbcp_jcmd.txt", "mech.pool.jdbc-exhausted", zoo + "Fingerprints.lambda$pool$"},
		{"lib_c3p0_jcmd.txt", "mech.pool.jdbc-exhausted", zoo + "Fingerprints.lambda$pool$"},
		{"lib_druid_jcmd.txt", "mech.pool.jdbc-exhausted", zoo + "Fingerprints.lambda$pool$"},
		{"lib_log4j2-async_jcmd.txt", "mech.logging.async-queue-full", zoo + "Fingerprints.lambda$log4j2$"},
		{"lib_log4j2-asyncroot_jcmd.txt", "mech.logging.async-queue-full", zoo + "Fingerprints.lambda$log4j2$"},
		{"lib_logback-async_jcmd.txt", "mech.logging.async-queue-full", zoo + "Fingerprints.lambda$logback$"},
		{"lib_logback-sift_jcmd.txt", "mech.logging.logback-sync", zoo + "Fingerprints.lambda$logback$"},
		{"lib_securerandom_jcmd.txt", "mech.lock.securerandom", zoo + "Fingerprints.lambda$secureRandom$"},
		{"lib_classloading_jcmd.txt", "mech.jvm.class-loading", zoo + "Fingerprints.lambda$classLoading$"},
		{"lib_classloading-direct_jcmd.txt", "mech.jvm.class-loading", zoo + "Fingerprints.lambda$classLoading$"},
		{"deadlock_jcmd.txt", "mech.lock.deadlock", "Deadlock."},
		{"iounderlock_jcmd.txt", "mech.lock.io-under-lock", "IOUnderLock$"},
		{"wait_downstream_jcmd.txt", "mech.wait.downstream", "WaitKinds$"},
		{"wait_executor_jcmd.txt", "mech.pool.executor-saturated", "WaitKinds$"},
		{"wait_handoff_jcmd.txt", "mech.wait.queue-handoff", "WaitKinds$"},
		{"wait_permits_jcmd.txt", "mech.wait.semaphore", "WaitKinds$"},
		{"wait_queue_jcmd.txt", "mech.wait.queue-handoff", "WaitKinds$"},
	}
	td := filepath.Join("..", "jvm", "threaddump", "testdata")
	for _, jdk := range []string{"jdk17_", "jdk25_"} {
		for _, c := range cases {
			f := jdk + c.file
			if strings.HasPrefix(c.file, "wait_") && jdk == "jdk17_" {
				// JDK 17's wait kinds are three dumps in a folder.
				f = jdk + strings.TrimSuffix(c.file, "_jcmd.txt") + "_series"
			}
			t.Run(f, func(t *testing.T) {
				e := dumpEvidence(t, filepath.Join(td, f))
				checkNamed(t, f, mechanism.Name(e), []string{c.want}, c.code)
			})
		}
	}
	zooDumps := []struct{ file, want, code string }{
		{"jdk17_zoo_permit-starvation_jcmd.txt", "mech.wait.semaphore", zoo + "RateGate.call"},
		{"jdk17_zoo_queue-handoff_jcmd.txt", "mech.wait.queue-handoff", zoo + "Settlement.handle"},
		{"jdk17_zoo_future-serial_jcmd.txt", "mech.pool.executor-saturated", zoo + "QuoteService.handle"},
		{"jdk17_zoo_remote-call_jcmd.txt", "mech.wait.downstream", zoo + "StockClient.remoteStock"},
		{"jdk17_zoo_fsync_jcmd.txt", "mech.lock.io-under-lock", zoo + "Journal.append"},
		{"jdk17_zoo_startup-deadlock_jcmd.txt", "mech.lock.deadlock", zoo + "StartupRegistry."},
		{"jdk17_tomcat_cpuhot_taskqueue_jcmd.txt", "mech.cpu.string-format", zoo + "PriceCalculator.computeChecksum"},
		{"jdk17_deadlock_jstack.txt", "mech.lock.deadlock", "Deadlock."},
		{"jdk17_threadinfo_tostring.txt", "mech.lock.deadlock", "ThreadInfoDump."},
		{"openj9_docs_deadlock_javacore.txt", "mech.lock.deadlock", "WorkerThread.run"},
		// A public Heritrix dump (irockel/tda): crawler threads queue on the
		// FrontierScheduler monitor while its holder reads Berkeley DB's log file.
		{"tda_urlthread.log", "mech.lock.io-under-lock", "org.archive.crawler.postprocessor.FrontierScheduler.innerProcess"},
		// The logging look-alikes live in the libraries' own packages: no application frame.
		{"jdk17_log4j1like_jcmd.txt", "mech.logging.log4j1-sync", ""},
		{"jdk25_log4j1like_jcmd.txt", "mech.logging.log4j1-sync", ""},
		{"jdk17_log4j2like_jcmd.txt", "mech.logging.log4j2-sync", ""},
		{"jdk25_log4j2like_jcmd.txt", "mech.logging.log4j2-sync", ""},
		{"jdk17_logbacklike_jcmd.txt", "mech.logging.logback-sync", ""},
		{"jdk17_zoo_logback_between_owners.txt", "mech.logging.logback-sync", zoo + "OrderAuditLogback.placeOrder"},
		{"jdk25_virtual_threaddump_plain.txt", "mech.cpu.app-method", "VirtualBusy.spin"},
		// java/CpuKinds.java: one JVM per mechanism plain JDK code reproduces.
		{"jdk17_cpu_format_jcmd.txt", "mech.cpu.string-format", "CpuKinds.request"},
		{"jdk17_cpu_regex_jcmd.txt", "mech.cpu.regex-backtracking", "CpuKinds.request"},
		{"jdk17_cpu_compile_jcmd.txt", "mech.cpu.regex-compile", "CpuKinds.request"},
		{"jdk17_cpu_hashing_jcmd.txt", "mech.cpu.hashing", "CpuKinds.request"},
		{"jdk17_cpu_crypto_jcmd.txt", "mech.cpu.crypto", "CpuKinds.request"},
		{"jdk17_cpu_compression_jcmd.txt", "mech.cpu.compression", "CpuKinds.request"},
		{"jdk17_cpu_serialization_jcmd.txt", "mech.cpu.java-serialization", "CpuKinds.request"},
		{"jdk17_cpu_exceptions_jcmd.txt", "mech.cpu.exceptions", "CpuKinds.deep"},
		{"jdk17_cpu_reflection_jcmd.txt", "mech.cpu.reflection", "CpuKinds.request"},
		{"jdk17_cpu_xml_jcmd.txt", "mech.cpu.xml", "CpuKinds.request"},
		{"jdk17_cpu_random_jcmd.txt", "mech.lock.shared-random", "CpuKinds.request"},
		{"jdk17_cpu_synccoll_jcmd.txt", "mech.lock.sync-collection", "CpuKinds.request"},
		{"jdk17_cpu_jul_jcmd.txt", "mech.logging.jul-handler", "CpuKinds.request"},
		{"jdk17_cpu_fsync_jcmd.txt", "mech.io.fsync", "CpuKinds.request"},
		// java/LibKinds.java: the same with the real libraries' jars.
		{"jdk17_libk_httpclient4_jcmd.txt", "mech.pool.http-client-exhausted", "LibKinds.request"},
		{"jdk17_libk_httpclient5_jcmd.txt", "mech.pool.http-client-exhausted", "LibKinds.request"},
		{"jdk17_libk_jackson_jcmd.txt", "mech.cpu.json", "LibKinds.request"},
		{"jdk17_libk_reactor_jcmd.txt", "mech.reactive.block", "LibKinds.request"},
		{"jdk17_libk_callerdata_jcmd.txt", "mech.logging.caller-data", "LibKinds.request"},
		{"jdk17_cpu_console_jcmd.txt", "mech.logging.console", "CpuKinds.request"},
		// Names resolved from a 20,000-line hosts file without a cache: a slow name service, no network.
		{"jdk17_cpu_dns_jcmd.txt", "mech.net.dns", "CpuKinds.request"},
	}
	for _, c := range zooDumps {
		t.Run(c.file, func(t *testing.T) {
			checkNamed(t, c.file, mechanism.Name(dumpEvidence(t, filepath.Join(td, c.file))), []string{c.want}, c.code)
		})
	}
}

// Idle services: nothing to name.
func TestCatalogueQuietOnIdleDumps(t *testing.T) {
	td := filepath.Join("..", "jvm", "threaddump", "testdata")
	for _, f := range []string{"jdk17_idle_tomcat_jcmd.txt", "jdk17_idle_tomcat-afterload_jcmd.txt", "jdk17_idle_timers_jcmd.txt",
		"jdk17_idle_forkjoin_jcmd.txt", "jdk17_wait_idle_series", "jdk25_wait_idle_jcmd.txt"} {
		for _, n := range mechanism.Name(dumpEvidence(t, filepath.Join(td, f))) {
			t.Errorf("%s: named %s: %s", f, n.Entry.ID, n.Finding.Observed.EN)
		}
	}
}

// On public GC logs (GCViewer's test resources, the gclog package's
// testdata) and this machine's own, the GC family names what the log
// shows; logs without trouble name nothing.
func TestCatalogueNamesGCLogs(t *testing.T) {
	td := filepath.Join("..", "jvm", "gclog", "testdata")
	cases := []struct{ file, want string }{
		// 149 CMS concurrent mode failures, half the heap live after them.
		{"corpus/openjdk_SampleSun1_5_0ConcurrentModeFailure.txt", "mech.gc.heap-too-small"},
		{"corpus/openjdk_SampleSun1_5_0PromotionFailure.txt", "mech.gc.premature-promotion"},
		// Two System.gc() pairs (young, then full) on Parallel.
		{"corpus/openjdk_SampleSun1_8_0ParallelPrintGCID.txt", "mech.gc.explicit"},
		// JDK 6 G1: ~450 MB/s and half the time in pauses, to-space overflows.
		{"corpus/openjdk_SampleSun1_6_0G1_gc_verbose.txt", "mech.gc.allocation-rate"},
		{"live/jdk17-g1-12s.log", "mech.gc.humongous"},
		{"corpus/openjdk_SampleSun1_8_0Series-Part1.txt", ""},
		{"corpus/openjdk_SampleSun1_8_0G1SystemGcYoung.txt", ""}, // a single System.gc
		{"live/jdk17-zgc.log", ""},
	}
	for _, c := range cases {
		path := filepath.Join(td, c.file)
		r, err := gclog.AnalyzeEachContext(context.Background(), []gclog.Source{{Name: c.file,
			Open: func() (io.ReadCloser, error) { return os.Open(path) }}}, gclog.DefaultThresholds(), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		e := &mechanism.Evidence{Events: map[string]int{}, Frameworks: map[string]bool{}}
		gcFacts(&Layers{GC: r}, e)
		ns := mechanism.Name(e, mechanism.GC, mechanism.JVM)
		if c.want == "" {
			for _, n := range ns {
				t.Errorf("%s: named %s", c.file, n.Entry.ID)
			}
			continue
		}
		checkNamed(t, c.file, ns, []string{c.want}, "")
	}
}

// The facts the verdict adds for the catalogue, read from the recorded runs:
// the GC log's allocation rate and live data after full GCs, the delayed-ACK
// finding, and others' CPU (remote-call and future-serial were recorded while
// other jobs kept the CPUs busy: the JVM used ~5% of a core of a saturated host).
func TestEvidenceCarriesTheCatalogueFacts(t *testing.T) {
	facts := func(run string) map[string]float64 {
		L, err := Load(filepath.Join("testdata", "runs", run))
		if err != nil {
			t.Fatal(err)
		}
		return Evidence(L).Facts()
	}
	gc := facts("gc-pressure")
	// 64 MiB heap, ~34 MiB live after each of 57 full GCs, ~1 MiB of garbage per request.
	if v := gc["gc.live-after-full-pct"]; v < 40 || v > 100 {
		t.Errorf("gc-pressure: live after full %.0f%%, want about half the heap or more", v)
	}
	if v := gc["gc.alloc-mbs"]; v < 100 {
		t.Errorf("gc-pressure: allocation %.0f MB/s, want hundreds", v)
	}
	if v := gc["gc.heap-max-mb"]; v < 32 || v > 128 {
		t.Errorf("gc-pressure: heap %.0f MB, want the run's -Xmx64m", v)
	}
	if facts("delayed-ack")["finding.run.net.delayed-ack"] != 1 {
		t.Error("delayed-ack: the verdict's delayed-ACK finding is not a fact")
	}
	for run, want := range map[string]float64{"remote-call": 1, "future-serial": 1, "cpu-hot": 0, "sync-logging": 0, "healthy": 0} {
		if got := facts(run)["finding.run.cpu.others"]; got != want {
			t.Errorf("%s: others' CPU fact %v, want %v", run, got, want)
		}
	}
}
