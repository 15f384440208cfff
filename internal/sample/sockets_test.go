package sample

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"
)

// TestParseSocketLineForms covers every row form any of the three former
// readers accepted (sample's tcpstates sampler, sysinfo.ParseNetTCP,
// jmeter's parseTCP/listenInodes), and what they refused.
func TestParseSocketLineForms(t *testing.T) {
	const tail = " 00:00000000 00000000     0        0 1602 1 000000008ee499c8 100 0 0 10 0"
	for _, c := range []struct {
		line, local, remote, state string
		tx, rx, inode              uint64
		row                        bool
		err                        string
	}{
		// header and blank lines are not rows (sysinfo: header on line 1 only; sample: line 1 whatever it held)
		{line: "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"},
		{line: ""},
		{line: " \t\r"},
		// IPv4 listener, queue in hex (sample: rx of LISTEN is the accept queue)
		{line: "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000005" + tail, local: "127.0.0.1:8080", remote: "0.0.0.0:0", state: "LISTEN", rx: 5, inode: 1602, row: true},
		// established, hex tx and rx (sysinfo)
		{line: "   1: 0100007F:9C40 0100007F:A3B1 01 000000FF:00000010" + tail, local: "127.0.0.1:40000", remote: "127.0.0.1:41905", state: "ESTABLISHED", tx: 255, rx: 16, inode: 1602, row: true},
		// lower-case hex everywhere (strconv and hex.DecodeString took it; jmeter's f[3] == "0A" did not)
		{line: "   2: 0100007f:1f90 00000000:0000 0a 0000000a:0000000b" + tail, local: "127.0.0.1:8080", remote: "0.0.0.0:0", state: "LISTEN", tx: 10, rx: 11, inode: 1602, row: true},
		// one-digit state and short port (strconv base 16 took them)
		{line: "   3: 0100007F:50 00000000:0 6 0:0" + tail, local: "127.0.0.1:80", remote: "0.0.0.0:0", state: "TIME_WAIT", inode: 1602, row: true},
		// a port with leading zeros (strconv took "00001F90")
		{line: "   4: 0100007F:00001F90 00000000:0000 0A 0:0" + tail, local: "127.0.0.1:8080", remote: "0.0.0.0:0", state: "LISTEN", inode: 1602, row: true},
		// IPv6 ::1 and an IPv4-mapped peer (sysinfo)
		{line: "   0: 00000000000000000000000001000000:1F90 0000000000000000FFFF00000100007F:A3B1 01 00000000:00000000" + tail, local: "[::1]:8080", remote: "127.0.0.1:41905", state: "ESTABLISHED", inode: 1602, row: true},
		// IPv6 global address, each word little-endian: 2001:db8::1
		{line: "   0: B80D0120000000000000000001000000:01BB 00000000000000000000000000000000:0000 0C 00000000:00000000" + tail, local: "[2001:db8::1]:443", remote: "[::]:0", state: "NEW_SYN_RECV", inode: 1602, row: true},
		// the last state and exactly 10 fields (jmeter and sysinfo needed 10)
		{line: "0: 0100007F:0001 0100007F:0002 0B 0:0 0:0 0 0 0 42", local: "127.0.0.1:1", remote: "127.0.0.1:2", state: "CLOSING", inode: 42, row: true},
		// refused
		{line: "0: 0100007F:0001 0100007F:0002 0B 0:0 0:0 0 0 0", row: true, err: "10 fields"},      // 9 fields (sample's sampler took 5)
		{line: "0: zz:1 00:0 01 0:0 0 0 0 0 1", row: true, err: "local address"},                    // sysinfo's test
		{line: "0: 0100007F 00000000:0000 01 0:0 0 0 0 0 1", row: true, err: "local address"},       // no port
		{line: "0: 0100007F:10000 00000000:0000 01 0:0 0 0 0 0 1", row: true, err: "local address"}, // port over 16 bits
		{line: "0: 0100007F:-1 00000000:0000 01 0:0 0 0 0 0 1", row: true, err: "local address"},
		{line: "0: 0100007F:1 0000000:0000 01 0:0 0 0 0 0 1", row: true, err: "remote address"}, // 7 digits
		{line: "0: 0x00007F:1 00000000:0000 01 0:0 0 0 0 0 1", row: true, err: "local address"}, // 0x
		{line: "0: 0100007F:1 00000000:0000 00 0:0 0 0 0 0 1", row: true, err: "state"},         // state 0
		{line: "0: 0100007F:1 00000000:0000 0D 0:0 0 0 0 0 1", row: true, err: "state"},         // past NEW_SYN_RECV
		{line: "0: 0100007F:1 00000000:0000 XY 0:0 0 0 0 0 1", row: true, err: "state"},         // sample's test
		{line: "0: 0100007F:1 00000000:0000 01 00000000 0 0 0 0 1", row: true, err: "queues"},   // no colon
		{line: "0: 0100007F:1 00000000:0000 01 0:g 0 0 0 0 1", row: true, err: "rx_queue"},      // not hex
		{line: "0: 0100007F:1 00000000:0000 01 :0 0 0 0 0 1", row: true, err: "tx_queue"},       // empty
		{line: "0: 0100007F:1 00000000:0000 01 0:0 0 0 0 0 -1", row: true, err: "inode"},        // jmeter kept any string
		{line: "0: 0100007F:1 00000000:0000 01 0:0 0 0 0 0 99999999999999999999", row: true, err: "inode"},
	} {
		s, row, err := ParseSocketLine([]byte(c.line))
		if row != c.row {
			t.Errorf("%q: row %v", c.line, row)
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if !row {
			continue
		}
		if s.Local.String() != c.local || s.Remote.String() != c.remote || s.State != c.state ||
			s.TxQueue != c.tx || s.RxQueue != c.rx || s.Inode != c.inode {
			t.Errorf("%q:\n got %v %v %s tx %d rx %d inode %d\nwant %s %s %s tx %d rx %d inode %d", c.line,
				s.Local, s.Remote, s.State, s.TxQueue, s.RxQueue, s.Inode, c.local, c.remote, c.state, c.tx, c.rx, c.inode)
		}
	}
}

// Two tables one after the other (what sysinfo.ProcessSockets saves: one
// header, then tcp and tcp6 rows), a bad row in between kept out and
// reported by its line.
func TestParseNetTCP(t *testing.T) {
	in := tcpSample + "  sl  local_address ...\n" +
		"   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5561 1 0 20 4 30 10 -1\n" +
		"   1: garbage\n" +
		"   2: 0000000000000000FFFF00000100007F:A3B1 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 5562 1 0 20 4 30 10 -1\n"
	ss, err := ParseNetTCP([]byte(in))
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 7") {
		t.Errorf("err %v, want ErrParse at line 7", err)
	}
	if len(ss) != 5 || ss[3].Local.String() != "[::1]:8080" || ss[4].Inode != 5562 || ss[4].Remote.Port() != 8080 {
		t.Errorf("%+v", ss)
	}
}

// This host's own tables hold a listener the test opens, and the sampler's
// view and the whole-table view agree on it.
func TestParseNetTCPThisHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	b, err := os.ReadFile("/proc/self/net/tcp")
	if err != nil {
		t.Skip(err)
	}
	ss, err := ParseNetTCP(b)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range ss {
		found = found || (int(s.Local.Port()) == port && s.State == "LISTEN" && s.Local.Addr().String() == "127.0.0.1")
	}
	if !found {
		t.Errorf("listener 127.0.0.1:%d not among %d sockets", port, len(ss))
	}
	ts := &TCPStates{States: map[string]uint64{}}
	if err := parseTCPStates(b, ts); err != nil {
		t.Fatal(err)
	}
	if n := ts.States["LISTEN"]; n == 0 || int(n) != len(ts.Listen) {
		t.Errorf("LISTEN %d, listen queues %d", n, len(ts.Listen))
	}
}

func TestParseSocketLineAllocs(t *testing.T) {
	line := []byte("   0: 00000000000000000000000001000000:1F90 0000000000000000FFFF00000100007F:A3B1 01 00000000:00000000 00:00000000 00000000  1000        0 5561 1 0 20 4 30 10 -1")
	if n := testing.AllocsPerRun(100, func() { _, _, _ = ParseSocketLine(line) }); n != 0 {
		t.Errorf("%v allocations per row", n)
	}
}

func FuzzParseNetTCP(f *testing.F) {
	f.Add([]byte(tcpSample))
	f.Add([]byte("   0: 00000000000000000000000001000000:1F90 0000000000000000FFFF00000100007F:A3B1 01 00000000:00000000 00:00000000 00000000  1000        0 5561 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := ParseNetTCP(b)
		checkParseErr(t, err)
		for _, s := range ss {
			if !s.Local.IsValid() || !s.Remote.IsValid() || s.State == "" {
				t.Fatalf("%+v", s)
			}
		}
	})
}
