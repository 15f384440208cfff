// Command workserver is the service of scripts/bench-gate.sh: an HTTP
// server that does a fixed amount of CPU work per request (-units rounds of
// an integer hash), so a 5% or 10% slowdown is injected exactly (-units
// 1050 against 1000) and, unlike a wall-clock spin, a busy neighbour slows
// it as it would slow a real service. -delay adds a fixed wait per request
// (a downstream call): a slowdown injected there is seen through the
// scheduler's noise only, not through the CPU share a busy host leaves.
package main

import (
	"flag"
	"log"
	"net/http"
	"strconv"
	"time"
)

// work is units rounds of 64 xorshift steps (about 0.1 us a round on a
// 2.5 GHz core); the result is written out so that it is not optimised away.
func work(units int, seed uint64) uint64 {
	x := seed | 1
	for range units {
		for range 64 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	return x
}

func main() {
	addr := flag.String("addr", "127.0.0.1:28500", "listen address")
	units := flag.Int("units", 2000, "CPU work per request, in rounds of 64 xorshift steps")
	delay := flag.Duration("delay", 0, "wait this long per request (after the work)")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if *delay > 0 {
			defer time.Sleep(*delay)
		}
		x := work(*units, uint64(len(r.URL.Path)))
		w.Write([]byte(strconv.FormatUint(x&0xff, 10) + "\n"))
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
