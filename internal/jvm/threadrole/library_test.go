package threadrole_test

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
)

// In the framework dumps (testdata/SOURCES.md) the only application code is
// FrameworkZoo: the first application frame of every thread is one of its
// frames, and threads running none of it have none. The same for the zoo's
// services (com.example.zoo, the eval zoo's com.northwind and org.tally) in verdict's run folders.
func TestFirstAppFrameRealDumps(t *testing.T) {
	for _, c := range []struct {
		glob, app string
	}{
		{"testdata/frameworks-jdk*-*.txt", "FrameworkZoo"},
		{"../../verdict/testdata/runs/*/raw/threaddump-*.txt", "com.example.zoo.|com.northwind.|org.tally."}, // the zoo and the eval zoo (its Spring and plain-JDK services)
	} {
		files := globFiles(t, c.glob)
		threads, withApp := 0, 0
		for _, p := range files {
			for _, th := range allThreads(t, p) {
				var st []string
				has := false
				for _, f := range th.Frames {
					st = append(st, f.Method)
					has = has || isApp(f.Method, c.app)
				}
				threads++
				i := threadrole.FirstAppFrame(st)
				switch {
				case has && (i < 0 || !isApp(st[i], c.app)):
					t.Errorf("%s: %q: first application frame %d %v, want a %s frame", p, th.Name, i, at(st, i), c.app)
				case !has && i >= 0:
					t.Errorf("%s: %q: %q taken for application code (library %q)", p, th.Name, st[i], threadrole.Library(st[i]))
				}
				if has {
					withApp++
				}
			}
		}
		if withApp < 20 {
			t.Errorf("%s: only %d of %d threads run %s code", c.glob, withApp, threads, c.app)
		}
		t.Logf("%s: %d threads, %d running %s code", c.glob, threads, withApp, c.app)
	}
}

// isApp: the services' own code is in their package or, for single-file
// programs, in no package at all ("Leak.main").
func isApp(m, pkgs string) bool {
	for _, pkg := range strings.Split(pkgs, "|") {
		if strings.HasPrefix(m, pkg) {
			return true
		}
	}
	return strings.Count(m, ".") == 1 && !strings.HasPrefix(m, ".")
}

func at(st []string, i int) string {
	if i < 0 || i >= len(st) {
		return ""
	}
	return st[i]
}

func TestLibrary(t *testing.T) {
	for m, want := range map[string]string{
		"java.lang.Thread.run":                                                                "jdk",
		"org.apache.catalina.core.StandardWrapperValve.invoke":                                "tomcat",
		"ch.qos.logback.core.OutputStreamAppender.writeBytes":                                 "logback",
		"io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoop.run":                          "grpc",
		"com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoop.run": "grpc",
		"com.example.OrderService$$SpringCGLIB$$0.place":                                      "spring",
		"com.example.zoo.PriceCalculator.computeChecksum":                                     "",
		"FrameworkZoo.lambda$main$6":                                                          "",
		// Folded in from mechanism's list (issue 22): generated frames, the
		// JDK's logging and HTTP server by name, whole vendor namespaces.
		"com.example.Svc$$Lambda/0x000071b0c8003a58.run":       "generated",
		"com.example.$Proxy12.call":                            "generated",
		"jdk.internal.reflect.GeneratedMethodAccessor7.invoke": "jdk",
		"java.util.logging.Logger.log":                         "jul",
		"sun.net.httpserver.ServerImpl$Exchange.run":           "jdk-httpserver",
		"org.apache.log4j.Category.callAppenders":              "log4j1",
		"org.apache.lucene.index.IndexWriter.commit":           "apache",
		"com.google.cloud.storage.Blob.reload":                 "google",
		"io.reactivex.internal.operators.Foo.subscribe":        "rxjava",
		"org.eclipse.openj9.criu.CRIUSupport.checkpoint":       "jdk",
	} {
		if got := threadrole.Library(m); got != want {
			t.Errorf("Library(%q) = %q, want %q", m, got, want)
		}
	}
}

func allThreads(t *testing.T, p string) []*threaddump.Thread {
	var out []*threaddump.Thread
	for _, d := range parseDumps(t, p) {
		out = append(out, d.Threads...)
	}
	return out
}

// A frame with no name is no code line: FirstAppFrame passes it.
func TestFirstAppFrameSkips(t *testing.T) {
	st := []string{"", "com.example.Svc$$Lambda/0x000071b0c8003a58.run", "java.util.concurrent.FutureTask.run", "com.example.Svc.handle"}
	if i := threadrole.FirstAppFrame(st); i != 3 {
		t.Errorf("FirstAppFrame = %d, want 3", i)
	}
	if i := threadrole.FirstAppFrame(st[:3]); i != -1 {
		t.Errorf("FirstAppFrame = %d, want -1", i)
	}
}
