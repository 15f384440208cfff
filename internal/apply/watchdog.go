package apply

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// StartWatchdog starts argv (our own binary and its hidden watchdog
// subcommand) detached: a new session, stdio on /dev/null, not waited for,
// so it outlives this process and the SSH session that started it.
func StartWatchdog(argv []string) (int, error) {
	if len(argv) == 0 {
		return 0, errors.New("watchdog: no command")
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer null.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting the watchdog: %w", err)
	}
	pid := cmd.Process.Pid
	return pid, cmd.Process.Release()
}

// Arm records a dead-man timer for transaction id: start is called to start
// the watchdog (with the deadline) and its PID is journaled with it.
func Arm(j *Journal, id string, deadline time.Time, start func() (int, error)) error {
	unlock, err := j.lock()
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := j.read(id)
	if err != nil {
		return err
	}
	tf, err := j.reopen(id, recs)
	if err != nil {
		return err
	}
	defer tf.close()
	pid, err := start()
	if err != nil {
		return err
	}
	return tf.add(Record{Op: OpWatchdog, PID: pid, Deadline: deadline.UTC()})
}

// Confirm answers the dead-man timer of transaction id: the changes stay.
func Confirm(j *Journal, id string) error {
	unlock, err := j.lock()
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := j.read(id)
	if err != nil {
		return err
	}
	t := fold(id, recs)
	switch {
	case t.Deadline.IsZero():
		return finding.Errorf(finding.T("transaction %s has no dead-man timer (apply --confirm-within)", "事务 %s 没有设置自动回退计时（apply --confirm-within）"), id)
	case t.Expired:
		return finding.Errorf(finding.T("too late: transaction %s was reverted when its timer ran out", "为时已晚：事务 %s 已在计时结束时回退"), id)
	case t.Confirmed:
		return nil
	}
	tf, err := j.reopen(id, recs)
	if err != nil {
		return err
	}
	defer tf.close()
	return tf.add(Record{Op: OpConfirmed})
}

// Watch is the watchdog's body: wait until deadline (or ctx ends), then,
// unless the transaction was confirmed, revert it and record that the
// timer fired. Drift still stops it: a key someone else changed is left.
func Watch(ctx context.Context, j *Journal, id string, deadline time.Time) (*RevertResult, error) {
	for {
		recs, err := j.read(id)
		if err != nil {
			return nil, err
		}
		if fold(id, recs).Confirmed {
			return nil, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		if left > 500*time.Millisecond {
			left = 500 * time.Millisecond // look for a confirmation meanwhile
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(left):
		}
	}
	unlock, err := j.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	recs, err := j.read(id)
	if err != nil {
		return nil, err
	}
	if t := fold(id, recs); t.Confirmed || t.Expired {
		return nil, nil
	}
	res, err := revertLocked(j, RevertOptions{TxID: id})
	if err != nil {
		return res, err
	}
	recs, err = j.read(id)
	if err != nil {
		return res, err
	}
	tf, err := j.reopen(id, recs)
	if err != nil {
		return res, err
	}
	defer tf.close()
	return res, tf.add(Record{Op: OpExpired})
}
