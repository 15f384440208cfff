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
