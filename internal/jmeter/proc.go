// The CPU of JMeter's processes on this host, from /proc. Sample lines:
//
//	/proc/PID/stat:  11009 (java) S 1 11008 11008 0 -1 4194560 35190 0 3 0 512 34 0 0 39 19 47 0 ...
//	                 (utime 512 and stime 34 clock ticks: fields 14 and 15; read by sample.ParsePidStat)
//	/proc/net/tcp:   1: 00000000:5E25 00000000:0000 0A 00000000:00000000 00:00000000 00000000  0  0 431265 1 ...
//	                 (a socket listening (0A) on port 0x5E25 = 24101, inode 431265;
//	                 read by sample.ParseNetTCP)
//	/proc/PID/fd/151 -> socket:[431265]

package jmeter

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/sample"
)

// cpuTicks is a process's user+system time in clock ticks (false: gone or
// unreadable).
func cpuTicks(proc string, pid int) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	st, err := sample.ParsePidStat(b)
	if err != nil {
		return 0, false
	}
	return st.Utime + st.Stime, true
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
	inodes := map[uint64]bool{}
	for _, s := range socketTable(proc) {
		if s.State == "LISTEN" && int(s.Local.Port()) == port {
			inodes[s.Inode] = true
		}
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
		for ino := range socketInodes(proc, pid) {
			if inodes[ino] {
				return pid
			}
		}
	}
	return 0
}

// socketTable is the sockets of a network namespace, read from
// DIR/net/tcp and tcp6 (DIR is /proc or /proc/PID) by sample's parser. An
// unreadable table is left out, and so is a row the parser refuses (the
// kernel writes none).
func socketTable(dir string) []sample.Socket {
	var out []sample.Socket
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		ss, _ := sample.ParseNetTCP(b)
		out = append(out, ss...)
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
	rows := socketTable(filepath.Join(proc, strconv.Itoa(pid)))
	listening := map[int]bool{}
	for _, r := range rows {
		if r.State == "LISTEN" && mine[r.Inode] {
			listening[int(r.Local.Port())] = true
		}
	}
	for _, p := range skip {
		listening[-p] = true // remote ports, kept apart by sign
	}
	n := 0
	for _, r := range rows {
		if r.State == "ESTABLISHED" && mine[r.Inode] && !listening[int(r.Local.Port())] && !listening[-int(r.Remote.Port())] {
			n++
		}
	}
	return n
}

// socketInodes are the inodes of the sockets process pid holds (its
// /proc/PID/fd links "socket:[N]").
func socketInodes(proc string, pid int) map[uint64]bool {
	fdDir := filepath.Join(proc, strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return nil
	}
	out := map[uint64]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
		if n, ok := strings.CutPrefix(l, "socket:["); err == nil && ok {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64); err == nil {
				out[ino] = true
			}
		}
	}
	return out
}

// ListenPorts are the TCP ports process pid listens on.
func ListenPorts(proc string, pid int) []int {
	mine := socketInodes(proc, pid)
	var out []int
	for _, r := range socketTable(filepath.Join(proc, strconv.Itoa(pid))) {
		if r.State == "LISTEN" && mine[r.Inode] {
			out = append(out, int(r.Local.Port()))
		}
	}
	return out
}
