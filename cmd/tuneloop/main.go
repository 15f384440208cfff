// Command tuneloop is the single binary: see `tuneloop --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/tuneloop/tuneloop/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks the command to stop and keep what it has; once
	// it is caught the default comes back, so a second one ends the process
	// even in a step that finishes its work regardless (a partial report).
	go func() { <-ctx.Done(); stop() }()
	env := cli.OSEnv()
	err := cli.NewRoot(env).ExecuteContext(ctx)
	stop()
	os.Exit(cli.Code(env, err))
}
