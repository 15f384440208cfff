package sample

// /proc/net/tcp and /proc/net/tcp6 (of the target's network namespace, see
// tcp.go), rows read by ParseSocketLine (sockets.go, which opens with
// sample lines). Off by default: the kernel walks every socket under the
// hash locks to produce the tables, which on a host with 100k connections
// costs tens of ms. For a LISTEN socket rx_queue is the accept queue length
// (connections the application has not accept()ed yet).

import "sort"

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

type tcpStatesSampler struct {
	env *Env
	ns  netNS
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
		e := p.env.r.stream(path, func(line []byte) { c.line(line, ts) })
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

// tcpCounter counts /proc/net/tcp rows one line at a time.
type tcpCounter struct {
	n   int
	err error
}

func (c *tcpCounter) line(line []byte, ts *TCPStates) {
	c.n++
	r, row, err := ParseSocketLine(line)
	if err != nil {
		firstErr(&c.err, badLine(c.n, line, textOf(err)))
		return
	}
	if !row {
		return
	}
	ts.States[r.State]++
	if r.State == "LISTEN" {
		ts.Listen = append(ts.Listen, ListenQueue{Port: int(r.Local.Port()), Queue: r.RxQueue})
	}
}

// parseTCPStates parses a whole /proc/net/tcp (tests, fuzzing).
func parseTCPStates(b []byte, ts *TCPStates) error {
	var c tcpCounter
	l := lines{b: b}
	for l.next() {
		c.line(l.line, ts)
	}
	return c.err
}
