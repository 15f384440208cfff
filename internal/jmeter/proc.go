// The CPU of JMeter's processes on this host, from /proc. Sample lines:
//
//	/proc/PID/stat:  11009 (java) S 1 11008 11008 0 -1 4194560 35190 0 3 0 512 34 0 0 39 19 47 0 ...
//	                 (utime 512 and stime 34 clock ticks: fields 14 and 15)
//	/proc/net/tcp:   1: 00000000:5E25 00000000:0000 0A 00000000:00000000 00:00000000 00000000  0  0 431265 1 ...
//	                 (a socket listening (0A) on port 0x5E25 = 24101, inode 431265)
//	/proc/PID/fd/151 -> socket:[431265]

package jmeter

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// userHZ is the kernel's USER_HZ, the unit of /proc/PID/stat's times: 100
// on every Linux architecture tuneloop is built for.
const userHZ = 100

// cpuTicks is a process's user+system time in clock ticks (false: gone or
// unreadable).
func cpuTicks(proc string, pid int) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	return parseStatTicks(b)
}

// parseStatTicks reads utime+stime from a /proc/PID/stat line; the comm in
// parentheses may hold spaces and parentheses itself.
func parseStatTicks(b []byte) (uint64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return u + s, true
}

// IsLocal reports a host that is this one: a loopback or one of this
// host's addresses, "localhost", or this host's name. No name is resolved.
func IsLocal(host string) bool {
	if host == "localhost" {
		return true
	}
	if name, err := os.Hostname(); err == nil && strings.EqualFold(host, name) {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// ListenerPID is the process on this host listening on TCP port (a
// jmeter-server's RMI registry), 0 when none is found (or it is another
// user's and not readable).
func ListenerPID(proc string, port int) int {
	inodes := map[string]bool{}
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		f, err := os.Open(filepath.Join(proc, name))
		if err != nil {
			continue
		}
		for _, ino := range listenInodes(f, port) {
			inodes[ino] = true
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return 0
	}
	ents, _ := os.ReadDir(proc)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join(proc, e.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			l, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err == nil && strings.HasPrefix(l, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] {
				return pid
			}
		}
	}
	return 0
}

// listenInodes are the inodes of the sockets in a /proc/net/tcp{,6} table
// listening on port.
func listenInodes(r interface{ Read([]byte) (int, error) }, port int) []string {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		i := strings.LastIndexByte(f[1], ':')
		if i < 0 {
			continue
		}
		p, err := strconv.ParseUint(f[1][i+1:], 16, 16)
		if err == nil && int(p) == port {
			out = append(out, f[9])
		}
	}
	return out
}

// LoadConns counts the established TCP connections of process pid that
// are its load: not those to a port it listens on itself (RMI calls in
// from the controller) nor those to a port in skip (its calls back to the
// controller). Read from /proc/PID/net/tcp{,6} (its network namespace) and
// its descriptors; 0 when unreadable.
func LoadConns(proc string, pid int, skip []int) int {
	mine := socketInodes(proc, pid)
	if len(mine) == 0 {
		return 0
	}
	var rows []tcpRow
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		f, err := os.Open(filepath.Join(proc, strconv.Itoa(pid), name))
		if err != nil {
			continue
		}
		rows = append(rows, parseTCP(f)...)
		f.Close()
	}
	listening := map[int]bool{}
	for _, r := range rows {
		if r.state == "0A" && mine[r.inode] {
			listening[r.local] = true
		}
	}
	for _, p := range skip {
		listening[-p] = true // remote ports, kept apart by sign
	}
	n := 0
	for _, r := range rows {
		if r.state == "01" && mine[r.inode] && !listening[r.local] && !listening[-r.remote] {
			n++
		}
	}
	return n
}

// socketInodes are the inodes of the sockets process pid holds.
func socketInodes(proc string, pid int) map[string]bool {
	fdDir := filepath.Join(proc, strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			out[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	return out
}

// tcpRow is one socket of a /proc/net/tcp{,6} table.
type tcpRow struct {
	local, remote int // ports
	state         string
	inode         string
}

// parseTCP reads a /proc/net/tcp{,6} table (header and bad lines skipped).
func parseTCP(r interface{ Read([]byte) (int, error) }) []tcpRow {
	var out []tcpRow
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		lp, ok1 := hexPort(f[1])
		rp, ok2 := hexPort(f[2])
		if !ok1 || !ok2 || len(f[3]) != 2 {
			continue
		}
		out = append(out, tcpRow{local: lp, remote: rp, state: f[3], inode: f[9]})
	}
	return out
}

// hexPort is the port of an address:port in hex ("0100007F:1F90").
func hexPort(s string) (int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return 0, false
	}
	p, err := strconv.ParseUint(s[i+1:], 16, 16)
	return int(p), err == nil
}

// ListenPorts are the TCP ports process pid listens on.
func ListenPorts(proc string, pid int) []int {
	mine := socketInodes(proc, pid)
	var out []int
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		f, err := os.Open(filepath.Join(proc, strconv.Itoa(pid), name))
		if err != nil {
			continue
		}
		for _, r := range parseTCP(f) {
			if r.state == "0A" && mine[r.inode] {
				out = append(out, r.local)
			}
		}
		f.Close()
	}
	return out
}
