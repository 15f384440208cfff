package sysinfo

// A process's TCP connections: /proc/PID/net/tcp and tcp6 list every socket
// of its network namespace; the process's own are those whose inode is the
// target of one of its /proc/PID/fd links ("socket:[1602]"). Sample lines
// (addresses are little-endian hex per 32-bit word, ports big-endian hex):
//
//	  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
//	   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1602 1 000000008ee499c8 100 0 0 10 0
//	   1: 0100007F:9C40 0100007F:A3B1 01 00000000:00000010 00:00000000 00000000     0        0 88413 1 00000000e7d90d95 20 4 30 10 -1
//	   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5561 1 ...

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Socket is one TCP socket.
type Socket struct {
	Local, Remote netip.AddrPort
	State         string // ESTABLISHED, LISTEN, ...
	TxQueue       uint64 // bytes not yet acknowledged by the peer
	RxQueue       uint64 // bytes not yet read by the application (LISTEN: the accept queue)
	Inode         uint64
}

var tcpStates = [...]string{"", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
	"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV"}

// maxSocketLines bounds one table (a host with a million sockets is read in
// part, and says so through the error).
const maxSocketLines = 1 << 20

// ParseNetTCP reads a /proc/net/tcp or tcp6 table. A line it cannot read
// is an error naming the line; the sockets read before it are returned.
func ParseNetTCP(r io.Reader) ([]Socket, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	var out []Socket
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if n == 1 && len(f) > 0 && f[0] == "sl" {
			continue
		}
		if len(f) == 0 {
			continue
		}
		if n > maxSocketLines {
			return out, fmt.Errorf("line %d: more than %d sockets, the rest not read", n, maxSocketLines)
		}
		s, err := parseSocketLine(f)
		if err != nil {
			return out, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseSocketLine(f []string) (Socket, error) {
	var s Socket
	if len(f) < 10 {
		return s, fmt.Errorf("%d fields, want at least 10", len(f))
	}
	var err error
	if s.Local, err = parseHexAddrPort(f[1]); err != nil {
		return s, err
	}
	if s.Remote, err = parseHexAddrPort(f[2]); err != nil {
		return s, err
	}
	st, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil || int(st) >= len(tcpStates) || st == 0 {
		return s, fmt.Errorf("state %q", f[3])
	}
	s.State = tcpStates[st]
	tx, rx, ok := strings.Cut(f[4], ":")
	if !ok {
		return s, fmt.Errorf("queues %q", f[4])
	}
	if s.TxQueue, err = strconv.ParseUint(tx, 16, 64); err != nil {
		return s, fmt.Errorf("tx_queue %q", tx)
	}
	if s.RxQueue, err = strconv.ParseUint(rx, 16, 64); err != nil {
		return s, fmt.Errorf("rx_queue %q", rx)
	}
	if s.Inode, err = strconv.ParseUint(f[9], 10, 64); err != nil {
		return s, fmt.Errorf("inode %q", f[9])
	}
	return s, nil
}

// parseHexAddrPort reads "0100007F:1F90" (IPv4) or a 32-digit IPv6 address:
// each 32-bit word in host (little-endian) order, the port big-endian.
func parseHexAddrPort(s string) (netip.AddrPort, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("address %q", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port %q", p)
	}
	b, err := hex.DecodeString(a)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q", a)
	}
	for i := 0; i+4 <= len(b); i += 4 { // each word little-endian
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), nil
}

// ParseSocketInodes reads the inodes of "socket:[N]" link targets, one per
// line (what tuneloop saves of /proc/PID/fd).
func ParseSocketInodes(r io.Reader) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if n, ok := strings.CutPrefix(t, "socket:["); ok {
			t = strings.TrimSuffix(n, "]")
		}
		if t == "" {
			continue
		}
		v, err := strconv.ParseUint(t, 10, 64)
		if err != nil {
			return out, fmt.Errorf("socket inode %q", t)
		}
		out[v] = true
	}
	return out, sc.Err()
}

// SocketLinks lists the "socket:[N]" targets of /proc/PID/fd, one per line,
// for the run folder (a thin read; nil when the process is gone).
func SocketLinks(procDir string) []byte {
	ents, err := os.ReadDir(procDir + "/fd")
	if err != nil {
		return nil
	}
	var b strings.Builder
	for _, e := range ents {
		if t, err := os.Readlink(procDir + "/fd/" + e.Name()); err == nil && strings.HasPrefix(t, "socket:[") {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// ProcessSockets keeps the lines of the process's /proc/PID/net/tcp and
// tcp6 (its network namespace's tables) whose inode is one of its own fds,
// in the kernel's format, header first: raw evidence for a run folder.
func ProcessSockets(procDir string) []byte {
	inodes, err := ParseSocketInodes(strings.NewReader(string(SocketLinks(procDir))))
	if err != nil || len(inodes) == 0 {
		return nil
	}
	var out strings.Builder
	for _, table := range []string{"/net/tcp", "/net/tcp6"} {
		b, err := os.ReadFile(procDir + table)
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if i == 0 {
				if out.Len() == 0 {
					out.WriteString(line + "\n")
				}
				continue
			}
			if len(f) >= 10 {
				if n, err := strconv.ParseUint(f[9], 10, 64); err == nil && inodes[n] {
					out.WriteString(line + "\n")
				}
			}
		}
	}
	return []byte(out.String())
}
