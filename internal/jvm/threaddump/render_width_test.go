package threaddump

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// The pool table in Chinese: a pool named in Chinese takes two columns a
// character, and its counts still start in the same column as the others'.
func TestPoolTableAlignedByDisplayWidth(t *testing.T) {
	var src strings.Builder
	src.WriteString("2026-11-25 20:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):\n\n")
	n := 0
	thread := func(name, state, top string) {
		n++
		fmt.Fprintf(&src, "\"%s\" #%d prio=5 os_prio=0 tid=0x%x nid=0x%x waiting on condition\n   java.lang.Thread.State: %s\n\tat %s\n\tat java.lang.Thread.run(Thread.java:833)\n\n",
			name, n, n, n, state, top)
	}
	for i := 1; i <= 3; i++ {
		thread(fmt.Sprintf("订单处理线程-%d", i), "RUNNABLE", "com.example.Orders.handle(Orders.java:10)")
		thread(fmt.Sprintf("http-nio-8080-exec-%d", i), "RUNNABLE", "com.example.Web.handle(Web.java:20)")
		thread(fmt.Sprintf("ｆｕｌｌ-pool-%d", i), "RUNNABLE", "com.example.Full.handle(Full.java:30)")
	}
	ds, err := ParseText(strings.NewReader(src.String()))
	if err != nil || len(ds) != 1 {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteText(&b, setOf([]*Report{Analyze(ds[0])}), finding.ZH); err != nil {
		t.Fatal(err)
	}
	var rows []string
	in := false
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "线程池"):
			in = true
		case in && strings.HasPrefix(l, "  \""):
			rows = append(rows, l)
		case in:
			in = false
		}
	}
	if len(rows) != 3 {
		t.Fatalf("want 3 pool rows, got %d:\n%s", len(rows), b.String())
	}
	col := -1
	for _, r := range rows {
		// The display column where the first count ends: after the
		// name's closing quote, its padding and the number.
		q := strings.LastIndex(r, "\"") + 1
		i := strings.Index(r[q:], " 线程 ")
		if i < 0 {
			t.Fatalf("row %q", r)
		}
		got := finding.DisplayWidth(r[:q+i])
		if col == -1 {
			col = got
		}
		if got != col {
			t.Errorf("the counts of %s end at column %d, the first row's at %d:\n%s", r[2:q], got, col, strings.Join(rows, "\n"))
		}
	}
}
