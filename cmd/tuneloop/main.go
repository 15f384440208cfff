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
	env := cli.OSEnv()
	err := cli.NewRoot(env).ExecuteContext(ctx)
	stop()
	os.Exit(cli.Code(env, err))
}
