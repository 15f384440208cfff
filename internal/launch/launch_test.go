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
	t.Cleanup(func() { svc.Stop(5 * time.Second) })
	url := "http://127.0.0.1:" + itoa(port) + "/"
	if err := WaitReady(context.Background(), url, 90*time.Second, svc); err != nil {
		t.Fatal(err)
	}
	pid := FindJVM(hostfs.Live(), svc.Cmd.Process.Pid)
	if pid == 0 || pid == svc.Cmd.Process.Pid {
		t.Fatalf("JVM not found under the shell %d: %d", svc.Cmd.Process.Pid, pid)
	}
	svc.Stop(5 * time.Second)
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
