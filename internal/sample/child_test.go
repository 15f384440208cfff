package sample

import (
	"os"
	"testing"

	"github.com/tuneloop/tuneloop/internal/testchild"
)

// The test binary doubles as the target process (see testchild): "idle=500,busy=1"
// gives 500 sleeping threads and one spinning thread.
func TestMain(m *testing.M) {
	testchild.Serve()
	os.Exit(m.Run())
}

// startChild runs the test binary as a target with the given threads.
func startChild(tb testing.TB, spec string) *testchild.Child { return testchild.Start(tb, spec, 2) }
