package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// The net/http path, used when Config.HTTP2 is set: Go's client negotiates
// HTTP/2 over TLS when the server offers it (ALPN) and falls back to
// HTTP/1.1 otherwise. It allocates per request and tops out near 40k req/s
// per core, so the lean client stays the default.

func (r *runner) newStdClient(conns int) *http.Client {
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: r.cfg.Insecure}, //nolint:gosec // user's choice
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: conns,
		MaxIdleConns:        conns * max(len(r.targets), 1),
		DisableKeepAlives:   r.cfg.DisableKeepAlive,
		DisableCompression:  true, // measure what the server sends, as the lean client does
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a redirect is a response to measure, not to follow
	}}
}

// doStd is do over net/http. The request is built by parsing the lean
// client's wire bytes, so templates and variables behave identically.
func (w *worker) doStd(c *compiled, intended time.Time, measured bool) {
	r := w.r
	sendAt := time.Now()
	deadline := sendAt.Add(r.timeout)
	if !r.end.IsZero() && deadline.After(r.end) {
		deadline = r.end
	}
	var row []string
	if r.rows != nil {
		row = r.rows[(r.rowSeq.Add(1)-1)%uint64(len(r.rows))]
	}
	w.wbuf = c.render(w.wbuf[:0], &w.scratch, row)
	s := &w.sample
	*s = Sample{Label: c.label, Thread: w.id, URL: c.url, BytesOut: int64(len(w.wbuf))}

	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(w.wbuf)))
	var resp *http.Response
	// net/http may go on dialing in the background after the request took
	// another connection, so the trace callbacks lock.
	var tr struct {
		sync.Mutex
		connStart, firstByte time.Time
		connect              time.Duration
		gotConn              bool
	}
	setConnect := func() {
		tr.Lock()
		if !tr.connStart.IsZero() && !tr.gotConn {
			tr.connect = time.Since(tr.connStart)
		}
		tr.Unlock()
	}
	if err == nil {
		t := r.targets[c.target]
		req.RequestURI = ""
		req.URL.Scheme, req.URL.Host = "http", t.host
		if t.tls {
			req.URL.Scheme = "https"
		}
		ctx, cancel := context.WithDeadline(r.stopCtx, deadline)
		defer cancel()
		trace := &httptrace.ClientTrace{
			ConnectStart: func(string, string) {
				tr.Lock()
				if !tr.gotConn {
					tr.connStart = time.Now()
				}
				tr.Unlock()
			},
			ConnectDone:      func(string, string, error) { setConnect() },
			TLSHandshakeDone: func(tls.ConnectionState, error) { setConnect() },
			GotConn: func(httptrace.GotConnInfo) {
				tr.Lock()
				tr.gotConn = true
				tr.Unlock()
			},
			GotFirstResponseByte: func() {
				tr.Lock()
				tr.firstByte = time.Now()
				tr.Unlock()
			},
		}
		req = req.WithContext(httptrace.WithClientTrace(ctx, trace))
		resp, err = w.std.Do(req)
	}
	var body []byte
	var n int64
	if err == nil && resp != nil {
		limit := int64(0)
		if c.expBody != nil {
			limit = captureLimit
		}
		w.scratch = w.scratch[:0]
		buf := bytes.NewBuffer(w.scratch)
		var m int64
		m, err = io.Copy(buf, io.LimitReader(resp.Body, limit))
		n = m
		if err == nil {
			m, err = io.Copy(io.Discard, resp.Body)
			n += m
		}
		resp.Body.Close()
		body = buf.Bytes()
		w.scratch = body
	}
	done := time.Now()
	tr.Lock()
	firstByte, connect, gotConn := tr.firstByte, tr.connect, tr.gotConn
	tr.Unlock()
	w.noteDial(err == nil || gotConn)
	if err != nil && (r.stopped.Load() || (!r.end.IsZero() && !done.Before(r.end))) {
		if measured {
			w.shard.mu.Lock()
			w.shard.aborted++
			if !firstByte.IsZero() {
				w.shard.abortedInBody++
			}
			if r.open {
				w.shard.sent++
			}
			w.shard.mu.Unlock()
		}
		return
	}
	if !measured {
		w.shard.mu.Lock()
		w.shard.warmup++
		w.shard.mu.Unlock()
		return
	}
	s.Start, s.Elapsed, s.Connect = intended, done.Sub(intended), connect
	kind := KindNone
	if err != nil {
		kind = classify(err, !gotConn)
		s.Message = []byte(err.Error())
	} else {
		s.Code = resp.StatusCode
		s.Message = []byte(http.StatusText(resp.StatusCode))
		s.BytesIn = n
		if !firstByte.IsZero() {
			s.Latency = firstByte.Sub(intended)
		}
		kind = c.check(resp.StatusCode, body)
		switch kind {
		case KindAssertion:
			s.FailureMessage = c.failMsg
		case KindStatus:
			s.FailureMessage = c.statusMsg
		}
	}
	w.record(c, s, kind, sendAt, done)
	if resp != nil && resp.ProtoMajor == 2 {
		w.shard.mu.Lock()
		w.shard.h2++
		w.shard.mu.Unlock()
	}
}
