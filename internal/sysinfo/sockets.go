package sysinfo

// A process's TCP connections: /proc/PID/net/tcp and tcp6 list every socket
// of its network namespace (rows read by sample.ParseSocketLine, the one
// reader); the process's own are those whose inode is the target of one of
// its /proc/PID/fd links ("socket:[1602]"). Sample lines:
//
//	  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
//	   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1602 1 000000008ee499c8 100 0 0 10 0
//	   1: 0100007F:9C40 0100007F:A3B1 01 00000000:00000010 00:00000000 00000000     0        0 88413 1 00000000e7d90d95 20 4 30 10 -1
//	   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5561 1 ...

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
)

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
			return out, finding.Errorf(finding.T("socket inode %q", "套接字 inode %q"), t)
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
			if i == 0 {
				if out.Len() == 0 {
					out.WriteString(line + "\n")
				}
				continue
			}
			if s, row, err := sample.ParseSocketLine([]byte(line)); row && err == nil && inodes[s.Inode] {
				out.WriteString(line + "\n")
			}
		}
	}
	return []byte(out.String())
}
