package threaddump

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Dumps of the real libraries (zoo/fingerprints.sh runs com.example.zoo.Fingerprints with
// JDK 17 and JDK 25; testdata/README.md): each fingerprint of culprits.go must recognise what
// the library really prints, not only the stacks written by hand in synthCases.
func TestFingerprintsRealLibraries(t *testing.T) {
	tests := []struct {
		name    string // testdata/jdk{17,25}_lib_<name>_jcmd.txt
		culprit string
		waiters int    // at least (24 workers; 2 more hold the pool's connections)
		frame   string // where the waiters are reported waiting ("a|b": either)
		// Lock cases: the lock's class ("a|b": either), the holder's name prefix and top
		// frame (empty: not checked, e.g. it moves between dumps).
		lock, holder, holderTop string
		// Holder frames confirm the diagnosis (the fingerprint has HolderFrames).
		confirmed bool
	}{
		{name: "druid", culprit: "threaddump.jdbc-pool.druid", waiters: 20, frame: "com.alibaba.druid.pool.DruidDataSource.pollLast"},
		{name: "dbcp", culprit: "threaddump.jdbc-pool.dbcp", waiters: 20, frame: "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject"},
		{name: "c3p0", culprit: "threaddump.jdbc-pool.c3p0", waiters: 20, frame: "com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable"},
		{name: "hikari", culprit: "threaddump.jdbc-pool.hikaricp", waiters: 20, frame: "com.zaxxer.hikari.util.ConcurrentBag.borrow"},
		{name: "log4j2-async", culprit: "threaddump.queue.log4j2-async-full", waiters: 20,
			frame: "org.apache.logging.log4j.core.async.AsyncLoggerDisruptor.enqueueLogMessageWhenQueueFull"},
		// <AsyncRoot>: AsyncLoggerConfigDisruptor, once reported as a plain application lock.
		{name: "log4j2-asyncroot", culprit: "threaddump.queue.log4j2-async-full", waiters: 20,
			frame: "org.apache.logging.log4j.core.async.AsyncLoggerConfigDisruptor.enqueue"},
		{name: "logback-async", culprit: "threaddump.queue.logback-async-full", waiters: 20,
			frame: "ch.qos.logback.core.AsyncAppenderBase.putUninterruptibly"},
		{name: "logback-sift", culprit: "threaddump.lock.logback-appender", waiters: 20,
			frame: "ch.qos.logback.core.AppenderBase.doAppend", lock: "ch.qos.logback.classic.sift.SiftingAppender",
			holder: "http-nio-8080-exec-", holderTop: "java.io.FileOutputStream.writeBytes", confirmed: true},
		// NativePRNG has two queues, taken one after the other: the SHA1PRNG mixer's synchronized
		// engineNextBytes and RandomIO's LOCK_GET_BYTES (a plain Object); a dump shows either.
		{name: "securerandom", culprit: "threaddump.securerandom", waiters: 20,
			frame: "sun.security.provider.SecureRandom.engineNextBytes|sun.security.provider.NativePRNG$RandomIO.implNextBytes",
			lock:  "sun.security.provider.SecureRandom|java.lang.Object", holder: "http-nio-8080-exec-"},
		// Class.forName on a loader that is not parallel capable: HotSpot takes the loader's
		// lock in native code and the waiters show no "waiting to lock" line; the loader and
		// its holder are found from the holder's "- locked" in ClassLoader.loadClass.
		{name: "classloading", culprit: "threaddump.classloading", waiters: 20, frame: "java.lang.Class.forName0",
			lock: "com.example.zoo.Fingerprints$PluginLoader", holder: "plugin-loader-"},
		{name: "classloading-direct", culprit: "threaddump.classloading", waiters: 20,
			frame: "java.lang.ClassLoader.loadClass", lock: "com.example.zoo.Fingerprints$PluginLoader", holder: "plugin-loader-"},
	}
	for _, tc := range tests {
		for _, jdk := range []string{"17", "25"} {
			file := "jdk" + jdk + "_lib_" + tc.name + "_jcmd.txt"
			t.Run(file, func(t *testing.T) {
				ds := parseFixture(t, file)
				if len(ds) != 1 {
					t.Fatalf("%d dumps, want 1", len(ds))
				}
				r := Analyze(ds[0])
				c := findCulprit(r, tc.culprit)
				if c == nil {
					t.Fatalf("no %s; culprits %v", tc.culprit, culpritIDs(r))
				}
				// What the user reads first, and nothing left over as an unexplained lock.
				if r.Culprits[0] != c {
					t.Errorf("top culprit %s, want %s", r.Culprits[0].ID, tc.culprit)
				}
				if other := findCulprit(r, "threaddump.lock.app"); other != nil {
					t.Errorf("unexplained lock %s with %d waiters", other.Lock.Ref, len(other.Threads))
				}
				if len(c.Threads) < tc.waiters {
					t.Errorf("waiters = %d, want >= %d", len(c.Threads), tc.waiters)
				}
				if !oneOf(c.Frame.Method, tc.frame) {
					t.Errorf("waiting at %s, want %s", c.Frame, tc.frame)
				}
				for _, w := range c.Threads {
					if r.IsIdle(w) {
						t.Errorf("waiter %q counted idle", w.Name)
					}
					if !stateIn(w.State, c.FP.States) {
						t.Errorf("waiter %q in state %s", w.Name, w.State)
					}
				}
				if tc.lock == "" {
					if c.FP.Kind == KindWait && c.Lock != nil {
						t.Errorf("pool/queue culprit with a lock %s", c.Lock.Ref)
					}
				} else {
					if c.Lock == nil || !oneOf(c.Lock.Ref.Class, tc.lock) {
						t.Fatalf("lock = %+v, want class %s", c.Lock, tc.lock)
					}
					if c.Holder == nil || !strings.HasPrefix(c.Holder.Name, tc.holder) {
						t.Fatalf("holder = %+v, want a %s thread", c.Holder, tc.holder)
					}
					for _, w := range c.Threads {
						if w == c.Holder {
							t.Errorf("holder %q counted as waiter", w.Name)
						}
					}
					if tc.holderTop != "" && c.Holder.Top().Method != tc.holderTop {
						t.Errorf("holder top = %s, want %s", c.Holder.Top(), tc.holderTop)
					}
					if c.HolderConfirmed != tc.confirmed {
						t.Errorf("holder confirmed = %v, want %v (holder frame %s)", c.HolderConfirmed, tc.confirmed, c.HolderFrame)
					}
				}
				checkLibFinding(t, r, c, file)
			})
		}
	}
}

func oneOf(s, alternatives string) bool {
	for _, a := range strings.Split(alternatives, "|") {
		if s == a {
			return true
		}
	}
	return false
}

// checkLibFinding: the finding a user reads, complete in English and Chinese.
func checkLibFinding(t *testing.T, r *Report, c *Culprit, file string) {
	t.Helper()
	var f *finding.Finding
	fs := Findings(r, file)
	for i := range fs {
		if fs[i].ID == c.ID {
			f = &fs[i]
			break
		}
	}
	if f == nil {
		t.Fatalf("no finding %s", c.ID)
	}
	if f.Severity != finding.Critical {
		t.Errorf("severity %s, want critical (%d threads, %.0f%%)", f.Severity, len(c.Threads), 100*c.Share)
	}
	for what, tx := range map[string]finding.Text{"title": f.Title, "observed": f.Observed, "why": f.Why, "recommended": f.Recommended, "risk": f.Risk} {
		if tx.EN == "" || tx.ZH == "" {
			t.Errorf("%s: en %q zh %q", what, tx.EN, tx.ZH)
		}
	}
	n := strconv.Itoa(len(c.Threads))
	if !strings.HasPrefix(f.Observed.EN, n+" threads") || !strings.HasPrefix(f.Observed.ZH, n+" 个线程") {
		t.Errorf("observed does not count the threads: %q / %q", f.Observed.EN, f.Observed.ZH)
	}
	if c.Lock != nil && c.Holder != nil {
		held := "held by " + quoteName(c.Holder.Name)
		if !strings.Contains(f.Observed.EN, c.Lock.Ref.Class) || !strings.Contains(f.Observed.EN, held) ||
			!strings.Contains(f.Observed.ZH, "持有者 "+quoteName(c.Holder.Name)) {
			t.Errorf("observed does not name the lock and holder: %q / %q", f.Observed.EN, f.Observed.ZH)
		}
	} else if !strings.Contains(f.Observed.EN, c.Frame.Method) {
		t.Errorf("observed does not say where they wait: %q", f.Observed.EN)
	}
	ev := map[string]bool{}
	for _, e := range f.Evidence {
		ev[e.Key] = true
	}
	if !ev["threads"] || !ev["waiting_at"] || !ev["sample_threads"] {
		t.Errorf("evidence %v", f.Evidence)
	}
}
