package attach

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// TestDumpOfKilledJVM: a JVM killed with SIGKILL while it is being dumped
// is reported as a JVM that exited, never as "permission denied ... run as
// root" (what a connection cut without a reply used to mean here).
func TestDumpOfKilledJVM(t *testing.T) {
	j := startJVM(t, "java", nil, nil)
	vm, err := Attach(j.pid, Options{Method: Socket})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = syscall.Kill(j.pid, syscall.SIGKILL)
	}()
	var last error
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := vm.ThreadPrint(ctx)
		cancel()
		if err != nil {
			last = err
			break
		}
	}
	if last == nil {
		t.Fatal("the dumps went on after SIGKILL")
	}
	if errors.Is(last, ErrPermission) || strings.Contains(last.Error(), "as root") || !errors.Is(last, ErrNoSuchProcess) {
		t.Fatalf("got %v, want the JVM named as exited", last)
	}
	var ae *Error
	if errors.As(last, &ae) && !strings.Contains(ae.Message(finding.EN), "exited") {
		t.Errorf("message: %s", ae.Message(finding.EN))
	}
}
