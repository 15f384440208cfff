package mechanism

import (
	"slices"
	"strings"
	"testing"
)

// stableIDs are the IDs the zoo's services declare and the evaluation
// reads: renaming one breaks them.
var stableIDs = []string{
	"mech.logging.logback-sync", "mech.logging.log4j2-sync", "mech.logging.log4j1-sync", "mech.logging.jul-handler",
	"mech.logging.console", "mech.logging.caller-data", "mech.logging.async-queue-full",
	"mech.eventloop.blocking-call", "mech.reactive.block",
	"mech.cpu.regex-backtracking", "mech.cpu.regex-compile", "mech.cpu.string-format", "mech.cpu.hashing",
	"mech.cpu.crypto", "mech.cpu.compression", "mech.cpu.json", "mech.cpu.java-serialization", "mech.cpu.exceptions",
	"mech.cpu.reflection", "mech.cpu.xml", "mech.cpu.app-method",
	"mech.gc.humongous", "mech.gc.allocation-rate", "mech.gc.premature-promotion", "mech.gc.heap-too-small",
	"mech.gc.explicit", "mech.gc.metaspace", "mech.gc.finalizers",
	"mech.jvm.code-cache-full", "mech.jvm.deopt-loop", "mech.jvm.class-loading", "mech.jvm.safepoint",
	"mech.pool.jdbc-exhausted", "mech.pool.http-client-exhausted", "mech.pool.executor-saturated",
	"mech.pool.request-threads-exhausted",
	"mech.wait.unsignalled", "mech.wait.downstream", "mech.wait.sleep", "mech.wait.semaphore", "mech.wait.queue-handoff",
	"mech.lock.class-cpu", "mech.lock.io-under-lock", "mech.lock.app-monitor", "mech.lock.sync-collection",
	"mech.lock.deadlock", "mech.lock.securerandom",
	"mech.io.fsync", "mech.net.delayed-ack", "mech.net.dns", "mech.net.connect-per-request",
	"mech.host.softirq", "mech.host.cpu-others",
}

func TestCatalogueHoldsTheStableIDs(t *testing.T) {
	es := Catalogue()
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.ID] {
			t.Errorf("%s: listed twice", e.ID)
		}
		seen[e.ID] = true
		if e.Name.ZH == "" || e.Mechanism.ZH == "" || e.Tradeoff.ZH == "" || e.Name.EN == "" || e.Mechanism.EN == "" || e.Tradeoff.EN == "" {
			t.Errorf("%s: name, mechanism and trade-off need English and Chinese", e.ID)
		}
		if len(e.References) == 0 {
			t.Errorf("%s: no public reference", e.ID)
		}
	}
	for _, id := range stableIDs {
		if !seen[id] {
			t.Errorf("%s: missing from the catalogue", id)
		}
	}
	if len(es) < 45 {
		t.Errorf("%d entries, want at least 45", len(es))
	}
}

// The generic entries count only what no specific entry names: the
// hottest-method entry leaves out every specific CPU entry's frames, the
// application-lock entry every wait another entry names by its frames.
func TestGenericEntriesLeaveSpecificTimeAlone(t *testing.T) {
	var app, monitor *Entry
	es := Catalogue()
	for i := range es {
		switch es[i].ID {
		case "mech.cpu.app-method":
			app = &es[i]
		case "mech.lock.app-monitor":
			monitor = &es[i]
		}
	}
	for _, e := range es {
		if (e.Family == CPU || e.ID == "mech.lock.shared-random") && !e.Generic && e.Sig.Depth == 0 {
			for _, f := range e.Sig.Frames {
				if !slices.Contains(app.Sig.NotFrames, f) {
					t.Errorf("%s's frame %s is counted by the generic %s too", e.ID, f, app.ID)
				}
			}
		}
	}
	for _, id := range []string{"mech.lock.securerandom", "mech.jvm.class-loading", "mech.wait.queue-handoff", "mech.pool.http-client-exhausted",
		"mech.pool.jdbc-exhausted", "mech.wait.semaphore", "mech.pool.executor-saturated", "mech.reactive.block"} {
		for _, e := range es {
			if e.ID != id {
				continue
			}
			for _, f := range e.Sig.Frames {
				covered := slices.ContainsFunc(monitor.Sig.NotFrames, func(p string) bool { return strings.HasPrefix(f, p) })
				if !covered {
					t.Errorf("%s's frame %s is counted by the generic %s too", id, f, monitor.ID)
				}
			}
		}
	}
}

// NotCallers: the first non-JDK frame past the matched one decides.
func TestNotCallersReadsTheFirstNonJDKCaller(t *testing.T) {
	// Leaf first, as the verdict's dumps give them (jdk17_zoo_remote-call
	// and the cpu-hot run's Tomcat worker writing its response).
	downstream := Slice{State: Socket, Stack: []Frame{{Method: "sun.nio.ch.Net.poll"}, {Method: "sun.nio.ch.NioSocketImpl.timedRead"},
		{Method: "java.net.Socket$SocketInputStream.read"}, {Method: "com.example.zoo.StockClient.remoteStock", Line: 133},
		{Method: "org.apache.catalina.core.ApplicationFilterChain.internalDoFilter"}, {Method: "org.apache.coyote.http11.Http11Processor.service"}}}
	response := Slice{State: Socket, Stack: []Frame{{Method: "sun.nio.ch.FileDispatcherImpl.write0"}, {Method: "sun.nio.ch.SocketDispatcher.write"},
		{Method: "sun.nio.ch.SocketChannelImpl.write"}, {Method: "org.apache.tomcat.util.net.NioChannel.write"},
		{Method: "org.apache.tomcat.util.net.NioEndpoint$NioSocketWrapper.doWrite"}}}
	var sig Signature
	for _, e := range Catalogue() {
		if e.ID == "mech.wait.downstream" {
			sig = e.Sig
		}
	}
	if _, ok := sig.matches(&downstream); !ok {
		t.Error("a socket read called by the application is a downstream")
	}
	if _, ok := sig.matches(&response); ok {
		t.Error("Tomcat writing its response is not a downstream")
	}
}

// Two entries over the same time must be ranked on the same evidence: a
// source with five snapshots (one of them another thread's read, which
// only the generic entry counts) must not outrank thousands of JFR events
// on which the event loop's blocking call and the downstream wait tie
// (the eval zoo's jdk-dispatcher-blocking once read as mech.wait.downstream).
func TestNameRanksEntriesOnTheBestSupportedSource(t *testing.T) {
	app := []Frame{{Method: "sun.nio.ch.Net.poll"}, {Method: "sun.nio.ch.NioSocketImpl.timedRead"},
		{Method: "java.net.Socket$SocketInputStream.read"}, {Method: "sun.net.www.http.HttpClient.parseHTTP"},
		{Method: "sun.net.www.protocol.http.HttpURLConnection.getInputStream0"},
		{Method: "org.acme.quote.RatesClient.fetch", Line: 40}, {Method: "org.acme.quote.QuoteHandler.handle", Line: 12},
		{Method: "sun.net.httpserver.ServerImpl$Exchange.run"}, {Method: "sun.net.httpserver.ServerImpl$Dispatcher.run"}}
	own := []Frame{{Method: "sun.nio.ch.SocketDispatcher.read0"}, {Method: "java.net.Socket$SocketInputStream.read"},
		{Method: "java.io.BufferedReader.readLine"}, {Method: "org.acme.gateway.Relay.pump", Line: 77}}
	e := &Evidence{Events: map[string]int{}, Frameworks: map[string]bool{}}
	add := func(role string, st State, stack []Frame, src Source, w float64, n int) {
		e.Slices = append(e.Slices, Slice{Thread: role + "-1", Role: role, State: st, Stack: stack, Source: src, Weight: w, Events: n})
	}
	add("event-loop", Socket, app, FromJFR, 98e9, 980)
	add("event-loop", Running, app[5:], FromJFR, 2e9, 20)
	for i := 0; i < 4; i++ {
		add("event-loop", Socket, app, FromDumps, 1, 1)
	}
	add("request-worker", Socket, own, FromDumps, 1, 1)
	named := Name(e)
	if len(named) < 2 {
		t.Fatalf("want the event loop's blocking call and the downstream wait, got %d entries", len(named))
	}
	for _, n := range named[:2] {
		t.Logf("%s: %.0f%% from %s (%d of %d)", n.Entry.ID, 100*n.Match.Share, n.Match.Source, n.Match.Events, n.Match.Of)
		if n.Match.Source != FromJFR {
			t.Errorf("%s read from %s (%d of %d), want the JFR's 1000 events", n.Entry.ID, n.Match.Source, n.Match.Events, n.Match.Of)
		}
	}
	if named[0].Entry.ID != "mech.eventloop.blocking-call" {
		t.Errorf("first %s, want mech.eventloop.blocking-call: the read blocks the one thread that serves every connection", named[0].Entry.ID)
	}
}

func TestShareLowerBound(t *testing.T) {
	for _, c := range []struct {
		share  float64
		of     int
		lo, hi float64
	}{{1, 5, 0.56, 0.57}, {0.988, 678, 0.97, 0.98}, {0.5, 100, 0.40, 0.41}, {0, 10, 0, 0.0001}, {1, 0, 0, 0}} {
		if lb := shareLowerBound(Match{Share: c.share, Of: c.of}); lb < c.lo || lb > c.hi {
			t.Errorf("%v of %d: lower bound %.4f, want %.2f-%.2f", c.share, c.of, lb, c.lo, c.hi)
		}
	}
}

// Others' CPU costs the service the time its threads want a CPU: on
// saturated CPUs, request threads that run 5% of their time and wait on a
// socket for the rest are not named as starved by others (the share was
// once read of their CPU time, where Running is always all of it).
func TestOthersCPUScoresTheRunningShareOfTheWall(t *testing.T) {
	stack := []Frame{{Method: "sun.nio.ch.Net.poll"}, {Method: "java.net.Socket$SocketInputStream.read"},
		{Method: "org.acme.quote.RatesClient.fetch", Line: 40}}
	e := &Evidence{Events: map[string]int{}, Frameworks: map[string]bool{}, Saturated: true, HostFindings: []string{"run.cpu.others"}}
	add := func(st State, w float64, n int) {
		e.Slices = append(e.Slices, Slice{Thread: "exec-1", Role: "request-worker", State: st, Stack: stack, Source: FromJFR, Weight: w, Events: n})
	}
	add(Socket, 95e9, 950)
	add(Running, 5e9, 50)
	for _, n := range Name(e) {
		if n.Entry.ID == "mech.host.cpu-others" {
			t.Errorf("named %s at %.0f%% of the request threads' time, which ran 5%% of it", n.Entry.ID, 100*n.Match.Share)
		}
	}
	// The same threads running most of their time: others' CPU is named.
	e = &Evidence{Events: map[string]int{}, Frameworks: map[string]bool{}, Saturated: true, HostFindings: []string{"run.cpu.others"}}
	add(Socket, 20e9, 200)
	add(Running, 80e9, 800)
	named := false
	for _, n := range Name(e) {
		named = named || n.Entry.ID == "mech.host.cpu-others" && n.Match.Share > 0.7
	}
	if !named {
		t.Error("request threads running 80% of their time on CPUs others saturate: others' CPU not named")
	}
}
