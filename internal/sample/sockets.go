package sample

// /proc/net/tcp and /proc/net/tcp6 (or /proc/PID/net/..., the process's
// network namespace): one row per socket. Addresses are hex with each
// 32-bit word in host order (little-endian on amd64 and arm64), the port
// big-endian hex; st is the state in hex, the queues are hex, the inode
// decimal. Samples (the third is tcp6, ::1 port 8080):
//
//	  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
//	   0: 0100007F:1F90 00000000:0000 0A 00000000:00000005 00:00000000 00000000     0        0 1602 1 000000008ee499c8 100 0 0 10 0
//	   1: 020200C0:87A8 507100CB:01BB 06 00000000:00000000 03:0000019B 00000000     0        0 0 3 00000000e7d90d95
//	   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5561 1 ...
//
// States: 01 ESTABLISHED 02 SYN_SENT 03 SYN_RECV 04 FIN_WAIT1 05 FIN_WAIT2
// 06 TIME_WAIT 07 CLOSE 08 CLOSE_WAIT 09 LAST_ACK 0A LISTEN 0B CLOSING
// 0C NEW_SYN_RECV. For a LISTEN socket rx_queue is the accept queue.
//
// ParseSocketLine is the one reader of a row: the tcpstates sampler, the
// run folder's socket snapshots (sysinfo writes them, verdict reads them)
// and JMeter's engine accounting (jmeter) all go through it.

import (
	"net/netip"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Socket is one row of /proc/net/tcp or tcp6.
type Socket struct {
	Local, Remote netip.AddrPort
	State         string // ESTABLISHED, LISTEN, ... (never empty)
	TxQueue       uint64 // bytes not yet acknowledged by the peer
	RxQueue       uint64 // bytes not yet read by the application (LISTEN: the accept queue)
	Inode         uint64
}

var tcpStateNames = [...]string{"", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
	"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV"}

// maxSocketRows bounds one table read whole: a host with a million sockets
// is read in part, and the error says so.
const maxSocketRows = 1 << 20

// ParseNetTCP reads a whole /proc/net/tcp or tcp6 table, or several
// tables one after the other (a header line, "sl ...", may stand anywhere).
// A bad row is skipped and the first one reported as an ErrParse naming its
// line; the other rows are kept.
func ParseNetTCP(b []byte) ([]Socket, error) {
	var out []Socket
	var err error
	l := lines{b: b}
	for l.next() {
		s, row, e := ParseSocketLine(l.line)
		if e != nil {
			firstErr(&err, badLine(l.n, l.line, textOf(e)))
			continue
		}
		if !row {
			continue
		}
		if len(out) == maxSocketRows {
			firstErr(&err, badLine(l.n, nil, finding.T("more than 1048576 sockets, the rest not read", "套接字多于 1048576 个，其余未读取")))
			break
		}
		out = append(out, s)
	}
	return out, err
}

// What is wrong with a row (package variables: no allocation per row).
var (
	errSockFields = &finding.Error{Msg: finding.T("want at least 10 fields: sl local remote st queues tr retrnsmt uid timeout inode", "应至少有 10 个字段：sl local remote st queues tr retrnsmt uid timeout inode")}
	errSockLocal  = &finding.Error{Msg: finding.T("bad local address", "本地地址无效")}
	errSockRemote = &finding.Error{Msg: finding.T("bad remote address", "远端地址无效")}
	errSockState  = &finding.Error{Msg: finding.T("bad state", "状态无效")}
	errSockQueues = &finding.Error{Msg: finding.T("bad queues", "队列字段无效")}
	errSockTx     = &finding.Error{Msg: finding.T("bad tx_queue", "tx_queue 无效")}
	errSockRx     = &finding.Error{Msg: finding.T("bad rx_queue", "rx_queue 无效")}
	errSockInode  = &finding.Error{Msg: finding.T("bad inode", "inode 无效")}
)

// ParseSocketLine reads one row. row is false, with no error, for a header
// or blank line. It does not allocate. What it takes, the union of the
// three readers it replaced: the state as 1 or 2 hex digits (or more with
// leading zeros) of either case, any hex port up to FFFF, an address of 8
// (IPv4) or 32 (IPv6) hex digits; at least 10 fields (the inode is the
// tenth).
func ParseSocketLine(line []byte) (s Socket, row bool, err error) {
	var f [10][]byte
	n := 0
	for i := 0; i < len(line) && n < len(f); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			f[n] = line[i:j]
			n++
		}
		i = j
	}
	if n == 0 || string(f[0]) == "sl" {
		return s, false, nil
	}
	if n < len(f) {
		return s, true, errSockFields
	}
	var ok bool
	if s.Local, ok = hexAddrPort(f[1]); !ok {
		return s, true, errSockLocal
	}
	if s.Remote, ok = hexAddrPort(f[2]); !ok {
		return s, true, errSockRemote
	}
	st, ok := units.ParseHex(f[3])
	if !ok || st == 0 || st >= uint64(len(tcpStateNames)) {
		return s, true, errSockState
	}
	s.State = tcpStateNames[st]
	tx, rx, ok := cut(f[4], ':')
	if !ok {
		return s, true, errSockQueues
	}
	if s.TxQueue, ok = units.ParseHex(tx); !ok {
		return s, true, errSockTx
	}
	if s.RxQueue, ok = units.ParseHex(rx); !ok {
		return s, true, errSockRx
	}
	if s.Inode, ok = atou(f[9]); !ok {
		return s, true, errSockInode
	}
	return s, true, nil
}

// hexAddrPort reads "0100007F:1F90" or a 32-digit IPv6 address and its
// port. An IPv4-mapped IPv6 address is returned as IPv4.
func hexAddrPort(b []byte) (netip.AddrPort, bool) {
	a, p, ok := cutLast(b, ':')
	if !ok || (len(a) != 8 && len(a) != 32) {
		return netip.AddrPort{}, false
	}
	port, ok := units.ParseHex(p)
	if !ok || port > 0xFFFF {
		return netip.AddrPort{}, false
	}
	var ip [16]byte
	for w := 0; w < len(a)/8; w++ {
		v, ok := units.ParseHex(a[w*8 : w*8+8])
		if !ok {
			return netip.AddrPort{}, false
		}
		// The kernel prints each 32-bit word as a host-order integer.
		ip[w*4], ip[w*4+1], ip[w*4+2], ip[w*4+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	var addr netip.Addr
	if len(a) == 8 {
		addr = netip.AddrFrom4([4]byte(ip[:4]))
	} else {
		addr = netip.AddrFrom16(ip).Unmap()
	}
	return netip.AddrPortFrom(addr, uint16(port)), true
}

// cutLast splits b at the last sep.
func cutLast(b []byte, sep byte) (before, after []byte, found bool) {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}
