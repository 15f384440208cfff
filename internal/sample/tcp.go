package sample

// /proc/net/snmp and /proc/net/netstat: protocol counters as pairs of lines,
// names then values, for the host's network namespace (the recorder's). And
// /proc/net/sockstat for TIME_WAIT and socket counts. Samples:
//
//	Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
//	Tcp: 1 200 120000 -1 32 2 0 0 0 2860 2762 0 0 6 0
//	TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled RcvPruned OfoPruned OutOfWindowIcmps LockDroppedIcmps ArpFilter TW ...
//	TcpExt: 0 0 0 0 0 0 0 0 0 0 28 ...
//	TCP: inuse 1 orphan 0 tw 3 alloc 1 mem 120
//
// With a target process the files are read under /proc/PID/net, which is
// the target's network namespace: a JVM in a container is seen from inside
// its pod (ListenOverflows of its own listen socket), and it is the host's
// namespace otherwise. If the target exits, the host's /proc/net is read.
//
// TIME_WAIT comes from sockstat's tw (O(1), covers IPv4 and IPv6) instead of
// counting state 06 lines of /proc/net/tcp{,6}, which costs a walk of every
// socket under the socket hash locks on a host with 100k connections.

import (
	"path/filepath"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// TCP holds selected protocol counters ("Tcp.RetransSegs",
// "TcpExt.ListenDrops", "Udp.RcvbufErrors") and sockstat gauges.
type TCP struct {
	Src      string            `json:"src"` // /proc/net or /proc/PID/net
	Counters map[string]uint64 `json:"c"`
	InUse    uint64            `json:"inuse"`  // TCP sockets in use (IPv4; sockstat6 has IPv6)
	Orphan   uint64            `json:"orphan"` // not attached to a file
	TimeWait uint64            `json:"tw"`     // TIME_WAIT, v4 and v6
	Alloc    uint64            `json:"alloc"`  // allocated TCP sockets
	MemPages uint64            `json:"mem"`    // pages used by TCP buffers (compare net.ipv4.tcp_mem)
}

// snmpKeep lists the counters kept, per protocol line.
var snmpKeep = map[string][]string{
	"Ip":  {"InDiscards", "OutDiscards", "InReceives", "OutRequests"},
	"Tcp": {"ActiveOpens", "PassiveOpens", "AttemptFails", "EstabResets", "CurrEstab", "InSegs", "OutSegs", "RetransSegs", "InErrs", "OutRsts", "InCsumErrors"},
	"Udp": {"InDatagrams", "NoPorts", "InErrors", "OutDatagrams", "RcvbufErrors", "SndbufErrors"},
	"TcpExt": {"ListenOverflows", "ListenDrops", "TCPTimeouts", "TCPLostRetransmit", "TCPFastRetrans", "TCPSlowStartRetrans",
		"TCPSynRetrans", "TCPRetransFail", "TCPSpuriousRTOs", "TCPAbortOnData", "TCPAbortOnClose", "TCPAbortOnMemory",
		"TCPAbortOnTimeout", "TCPAbortOnLinger", "TCPAbortFailed", "TCPBacklogDrop", "TCPRcvQDrop", "TCPZeroWindowDrop",
		"TCPReqQFullDrop", "TCPReqQFullDoCookies", "SyncookiesSent", "SyncookiesRecv", "SyncookiesFailed", "PruneCalled",
		"RcvPruned", "OfoPruned", "TCPMemoryPressures", "TCPOFODrop", "TW", "TWKilled", "TWRecycled", "EmbryonicRsts",
		"TCPDeferAcceptDrop", "TCPKeepAlive", "TCPRcvCollapsed", "TCPWantZeroWindowAdv", "TCPToZeroWindowAdv", "TCPFromZeroWindowAdv",
		// Delayed ACKs sent: one per request at ~40 ms latency is the delayed-ACK/Nagle stall.
		"DelayedACKs", "DelayedACKLocked", "DelayedACKLost"},
}

type tcpSampler struct {
	env  *Env
	ns   netNS
	sc   scratch
	keep map[string]map[string]bool
}

func newTCPSampler(env *Env) (Sampler, error) {
	return &tcpSampler{env: env, ns: newNetNS(env), keep: keepSet()}, nil
}

// netNS picks /proc/PID/net (the target's namespace) or /proc/net.
type netNS struct {
	env      *Env
	pid, def string
	gone     bool
}

func newNetNS(env *Env) netNS {
	n := netNS{env: env, def: env.FS.ProcPath("net")}
	if env.PID > 0 {
		n.pid = env.FS.ProcPath(strconv.Itoa(env.PID), "net")
	}
	return n
}

// read reads file from the target's namespace, falling back for good to
// the host's when the target is gone.
func (n *netNS) read(file string) (b []byte, dir string, err error) {
	if n.pid != "" && !n.gone {
		b, err = n.env.r.file(n.env.FS, filepath.Join(n.pid, file))
		if err == nil || !isGone(err) {
			return b, n.pid, err
		}
		n.gone = true
	}
	b, err = n.env.r.file(n.env.FS, filepath.Join(n.def, file))
	return b, n.def, err
}

func keepSet() map[string]map[string]bool {
	k := map[string]map[string]bool{}
	for proto, names := range snmpKeep {
		k[proto] = map[string]bool{}
		for _, n := range names {
			k[proto][n] = true
		}
	}
	return k
}

func (p *tcpSampler) Sample(s *Snapshot) error {
	b, dir, err := p.ns.read("snmp")
	if err != nil {
		return err
	}
	t := &TCP{Src: p.env.FS.Display(dir), Counters: make(map[string]uint64, 64)}
	err = parseSnmp(b, t.Counters, p.keep, &p.sc)
	if b, _, e := p.ns.read("netstat"); e != nil {
		firstErr(&err, partial{e})
	} else {
		firstErr(&err, parseSnmp(b, t.Counters, p.keep, &p.sc))
	}
	if b, _, e := p.ns.read("sockstat"); e != nil {
		firstErr(&err, partial{e})
	} else {
		firstErr(&err, parseSockstat(b, t, &p.sc))
	}
	s.TCP = t
	return err
}

// parseSnmp reads name/value line pairs ("Proto: names" then "Proto:
// values") into m as "Proto.Name", keeping those in keep (nil keeps all).
func parseSnmp(b []byte, m map[string]uint64, keep map[string]map[string]bool, sc *scratch) (err error) {
	l := lines{b: b}
	var names [][]byte
	var nameBuf []byte
	var key []byte
	for l.next() {
		if len(trimSpace(l.line)) == 0 {
			continue
		}
		proto, rest, ok := cut(l.line, ':')
		if !ok {
			firstErr(&err, badLine(l.n, l.line, finding.T("no colon", "没有冒号")))
			continue
		}
		// Header line: copy the names (the field slice is reused).
		hdr := l.n
		nameBuf = append(nameBuf[:0], rest...)
		names = fields(nameBuf, names)
		if !l.next() {
			firstErr(&err, badLine(hdr, l.line, finding.T("header without values", "只有表头没有数值")))
			break
		}
		vproto, vrest, ok := cut(l.line, ':')
		if !ok || string(vproto) != string(proto) {
			firstErr(&err, badLine(l.n, l.line, finding.T("values line does not follow its header", "数值行没有紧跟其表头")))
			continue
		}
		vals := sc.fields(vrest)
		if len(vals) != len(names) {
			firstErr(&err, badLine(l.n, l.line, finding.T("value count differs from header", "数值个数与表头不一致")))
			continue
		}
		var want map[string]bool
		if keep != nil {
			if want = keep[string(proto)]; want == nil {
				continue
			}
		}
		for i, n := range names {
			if want != nil && !want[string(n)] {
				continue
			}
			v, ok := atou(vals[i])
			if !ok {
				if _, neg := atoi(vals[i]); !neg {
					firstErr(&err, badLine(l.n, l.line, finding.Tf(finding.T("bad value for %s", "%s 的值无效"), string(n))))
				}
				continue // signed fields (MaxConn -1) are not counters
			}
			key = append(append(append(key[:0], proto...), '.'), n...)
			m[sc.intern(key)] = v
		}
	}
	return err
}

// parseSockstat reads the TCP line of /proc/net/sockstat.
func parseSockstat(b []byte, t *TCP, sc *scratch) error {
	l := lines{b: b}
	for l.next() {
		name, rest, ok := cut(l.line, ':')
		if !ok || string(name) != "TCP" {
			continue
		}
		f := sc.fields(rest)
		if len(f)%2 != 0 {
			return badLine(l.n, l.line, finding.T("want name value pairs", "应为成对的名称与数值"))
		}
		for i := 0; i+1 < len(f); i += 2 {
			v, ok := atou(f[i+1])
			if !ok {
				return badLine(l.n, l.line, finding.T("bad value", "值无效"))
			}
			switch string(f[i]) {
			case "inuse":
				t.InUse = v
			case "orphan":
				t.Orphan = v
			case "tw":
				t.TimeWait = v
			case "alloc":
				t.Alloc = v
			case "mem":
				t.MemPages = v
			}
		}
		return nil
	}
	return badLine(0, nil, finding.T("no TCP line", "没有 TCP 行"))
}
