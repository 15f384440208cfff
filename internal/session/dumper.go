package session

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// When a dump shows a contended lock changing hands, the dumper takes up to
// lookAgain more, lookAgainAfter apart, into the same file (the analysis
// reads each): on a saturated host the woken owner of a short critical
// section waits for a CPU, and every dump can catch that instead of the
// work it does under the lock.
const (
	lookAgain      = 2
	lookAgainAfter = 50 * time.Millisecond
)

// dumper takes JVM thread dumps in the background during a run, one at a
// time, so sampling goes on while the JVM writes a dump.
type dumper struct {
	pid   int
	n     int
	every time.Duration
	next  time.Time
	w     *runfolder.Writer
	taken int

	busy atomic.Bool // a dump is in progress
	stop atomic.Bool // attaching failed: no more attempts
	wg   sync.WaitGroup
	vm   *attach.VM // used by one dump goroutine at a time (busy)

	mu    sync.Mutex
	files []string
	err   string
}

func (d *dumper) maybe(ctx context.Context, now time.Time) {
	if d.taken >= d.n || now.Before(d.next) || d.stop.Load() || d.busy.Load() {
		return
	}
	d.taken++
	d.next = d.next.Add(d.every)
	d.busy.Store(true)
	d.wg.Add(1)
	go func(k int) {
		defer d.wg.Done()
		defer d.busy.Store(false)
		if err := d.take(ctx, k); err != nil {
			d.stop.Store(true)
			d.mu.Lock()
			d.err = err.Error()
			d.mu.Unlock()
		}
	}(d.taken)
}

// take writes dump k (with its looks again) to raw/.
func (d *dumper) take(ctx context.Context, k int) error {
	if d.vm == nil {
		vm, err := attach.AttachContext(ctx, d.pid, attach.Options{Timeout: 5 * time.Second})
		if err != nil {
			return err
		}
		d.vm = vm
	}
	out, err := d.vm.ThreadPrint(ctx)
	if err != nil {
		return err
	}
	// A contended lock caught changing hands says nothing of what its
	// holder does: look again, a moment later, into the same file.
	last := out
	for range lookAgain {
		if !threaddump.HolderUnseen(last) || d.stop.Load() {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(lookAgainAfter):
		}
		if ctx.Err() != nil {
			break
		}
		if last, err = d.vm.ThreadPrint(ctx); err != nil {
			break // the dump taken stands
		}
		out += "\n" + last
	}
	name := runfolder.ThreadDumpPrefix + strconv.Itoa(k) + ".txt"
	if err := d.w.SaveRaw(name, []byte(out)); err != nil {
		return err
	}
	files := []string{name}
	// The target's TCP sockets at the same moment: a dump shows threads in
	// socket reads but not whom they read from.
	if b := sysinfo.ProcessSockets("/proc/" + strconv.Itoa(d.pid)); len(b) > 0 {
		sname := verdict.SocketsPrefix + strconv.Itoa(k) + ".txt"
		if err := d.w.SaveRaw(sname, b); err == nil {
			files = append(files, sname)
		}
	}
	d.mu.Lock()
	d.files = append(d.files, files...)
	d.mu.Unlock()
	return nil
}

// finish waits for a dump in progress and notes the files (or why there
// are none) in the manifest.
func (d *dumper) finish(m *runfolder.Manifest) {
	d.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	m.Raw = append(m.Raw, d.files...)
	if d.err != "" {
		if m.Unavailable == nil {
			m.Unavailable = map[string]string{}
		}
		m.Unavailable["threaddump"] = d.err
	}
}
