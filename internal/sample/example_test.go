package sample_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// The loop `tuneloop record` runs: one Collector, two Snapshots used in
// turn (no garbage per tick), one JSON line per tick to raw/samples.jsonl.gz,
// Delta between consecutive ticks for anything live (a progress line).
func Example_record() {
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	c, err := sample.New(hostfs.Live(), sample.Options{PID: os.Getpid()})
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := sample.NewEncoder(io.Discard) // the run folder's raw/samples.jsonl.gz (through gzip)
	var snaps [2]sample.Snapshot
	tick := time.NewTicker(200 * time.Millisecond) // time.Second in production
	defer tick.Stop()
	prev := c.Collect(time.Now(), &snaps[0])
	_ = enc.Encode(prev)
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			fmt.Println("threads sampled:", prev.OK("threads"))
			return
		case now := <-tick.C:
			cur := c.Collect(now, &snaps[i%2])
			_ = enc.Encode(cur)
			if r, err := sample.Delta(prev, cur); err == nil && r.Threads != nil && len(r.Threads.Threads) > 0 {
				top := r.Threads.Threads[0]
				_ = fmt.Sprintf("top thread nid=0x%x %s %.0f%%", top.TID, top.Name, top.CPUPct)
			}
			prev = cur
		}
	}
	// Output: threads sampled: true
}
