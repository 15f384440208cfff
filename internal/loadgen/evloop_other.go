//go:build !linux

package loadgen

// The event loop is Linux-only (epoll); elsewhere the goroutine client runs.

import "context"

type evloop struct{}

func (r *runner) evloopOK() bool { return false }

func (r *runner) preconnectEvloops(context.Context) {}

func (r *runner) runEvloops() { panic("event loop on a non-Linux system") }
