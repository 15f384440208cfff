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
