package session

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Preconditions of `run`, checked before anything is started or switched
// on: a failure found after the warm-up costs the user the whole wait and
// leaves a started service behind.

// needFree is the free space a run folder needs: the samples, thread dumps,
// GC logs and the JFR profile (a few MB a minute), and the reports.
func needFree(d time.Duration) uint64 {
	return 32<<20 + uint64(d.Minutes()+1)*8<<20
}

// CheckSpace refuses a run folder whose file system has less free space
// than a run of duration d needs.
func CheckSpace(dir string, d time.Duration) error {
	p := dir
	for {
		if _, err := os.Stat(p); err == nil {
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(p, &st); err != nil {
		return nil // unknown: the writes will say
	}
	free := st.Bavail * uint64(st.Bsize)
	if need := needFree(d); free < need {
		return finding.Errorf(finding.T("--out %s: only %s free on its file system, a run of %s needs about %s: free some space or choose another --out",
			"--out %s：所在文件系统只剩 %s，%s 的运行大约需要 %s：请释放空间或换一个 --out"), dir, units.FormatBytes(int64(free)), d, units.FormatBytes(int64(need)))
	}
	return nil
}

// CheckPortFree refuses to --start a service when something already
// answers on the target's port: readiness and the load would measure that
// other process, and the new service would fail to bind.
func CheckPortFree(target string) error {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), time.Second)
	if err != nil {
		return nil
	}
	c.Close()
	return finding.Errorf(finding.T("--start: something already listens on %s before the service is started (an earlier instance still running?): stop it, or choose another port",
		"--start：在启动服务之前，%s 上已经有程序在监听（之前的实例仍在运行？）：请先停止它，或换一个端口"), net.JoinHostPort(host, port))
}
