package html

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// lockProfile is a lock profile as a capture of the zoo's sync-logging
// service gives it: request threads blocked on logback's appender lock,
// with a hostile frame name from the target.
func lockProfile() *stacks.Profile {
	p := &stacks.Profile{Kind: stacks.Lock, Unit: "nanoseconds", Events: 412}
	add := func(v int64, st ...string) {
		p.Samples = append(p.Samples, stacks.Sample{Stack: st, Value: v})
		p.Total += v
	}
	add(8_200_000_000, "java.lang.Thread.run", "org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run", "zoo.SyncLogging.handle",
		"ch.qos.logback.core.OutputStreamAppender.subAppend", "[lock] ch.qos.logback.core.util.ReentrantLock")
	add(1_300_000_000, "java.lang.Thread.run", "zoo.SyncLogging.handle", "zoo.Pool.borrow", "[park] java.util.concurrent.locks.ReentrantLock$NonfairSync")
	add(40_000_000, "java.lang.Thread.run", "evil.<script>alert(1)</script>\x1b[31m", "[lock] java.lang.Object")
	return p
}

func flamePage(l finding.Lang) *report.FlamePage {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	return report.NewFlamePage(lockProfile(), report.FlameMeta{Target: "pid 4242", Version: "OpenJDK 64-Bit Server VM version 17.0.15+6",
		Command: "JFR.start name=tuneloop-profile settings=profile locking-threshold=1ms filename=/tmp/x.jfr", Start: t0,
		Duration: 30 * time.Second, Files: map[string]string{"collapsed": "profile.collapsed", "pprof": "profile.pb.gz", "jfr": "recording.jfr"}}, l)
}

func TestWriteFlameGolden(t *testing.T) {
	for name, p := range map[string]*report.FlamePage{
		"profile-lock-en":   flamePage(finding.EN),
		"profile-lock-zh":   flamePage(finding.ZH),
		"profile-native-en": nativePage(),
		"profile-empty-en": report.NewFlamePage(&stacks.Profile{Kind: stacks.Alloc, Unit: "bytes"},
			report.FlameMeta{Target: "pid 7", Interrupted: true, Notes: []finding.Text{finding.T("no allocation events", "没有分配事件")}}, finding.EN),
	} {
		var b bytes.Buffer
		if err := WriteFlame(&b, p); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		path := filepath.Join("testdata", "golden", name+".html")
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s (run with -update and review the diff)", name, path)
		}
		// What a reader checks: the culprit lock is on the page, nothing of
		// the target's text runs as markup, no network.
		if strings.Contains(got, "<script>alert") || strings.Contains(got, "\x1b") || strings.Contains(got, "http://") || strings.Contains(got, "https://") {
			t.Errorf("%s: unsafe text or a link on the page", name)
		}
		if strings.HasPrefix(name, "profile-lock") && (!strings.Contains(got, "ch.qos.logback.core.util.ReentrantLock") || !strings.Contains(got, `id="flame"`)) {
			t.Errorf("%s: the lock or the flame graph is missing", name)
		}
		if name == "profile-native-en" && (!strings.Contains(got, "do_futex_[k]") || !strings.Contains(got, `id="f-native.futex-storm"`)) {
			t.Errorf("%s: the kernel frame or the finding is missing", name)
		}
	}
	var b bytes.Buffer
	_ = WriteFlame(&b, flamePage(finding.ZH))
	if !strings.Contains(b.String(), "热点帧") || !strings.Contains(b.String(), "8.2 s") {
		t.Errorf("zh page lacks its words or the lock's 8.2 s")
	}
}

// nativePage is a native profile of a futex storm: a stack from the
// program through libc into the kernel, and the catalogue's finding.
func nativePage() *report.FlamePage {
	p := &stacks.Profile{Kind: "native", Unit: "samples", Events: 124, Total: 124}
	p.Samples = []stacks.Sample{
		{Stack: []string{"futex", "start_thread", "run", "__pthread_mutex_lock", "__lll_lock_wait", "entry_SYSCALL_64_after_hwframe_[k]", "do_futex_[k]", "futex_wait_[k]", "schedule_[k]"}, Value: 80},
		{Stack: []string{"java", "LBurn;::burn_[j]", "[unknown Java]"}, Value: 44},
	}
	f := finding.Finding{ID: "native.futex-storm", Category: "native", Status: finding.Fail, Severity: finding.Warning,
		Title:       finding.T("Futex storm: threads queue on a lock in the kernel", "futex 风暴：线程在内核中排队等锁"),
		Observed:    finding.T("the kernel's futex code is on 65% of the CPU samples", "内核 futex 代码出现在 65% 的 CPU 采样中"),
		Evidence:    []finding.Evidence{{Key: "kernel path", Value: "futex_*", Source: "perf_event_open cpu-clock, /proc/kallsyms"}},
		Recommended: finding.T("find the lock and shard it", "找到该锁并拆分")}
	return report.NewFlamePage(p, report.FlameMeta{Target: "pid 4242", Duration: 10 * time.Second, Findings: []finding.Finding{f},
		Notes: []finding.Text{finding.T("100% of 44 JIT frames named", "44 个 JIT 帧 100% 已命名")}}, finding.EN)
}
