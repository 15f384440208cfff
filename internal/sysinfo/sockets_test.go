package sysinfo

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/sample"
)

// This host's own table holds a listener the test opens, with its inode
// among this process's fd links.
func TestSocketsOfThisProcess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := os.ReadFile("/proc/self/net/tcp")
	if err != nil {
		t.Skip(err)
	}
	ss, err := sample.ParseNetTCP(b)
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

func FuzzParseSocketInodes(f *testing.F) {
	f.Add("socket:[1602]\nsocket:[88413]\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseSocketInodes(strings.NewReader(s))
	})
}
