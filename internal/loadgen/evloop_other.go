//go:build !linux

package loadgen

// The event loop is Linux-only (epoll); elsewhere the goroutine client runs.

func (r *runner) evloopOK() bool { return false }

func (r *runner) runEvloops() { panic("event loop on a non-Linux system") }
