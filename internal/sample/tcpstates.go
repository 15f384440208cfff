package sample

// /proc/net/tcp and /proc/net/tcp6 (of the target's network namespace, see
// tcp.go): one line per socket; st is the state in hex. Off by default: the
// kernel walks every socket under the hash locks to produce it, which on a
// host with 100k connections costs tens of ms. Sample:
//
//	  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
//	   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1602 1 000000008ee499c8 100 0 0 10 0
//	   1: 020200C0:87A8 507100CB:01BB 06 00000000:00000000 03:0000019B 00000000     0        0 0 3 00000000e7d90d95
//
// States: 01 ESTABLISHED 02 SYN_SENT 03 SYN_RECV 04 FIN_WAIT1 05 FIN_WAIT2
// 06 TIME_WAIT 07 CLOSE 08 CLOSE_WAIT 09 LAST_ACK 0A LISTEN 0B CLOSING
// 0C NEW_SYN_RECV. For a LISTEN socket rx_queue is the accept queue length
// (connections the application has not accept()ed yet).

import (
	"sort"

	"github.com/tuneloop/tuneloop/internal/units"
)

// TCPStates counts sockets per state (IPv4 and IPv6 together) and the
// accept queue of every listening port.
type TCPStates struct {
	Src    string            `json:"src"`
	States map[string]uint64 `json:"states"` // ESTABLISHED, CLOSE_WAIT, ...
	Listen []ListenQueue     `json:"listen,omitempty"`
}

// ListenQueue is one listening socket's accept queue.
type ListenQueue struct {
	Port  int    `json:"port"`
	Queue uint64 `json:"q"` // connections waiting for accept()
}

var tcpStateNames = [...]string{"", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
	"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV"}

type tcpStatesSampler struct {
	env *Env
	ns  netNS
	sc  scratch
}

func newTCPStatesSampler(env *Env) (Sampler, error) {
	return &tcpStatesSampler{env: env, ns: newNetNS(env)}, nil
}

func (p *tcpStatesSampler) Sample(s *Snapshot) error {
	ts := &TCPStates{States: map[string]uint64{}}
	var err error
	for _, f := range [...]string{"tcp", "tcp6"} {
		dir := p.ns.def
		if p.ns.pid != "" && !p.ns.gone {
			dir = p.ns.pid
		}
		path := dir + "/" + f
		var c tcpCounter
		e := p.env.r.stream(path, func(line []byte) { c.line(line, ts, &p.sc) })
		if e != nil {
			if isGone(e) && dir == p.ns.pid {
				p.ns.gone = true // target exited: the host's from next tick
			}
			if f == "tcp6" && isGone(e) {
				continue // kernel without IPv6
			}
			return &pathError{p.env.FS.Display(path), e}
		}
		ts.Src = p.env.FS.Display(dir)
		firstErr(&err, c.err)
	}
	sort.Slice(ts.Listen, func(i, j int) bool { return ts.Listen[i].Port < ts.Listen[j].Port })
	s.TCPStates = ts
	return err
}

// tcpCounter parses /proc/net/tcp lines one at a time.
type tcpCounter struct {
	n   int
	err error
}

func (c *tcpCounter) line(line []byte, ts *TCPStates, sc *scratch) {
	c.n++
	if c.n == 1 {
		return // header
	}
	f := sc.fields(line)
	if len(f) == 0 {
		return
	}
	if len(f) < 5 || len(f[3]) != 2 {
		firstErr(&c.err, badLine(c.n, line, "want sl local remote st queues"))
		return
	}
	st, ok := units.ParseHex(f[3])
	if !ok || st == 0 || int(st) >= len(tcpStateNames) {
		firstErr(&c.err, badLine(c.n, line, "bad state"))
		return
	}
	ts.States[tcpStateNames[st]]++
	if st != 0x0A {
		return
	}
	_, port, ok1 := cutLast(f[1], ':')
	_, rxq, ok2 := cut(f[4], ':')
	pv, ok3 := units.ParseHex(port)
	qv, ok4 := units.ParseHex(rxq)
	if !ok1 || !ok2 || !ok3 || !ok4 || pv > 65535 {
		firstErr(&c.err, badLine(c.n, line, "bad listen address or queue"))
		return
	}
	ts.Listen = append(ts.Listen, ListenQueue{Port: int(pv), Queue: qv})
}

// parseTCPStates parses a whole /proc/net/tcp (tests, fuzzing).
func parseTCPStates(b []byte, ts *TCPStates, sc *scratch) error {
	var c tcpCounter
	l := lines{b: b}
	for l.next() {
		c.line(l.line, ts, sc)
	}
	return c.err
}

func cutLast(b []byte, sep byte) (before, after []byte, found bool) {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}
