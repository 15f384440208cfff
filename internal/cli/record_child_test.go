package cli

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/testchild"
)

// The test binary doubles as the processes the record tests watch (see
// testchild: "busy=N,idle=M,name=NAME"). With TUNELOOP_TEST_RECORD=DIR it
// is a recorder writing to DIR (the kill test).
func init() {
	testchild.Serve()
	if dir := os.Getenv("TUNELOOP_TEST_RECORD"); dir != "" {
		env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
		err := RunRecord(context.Background(), env, &RecordOptions{Duration: time.Minute, Interval: 100 * time.Millisecond,
			Out: dir, NoCatalog: true, Output: "text", Argv: []string{"tuneloop", "record"}})
		os.Exit(Code(env, err))
	}
}

// startTestChild runs the test binary as a target with the given threads.
func startTestChild(tb testing.TB, spec string, gomaxprocs int) *testchild.Child {
	return testchild.Start(tb, spec, gomaxprocs)
}
