package probe

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/testchild"
)

// TestRead16SumsEveryWord: the vector read sums exactly the blocks asked
// for (every word once, mod 2^64), nothing before or after them.
func TestRead16SumsEveryWord(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, blocks := range []int{0, 1, 2, 3, 7, 64, 1000, 65536} {
		// A guard word before and after the blocks, which must not count.
		w := make([]uint64, blocks*8+2)
		for i := range w {
			w[i] = r.Uint64()
		}
		var want uint64
		for _, v := range w[1 : 1+blocks*8] {
			want += v
		}
		if got := read16(&w[1], blocks); got != want {
			t.Errorf("%d blocks: sum %#x, want %#x", blocks, got, want)
		}
	}
}

// TestRead16Arm64UnderQemu runs the test above on the arm64 build under
// qemu-user (installed by .ci/run; skipped without it): the NEON loop is
// checked as the SSE2 one is.
func TestRead16Arm64UnderQemu(t *testing.T) {
	if runtime.GOARCH == "arm64" {
		t.Skip("the native test covers it")
	}
	qemu := testchild.Qemu(t)
	if testing.Short() {
		t.Skip("builds the arm64 test binary")
	}
	bin := filepath.Join(t.TempDir(), "probe-arm64.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c arm64: %v\n%s", err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, qemu, bin, "-test.run", "^TestRead16SumsEveryWord$", "-test.v").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRead16SumsEveryWord") {
		t.Fatalf("%s: %v\n%s", qemu, err, out)
	}
}
