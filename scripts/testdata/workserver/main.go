// Command workserver is the service of scripts/bench-gate.sh: an HTTP
// server that spends a fixed CPU time per request (-work-us), so a 5% or
// 10% slowdown can be injected exactly (-work-us 210 against 200).
package main

import (
	"flag"
	"log"
	"net/http"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:28500", "listen address")
	work := flag.Duration("work", 200*time.Microsecond, "CPU time spun per request")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		end := time.Now().Add(*work)
		x := 0
		for time.Now().Before(end) {
			x++
		}
		_ = x
		w.Write([]byte("ok\n"))
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
