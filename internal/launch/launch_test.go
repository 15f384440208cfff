package launch

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// A service started through a shell script is found, answered for, and
// stopped with its whole process group.
func TestStartWaitFindStop(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	src := filepath.Join(dir, "Srv.java")
	code := `import com.sun.net.httpserver.*; import java.net.*;
public class Srv { public static void main(String[] a) throws Exception {
  HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(a[0])), 0);
  s.createContext("/", x -> { byte[] b = "ok".getBytes(); x.sendResponseHeaders(200, b.length); x.getResponseBody().write(b); x.close(); });
  s.start(); } }`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	// A wrapper shell, as real start scripts are: the JVM is a grandchild.
	svc, err := Start("sh -c '"+java+" "+src+" "+itoa(port)+"'", filepath.Join(dir, "service.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	url := "http://127.0.0.1:" + itoa(port) + "/"
	if err := WaitReady(context.Background(), url, 90*time.Second, svc); err != nil {
		t.Fatal(err)
	}
	pid := FindJVM(hostfs.Live(), svc.Cmd.Process.Pid)
	if pid == 0 || pid == svc.Cmd.Process.Pid {
		t.Fatalf("JVM not found under the shell %d: %d", svc.Cmd.Process.Pid, pid)
	}
	svc.Stop()
	if _, err := http.Get(url); err == nil {
		t.Error("service still answers after Stop")
	}
	if _, err := os.Stat("/proc/" + itoa(pid)); err == nil {
		if b, _ := os.ReadFile("/proc/" + itoa(pid) + "/stat"); !strings.Contains(string(b), ") Z ") {
			t.Errorf("JVM %d survived Stop", pid)
		}
	}
}

// A service that dies before answering is reported with its log.
func TestWaitReadyServiceExits(t *testing.T) {
	dir := t.TempDir()
	svc, err := Start("echo 'Error: Unable to access jarfile app.jar' >&2; exit 1", filepath.Join(dir, "service.log"))
	if err != nil {
		t.Fatal(err)
	}
	err = WaitReady(context.Background(), "http://127.0.0.1:9/", 10*time.Second, svc)
	if err == nil || !strings.Contains(err.Error(), "Unable to access jarfile") {
		t.Errorf("want the service's own error in the message, got %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// hookJVM compiles a class whose shutdown hook sleeps hookMS and then
// writes "hook ran" to the file it is given, and starts it behind a shell
// that cannot exec it (a command follows), as start scripts do.
func hookJVM(t *testing.T, hookMS int) (svc *Service, marker string) {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("no javac on PATH")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	dir := t.TempDir()
	code := `import java.nio.file.*;
public class Hook { public static void main(String[] a) throws Exception {
  Runtime.getRuntime().addShutdownHook(new Thread(() -> {
    try { Thread.sleep(` + itoa(hookMS) + `); Files.writeString(Path.of(a[0]), "hook ran"); } catch (Exception e) { }
  }));
  System.out.println("ready"); System.out.flush();
  Thread.sleep(600_000);
} }`
	if err := os.WriteFile(filepath.Join(dir, "Hook.java"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", dir, filepath.Join(dir, "Hook.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	marker = filepath.Join(dir, "marker")
	svc, err = Start(java+" -Xshare:auto -cp "+dir+" Hook "+marker+"; echo service ended", filepath.Join(dir, "service.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-svc.Cmd.Process.Pid, syscall.SIGKILL) })
	for end := time.Now().Add(60 * time.Second); !strings.Contains(svc.LogTail(1000), "ready"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the JVM did not start: %s", svc.LogTail(2000))
		}
	}
	return svc, marker
}

// Stop lets the JVM run its shutdown hooks even though the wrapper shell
// dies at once on SIGTERM.
func TestStopRunsShutdownHooks(t *testing.T) {
	svc, marker := hookJVM(t, 300)
	jvm := svc.WaitJVM(context.Background(), hostfs.Live(), 10*time.Second)
	if jvm == 0 || jvm == svc.Cmd.Process.Pid {
		t.Fatalf("JVM not found behind the shell: %d", jvm)
	}
	svc.Stop()
	b, err := os.ReadFile(marker)
	if err != nil || string(b) != "hook ran" {
		t.Fatalf("the shutdown hook did not run: %v %q", err, b)
	}
	if alive(jvm) {
		t.Errorf("JVM %d survived Stop", jvm)
	}
}

// A JVM whose hooks outlast StopTimeout is killed when it ends.
func TestStopKillsAfterTimeout(t *testing.T) {
	svc, marker := hookJVM(t, 60_000)
	svc.StopTimeout = time.Second
	jvm := FindJVM(hostfs.Live(), svc.Cmd.Process.Pid) // Stop finds it itself too
	start := time.Now()
	svc.Stop()
	if el := time.Since(start); el < time.Second || el > 8*time.Second {
		t.Errorf("Stop took %s with a 1 s timeout", el)
	}
	if jvm != 0 && alive(jvm) {
		t.Errorf("JVM %d survived Stop", jvm)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the hook finished: it should have been cut at the timeout")
	}
}
