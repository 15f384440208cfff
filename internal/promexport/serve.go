package promexport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves an exporter's /metrics until Close.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	err  chan error
	once sync.Once
	cerr error
}

// Serve listens on addr (host:port; port 0 picks a free one) and serves
// /metrics in the Prometheus text format, or OpenMetrics when the scraper
// asks for it.
func (e *Exporter) Serve(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--prometheus-listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "tuneloop: metrics at /metrics")
	})
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, err: make(chan error, 1)}
	go func() { s.err <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, letting a scrape in flight finish (a second at
// most); closing again returns the first result.
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.cerr = s.srv.Shutdown(ctx)
		if e := <-s.err; e != nil && !errors.Is(e, http.ErrServerClosed) {
			s.cerr = e
		}
	})
	return s.cerr
}
