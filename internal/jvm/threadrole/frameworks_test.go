package threadrole_test

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
)

// The framework JVM's dumps (testdata/SOURCES.md): every framework's
// threads get its role, by name or by stack, and the JDK HttpServer's idle
// pool threads learn theirs from their busy siblings across the two dumps.
func TestFrameworkDumps(t *testing.T) {
	want := []struct {
		prefix string
		kind   threadrole.Kind
		fw     string
	}{
		{"nioEventLoopGroup-", threadrole.EventLoop, "netty"},
		{"defaultEventExecutorGroup-", threadrole.RequestWorker, "netty"},
		{"XNIO-1 I/O-", threadrole.EventLoop, "undertow"},
		{"XNIO-1 Accept", threadrole.Acceptor, "undertow"},
		{"XNIO-1 task-", threadrole.RequestWorker, "undertow"},
		{"vert.x-eventloop-thread-", threadrole.EventLoop, "vertx"},
		{"vert.x-acceptor-thread-", threadrole.Acceptor, "vertx"},
		{"vert.x-worker-thread-", threadrole.RequestWorker, "vertx"},
		{"vertx-blocked-thread-checker", threadrole.Timer, "vertx"},
		{"HTTP-Dispatcher", threadrole.EventLoop, "jdk-httpserver"},
		{"idle-timeout-task", threadrole.Timer, "jdk-httpserver"},
		{"reactor-http-epoll-", threadrole.EventLoop, "reactor"},
		{"parallel-", threadrole.Background, "reactor"},
		{"grpc-default-boss-ELG-", threadrole.Acceptor, "grpc"},
		{"grpc-default-worker-ELG-", threadrole.EventLoop, "grpc"},
		{"grpc-default-executor-", threadrole.RequestWorker, "grpc"},
		{"HikariPool-1 housekeeper", threadrole.DBPool, "hikari"},
		{"kafka-producer-network-thread | ", threadrole.EventLoop, "kafka"},
		{"AsyncAppender-Worker-", threadrole.Logging, "logback"},
		{"HttpClient-1-SelectorManager", threadrole.EventLoop, "jdk-httpclient"},
		{"HttpClient-1-Worker-", threadrole.Background, "jdk-httpclient"},
		{"load-client-", threadrole.Background, ""},
		{"db-user-", threadrole.Background, ""},
		{"qtp", "", "jetty"}, // selector, acceptor or worker: checked below
		{"C2 CompilerThread", threadrole.JIT, "hotspot"},
		{"G1 ", threadrole.GC, "hotspot"},
		{"VM Thread", threadrole.VM, ""},
	}
	for _, jdk := range []string{"17", "25"} {
		pools := threadrole.NewPools()
		var names []string
		seen := map[string]bool{}
		for _, n := range []string{"1", "2"} {
			d := parseDump(t, "testdata/frameworks-jdk"+jdk+"-"+n+".txt")
			for _, th := range d.Threads {
				var st []string
				for _, f := range th.Frames {
					st = append(st, f.Method)
				}
				pools.Observe(th.Name, st)
				if !seen[th.Name] {
					seen[th.Name] = true
					names = append(names, th.Name)
				}
			}
		}
		// The JDK HttpServer's pool threads serve requests, but their name
		// does not say so: only a dump catching one in an exchange tells,
		// and then it tells for its idle siblings too.
		exchange := false
		for _, n := range []string{"1", "2"} {
			for _, th := range parseDump(t, "testdata/frameworks-jdk"+jdk+"-"+n+".txt").Threads {
				for _, f := range th.Frames {
					exchange = exchange || (strings.HasPrefix(th.Name, "pool-2-thread-") && f.Method == "sun.net.httpserver.ServerImpl$Exchange.run")
				}
			}
		}
		for _, name := range names {
			if !strings.HasPrefix(name, "pool-2-thread-") {
				continue
			}
			r := pools.Role(name)
			switch {
			case exchange && (r.Kind != threadrole.RequestWorker || r.Framework != "jdk-httpserver"):
				t.Errorf("jdk%s: %q: %s, want its busy sibling's request-worker/jdk-httpserver", jdk, name, r)
			case !exchange && (r.Kind != threadrole.Background || !r.Shared):
				t.Errorf("jdk%s: %q: %s, want a guess (no sibling seen serving)", jdk, name, r)
			}
		}
		t.Logf("jdk%s: a JDK HttpServer pool thread caught in an exchange: %v", jdk, exchange)
		matched := map[string]int{}
		qtp := map[threadrole.Kind]int{}
		for _, name := range names {
			r := pools.Role(name)
			if r.Kind == threadrole.Unknown {
				t.Errorf("jdk%s: %q unknown", jdk, name)
			}
			for _, w := range want {
				if !strings.HasPrefix(name, w.prefix) {
					continue
				}
				matched[w.prefix]++
				if w.prefix == "qtp" {
					qtp[r.Kind]++
					if r.Framework != "jetty" {
						t.Errorf("jdk%s: %q: %s", jdk, name, r)
					}
				} else if r.Kind != w.kind || r.Framework != w.fw {
					t.Errorf("jdk%s: %q: %s (by %s, rule %s), want %s/%s", jdk, name, r, r.By, r.Rule, w.kind, w.fw)
				}
				break
			}
		}
		for _, w := range want {
			if matched[w.prefix] == 0 {
				t.Errorf("jdk%s: no thread %q... in the dumps", jdk, w.prefix)
			}
		}
		// Jetty's pool: an acceptor (by its name), a selector and request
		// workers (by their stacks).
		if qtp[threadrole.Acceptor] == 0 || qtp[threadrole.EventLoop] == 0 || qtp[threadrole.RequestWorker] == 0 {
			t.Errorf("jdk%s: Jetty's qtp threads: %v", jdk, qtp)
		}
	}
}
