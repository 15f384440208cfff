package verdict

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// SocketsPrefix names the target's TCP sockets saved with each thread dump
// (raw/sockets-N.txt: the lines of /proc/PID/net/tcp and tcp6 whose inode
// is one of the target's fds).
const SocketsPrefix = "raw/sockets-"

// Endpoint is a remote address the target had connections open to, over
// the snapshots taken with the dumps.
type Endpoint struct {
	Remote string `json:"remote"`
	Conns  int    `json:"connections"` // the most open at once
	Seen   int    `json:"seen"`        // in how many snapshots
	Of     int    `json:"of"`
	RxMax  uint64 `json:"rx_queue_max"` // bytes waiting to be read, the most seen
}

// loadSockets reads the snapshots and keeps the target's outbound
// connections: established ones whose local port is not one the target
// listens on (those are its clients).
func (L *Layers) loadSockets() {
	names, _ := L.Folder.RawFiles(SocketsPrefix)
	var snaps [][]sample.Socket
	listen := map[uint16]bool{}
	for _, n := range names {
		b, ok := L.readFile(n, 64<<20)
		if !ok {
			continue
		}
		ss, err := sample.ParseNetTCP(b)
		if err != nil {
			L.problem(n, err)
		}
		for _, s := range ss {
			if s.State == "LISTEN" {
				listen[s.Local.Port()] = true
			}
		}
		snaps = append(snaps, ss)
	}
	by := map[netip.AddrPort]*Endpoint{}
	for _, ss := range snaps {
		now := map[netip.AddrPort]int{}
		for _, s := range ss {
			if s.State != "ESTABLISHED" || listen[s.Local.Port()] {
				continue
			}
			now[s.Remote]++
			e := by[s.Remote]
			if e == nil {
				e = &Endpoint{Remote: s.Remote.String(), Of: len(snaps)}
				by[s.Remote] = e
			}
			e.RxMax = max(e.RxMax, s.RxQueue)
		}
		for r, n := range now {
			by[r].Conns = max(by[r].Conns, n)
			by[r].Seen++
		}
	}
	for _, e := range by {
		L.Downstream = append(L.Downstream, *e)
	}
	sort.Slice(L.Downstream, func(i, j int) bool {
		a, b := L.Downstream[i], L.Downstream[j]
		if a.Conns != b.Conns {
			return a.Conns > b.Conns
		}
		return a.Remote < b.Remote
	})
}

// downstreamLine names the endpoints a downstream wait reads from.
func (e evidence) downstream() (finding.Text, bool) {
	ds := e.L.Downstream
	if len(ds) == 0 {
		return finding.Text{}, false
	}
	var en, zh []string
	for _, d := range ds[:min(3, len(ds))] {
		en = append(en, fmt.Sprintf("%s (%d connections, in %d of %d snapshots)", d.Remote, d.Conns, d.Seen, d.Of))
		zh = append(zh, fmt.Sprintf("%s（%d 个连接，%d/%d 次快照中出现）", d.Remote, d.Conns, d.Seen, d.Of))
	}
	return finding.T("Downstream: the target's open outbound connections at the dumps: "+strings.Join(en, ", ")+".",
		"下游：线程转储时目标进程已建立的出站连接："+strings.Join(zh, "，")+"。"), true
}
