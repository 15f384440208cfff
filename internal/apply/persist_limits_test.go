package apply

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/units"
	"golang.org/x/sys/unix"
)

func TestUnitInCgroup(t *testing.T) {
	for in, want := range map[string]string{
		"0::/system.slice/app.service\n":                                             "app.service",
		"12:pids:/\n1:name=systemd:/system.slice/order-api.service\n0::/\n":          "order-api.service",
		"0::/user.slice/user-1000.slice/user@1000.service/app.slice/jetty.service\n": "jetty.service",
		"0::/user.slice/user-1000.slice/session-3.scope\n":                           "",
		"0::/\n": "",
		"9:name=systemd:/\n4:memory:/process_api/f89c\n0::/\n": "",
		"0::/system.slice/docker-4f3a.scope\n":                 "",
		"0::/system.slice/evil$(id).service\n":                 "", // not a plain unit name
	} {
		if got := unitInCgroup(in); got != want {
			t.Errorf("unitInCgroup(%q) = %q, want %q", in, got, want)
		}
	}
}

// A process limit applied to a live process persists as a drop-in of its
// service's unit, as its own transaction; reverting that removes the file
// and leaves the runtime limit; a process in no service's cgroup is told
// to give --unit.
func TestPersistLimitsAsDropin(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	var l unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &l); err != nil {
		t.Skip("prlimit:", err)
	}
	soft := l.Cur / 2
	etc := t.TempDir()
	roots := hostfs.FS{Proc: "/proc", Sys: t.TempDir(), Etc: etc}
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, NewPlan(roots, []Group{{Finding: "jvm.limits.nofile/pid", Changes: []finding.Change{
		{Kind: finding.ChangePrlimit, Key: fmt.Sprintf("%d/nofile", pid), Value: fmt.Sprintf("%d:%s", soft, units.FormatRlimit(l.Max))}}}}), Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	if unitInCgroupOf(t, pid) == "" {
		if _, err := PersistPlan(j, res.TxID, ""); err == nil || !strings.Contains(err.Error(), "--unit") {
			t.Errorf("a process in no service's cgroup: %v, want advice to give --unit", err)
		}
	}
	pp, err := PersistPlan(j, res.TxID, "order-api")
	if err != nil {
		t.Fatal(err)
	}
	pres, err := Apply(j, pp, Options{})
	if err != nil || pres.Applied() != 1 {
		t.Fatalf("persist: %v %+v", err, pres)
	}
	file := filepath.Join(etc, "systemd/system/order-api.service.d/50-tuneloop-limits.conf")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	hard := fmt.Sprint(l.Max)
	if l.Max == unix.RLIM_INFINITY {
		hard = "infinity"
	}
	if want := fmt.Sprintf("[Service]\nLimitNOFILE=%d:%s\n", soft, hard); !strings.Contains(string(b), want) {
		t.Errorf("drop-in:\n%s\nwant %q", b, want)
	}
	if rr, err := Revert(j, RevertOptions{TxID: pres.TxID}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert persist: %v %v", err, rr.Errs)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the drop-in is still there: %v", err)
	}
	var now unix.Rlimit
	unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &now)
	if now.Cur != soft {
		t.Errorf("the runtime limit went with the persistence: %+v", now)
	}
	if rr, err := Revert(j, RevertOptions{All: true}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert: %v %v", err, rr.Errs)
	}
}

func unitInCgroupOf(t *testing.T, pid int) string {
	u, _, err := unitOf(hostfs.Live(), pid)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
