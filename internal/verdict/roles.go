package verdict

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// roleOf places a thread by its name and stack (leaf first). Interim:
// internal/jvm/threadrole replaces it.
func roleOf(name string, st []mechanism.Frame) (role, pool string) {
	pool = threaddump.PoolName(name)
	has := func(p string) bool {
		for _, f := range st {
			if strings.HasPrefix(f.Method, p) {
				return true
			}
		}
		return false
	}
	switch {
	case strings.Contains(name, "CompilerThread") || strings.HasPrefix(name, "JIT Compilation"):
		return "jit-compiler", pool
	case strings.HasPrefix(name, "GC ") || strings.HasPrefix(name, "G1 ") || strings.Contains(name, "GC Thread") || strings.HasPrefix(name, "ZGC") || strings.HasPrefix(name, "Shenandoah"):
		return "gc", pool
	case strings.HasPrefix(name, "JFR ") || strings.HasPrefix(name, "Attach Listener"):
		return "vm", pool
	case len(st) == 0:
		return "vm", pool
	case has("io.netty.channel.nio.NioEventLoop.run") || has("io.netty.channel.epoll.EpollEventLoop.run") ||
		has("sun.net.httpserver.ServerImpl$Dispatcher.run") || strings.HasPrefix(name, "vert.x-eventloop"):
		return "event-loop", pool
	case has("org.apache.tomcat.util.net.NioEndpoint$Poller") || has("org.apache.tomcat.util.net.Acceptor") || has("sun.nio.ch.ServerSocketChannelImpl.accept"):
		return "acceptor", pool
	case name == "main" || name == "DestroyJavaVM" || name == "Reference Handler" || name == "Finalizer" ||
		name == "Signal Dispatcher" || name == "Common-Cleaner" || name == "Notification Thread" || name == "Service Thread":
		return "vm", pool
	}
	return "request-worker", pool
}
