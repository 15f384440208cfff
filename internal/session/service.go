package session

import (
	"context"
	"sync"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// serviceWatch notices the service under test ending during a run and
// stops the run at once: the load would otherwise keep hitting a dead port
// and the recorder keep sampling a host without it.
type serviceWatch struct {
	svc *launch.Service // nil: a service tuneloop did not start (--pid)
	pid int
	// loadStart is when the measured load began (zero: not yet); AtS is
	// counted from it.
	mu        sync.Mutex
	loadStart time.Time
	end       *runfolder.ServiceEnd
	stop      chan struct{}
	done      chan struct{}
}

// errServiceEnded is the cause the run's context is cancelled with.
type errServiceEnded struct{ end *runfolder.ServiceEnd }

func (e *errServiceEnded) Error() string { return serviceEndText(e.end).EN }

// serviceEndText is how the service ended, in one line.
func serviceEndText(se *runfolder.ServiceEnd) finding.Text {
	switch {
	case se.Hung:
		return finding.Tf(finding.T("the service stopped answering at %+.1f s of the load", "服务在负载的第 %+.1f 秒停止应答"), se.AtS)
	case se.ExitCode >= 0 && se.Signal != "":
		return finding.Tf(finding.T("the service exited with code %d (%s) at %+.1f s of the load", "服务在负载的第 %[3]+.1f 秒以退出码 %[1]d（%[2]s）退出"), se.ExitCode, se.Signal, se.AtS)
	case se.ExitCode >= 0:
		return finding.Tf(finding.T("the service exited with code %d at %+.1f s of the load", "服务在负载的第 %[2]+.1f 秒以退出码 %[1]d 退出"), se.ExitCode, se.AtS)
	}
	return finding.Tf(finding.T("the service (pid %d) exited at %+.1f s of the load", "服务（pid %d）在负载的第 %+.1f 秒退出"), se.PID, se.AtS)
}

// watchService polls every 50 ms until the service ends or stop is called;
// on its end it cancels the run with errServiceEnded.
func watchService(svc *launch.Service, pid int, cancel context.CancelCauseFunc) *serviceWatch {
	w := &serviceWatch{svc: svc, pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		var shellDone <-chan struct{}
		if svc != nil {
			shellDone = svc.Done()
		}
		for {
			select {
			case <-w.stop:
				return
			case <-shellDone:
			case <-t.C:
				if pid == 0 || launch.Alive(pid) {
					continue
				}
			}
			se := w.ended()
			cancel(&errServiceEnded{end: se})
			return
		}
	}()
	return w
}

// ended builds the record of the service's end: the shell's status (a
// shell that waited for its JVM reports 128+N for its death by signal N),
// when, and the last lines of its log.
func (w *serviceWatch) ended() *runfolder.ServiceEnd {
	now := time.Now()
	se := &runfolder.ServiceEnd{PID: w.pid, ExitCode: -1}
	if w.svc != nil {
		// The shell ends right after its JVM: wait a moment for its status.
		select {
		case <-w.svc.Done():
		case <-time.After(time.Second):
		}
		if code, sig, ok := w.svc.ExitStatus(); ok && (code != 0 || w.pid == 0 || w.pid == w.svc.Cmd.Process.Pid) {
			// A shell that ran on after its JVM (a script) and ended well
			// says nothing of how the JVM ended: unknown then.
			se.ExitCode, se.Signal = code, sig
		}
		se.LastLog = w.svc.LogLines(10)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.loadStart.IsZero() {
		se.AtS = now.Sub(w.loadStart).Seconds()
	}
	w.end = se
	return se
}

// loadStarted notes when the measured load began.
func (w *serviceWatch) loadStarted(t time.Time) {
	w.mu.Lock()
	w.loadStart = t
	w.mu.Unlock()
}

// close stops watching and returns how the service ended (nil: it did not).
func (w *serviceWatch) close() *runfolder.ServiceEnd {
	if w == nil {
		return nil
	}
	select {
	case <-w.done:
	default:
		close(w.stop)
		<-w.done
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.end
}

// gone reports whether the service has ended (without stopping the watch).
func (w *serviceWatch) gone() *runfolder.ServiceEnd {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.end
}
