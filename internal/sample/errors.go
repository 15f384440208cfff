package sample

import "syscall"

// unavailable is an ErrUnavailable with its reason.
type unavailable struct{ what string }

func (e *unavailable) Error() string { return e.what }
func (e *unavailable) Unwrap() error { return ErrUnavailable }

// partial wraps an error from a sampler that still filled most of its part
// (one NUMA node or disk unreadable): the tick is "failed" with the reason,
// and the data that was read is kept.
type partial struct{ err error }

func (e partial) Error() string { return "partly read: " + e.err.Error() }
func (e partial) Unwrap() error { return e.err }

var errNotSupp error = syscall.EOPNOTSUPP
