package threadrole

import "strings"

// Library names the library a stack frame ("pkg.Class.method") belongs to:
// "jdk" for the JDK's own ("jul" and "jdk-httpserver" for its logging and
// HTTP server), "tomcat", "spring", "jackson", "logback" ... for the
// servers, frameworks and libraries of libraryRules; "generated" for code
// the JVM or a library generated (lambda forms, proxies, reflection
// accessors: the code a user reads is their caller); "" for the
// application's own code. A library shaded into another's package
// ("io.grpc.netty.shaded.io.netty...", "com.alibaba.nacos.shaded.io.grpc...")
// is the library of what follows "shaded.". It is the one list of library
// frames: the time account (FirstAppFrame), the mechanism catalogue
// (mechanism.IsLibrary) and the verdict's frameworks read it.
func Library(method string) string {
	if strings.IndexByte(method, '/') >= 0 { // OpenJ9 and JFR's internal form
		method = strings.ReplaceAll(method, "/", ".")
	}
	for _, r := range libraryRules {
		if strings.HasPrefix(method, r.prefix) {
			return r.library
		}
	}
	if i := strings.Index(method, ".shaded."); i > 0 {
		if lib := Library(method[i+len(".shaded."):]); lib != "" {
			return lib
		}
	}
	// Spring's and CGLIB's generated proxies of application classes
	// ("com.example.Svc$$SpringCGLIB$$0.call") forward to the class itself.
	if strings.Contains(method, "$$SpringCGLIB$$") || strings.Contains(method, "$$EnhancerBySpringCGLIB$$") || strings.Contains(method, "$$FastClassBySpringCGLIB$$") {
		return "spring"
	}
	if strings.Contains(method, "$$Lambda") || strings.Contains(method, "$Proxy") || strings.Contains(method, "GeneratedMethodAccessor") {
		return "generated"
	}
	return ""
}

// FirstAppFrame is the index in stack (leaf first) of the first frame of
// the application's own code, past the JDK's, the libraries' and generated
// frames and frames with no name (Library), -1 when the stack holds none: where the application spends
// the time a sample of this stack stands for.
func FirstAppFrame(stack []string) int {
	return FirstAppFrameFunc(len(stack), func(i int) string { return stack[i] })
}

// FirstAppFrameFunc is FirstAppFrame over a stack of n frames of any type
// (a JFR stack of stacks.Frame, a dump's threaddump.Frame), method(i) the
// i-th frame's "pkg.Class.method", leaf first.
func FirstAppFrameFunc(n int, method func(i int) string) int {
	for i := 0; i < n; i++ {
		if m := method(i); m != "" && Library(m) == "" {
			return i
		}
	}
	return -1
}
