package launch

import (
	"os/signal"
	"syscall"
)

// signalIgnore keeps the watchdog alive through SIGINT, SIGTERM and SIGHUP
// meant for the run.
func signalIgnore() { signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT) }
