package sysinfo

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseNetTCP(t *testing.T) {
	in := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000005 00:00000000 00000000     0        0 1602 1 000000008ee499c8 100 0 0 10 0
   1: 0100007F:9C40 0100007F:A3B1 01 00000000:00000010 00:00000000 00000000     0        0 88413 1 00000000e7d90d95 20 4 30 10 -1
`
	ss, err := ParseNetTCP(strings.NewReader(in))
	if err != nil || len(ss) != 2 {
		t.Fatalf("%v %+v", err, ss)
	}
	if ss[0].Local.String() != "127.0.0.1:8080" || ss[0].State != "LISTEN" || ss[0].RxQueue != 5 || ss[0].Inode != 1602 {
		t.Errorf("%+v", ss[0])
	}
	if ss[1].Remote.String() != "127.0.0.1:41905" || ss[1].State != "ESTABLISHED" || ss[1].RxQueue != 16 {
		t.Errorf("%+v", ss[1])
	}
	in6 := "   0: 00000000000000000000000001000000:1F90 0000000000000000FFFF00000100007F:A3B1 01 00000000:00000000 00:00000000 00000000  1000        0 5561 1 0 20 4 30 10 -1\n"
	ss, err = ParseNetTCP(strings.NewReader(in6))
	if err != nil || ss[0].Local.String() != "[::1]:8080" || ss[0].Remote.String() != "127.0.0.1:41905" {
		t.Errorf("%v %+v", err, ss)
	}
	if _, err := ParseNetTCP(strings.NewReader("   0: zz:1 00:0 01 0:0 0 0 0 0 1\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad line: %v", err)
	}
}

// This host's own table holds a listener the test opens, with its inode
// among this process's fd links.
func TestSocketsOfThisProcess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, err := os.Open("/proc/self/net/tcp")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	ss, err := ParseNetTCP(f)
	if err != nil {
		t.Fatal(err)
	}
	inodes, err := ParseSocketInodes(strings.NewReader(string(SocketLinks("/proc/" + strconv.Itoa(os.Getpid())))))
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	for _, s := range ss {
		if int(s.Local.Port()) == port && s.State == "LISTEN" {
			if !inodes[s.Inode] {
				t.Errorf("listener inode %d not among this process's sockets %v", s.Inode, inodes)
			}
			return
		}
	}
	t.Errorf("listener on %d not in /proc/self/net/tcp", port)
}

func FuzzParseNetTCP(f *testing.F) {
	f.Add("   1: 0100007F:9C40 0100007F:A3B1 01 00000000:00000010 00:00000000 00000000     0        0 88413 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseNetTCP(strings.NewReader(s))
		_, _ = ParseSocketInodes(strings.NewReader(s))
	})
}
