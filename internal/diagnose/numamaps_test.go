package diagnose

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

const numaMapsSample = `7f3c40000000 default anon=262144 dirty=262144 active=0 N0=65536 N1=196608 kernelpagesize_kB=4
7f3c80000000 bind:1 anon=512 dirty=512 N1=512 kernelpagesize_kB=2048
560c4d53f000 default file=/usr/bin/java mapped=2 N0=2 kernelpagesize_kB=4
garbage N=1 Nx=2 N0= N2=abc
7f0000000000 default
`

func TestParseNUMAMaps(t *testing.T) {
	got := parseNUMAMaps([]byte(numaMapsSample))
	if got[0] != 65538*4 || got[1] != 196608*4+512*2048 || len(got) != 2 {
		t.Fatalf("%v", got)
	}
}

func twoNodes() *sysinfo.Facts {
	f := facts(4)
	f.NUMA.Nodes = sysinfo.Got([]sysinfo.Node{{ID: 0, CPUs: []int{0, 1}}, {ID: 1, CPUs: []int{2, 3}}}, "/sys/devices/system/node")
	return f
}

func TestNUMATarget(t *testing.T) {
	// Threads run on node 0; 1792 of 2048 MiB live on node 1.
	s := series(6, 4, func(_ int, t *Tick) { t.TargetCPUOn = map[int]float64{0: 80, 1: 60} })
	in := Input{Facts: twoNodes(), Series: s, Start: t0, NUMAMaps: []byte(numaMapsSample)}
	in.Target = diagTarget
	fs := Diagnose(in)
	f := find(fs, IDNUMATarget)
	if f == nil || !strings.Contains(f.Fix.Apply, "numactl --cpunodebind=0 --membind=0") || !strings.Contains(f.Observed.EN, "N1 1792 MiB") {
		t.Fatalf("%v %+v", ids(fs), f)
	}
	// Threads on node 1 where the memory is: local.
	s = series(6, 4, func(_ int, t *Tick) { t.TargetCPUOn = map[int]float64{2: 80, 3: 60} })
	in.Series = s
	if f := find(Diagnose(in), IDNUMATarget); f != nil {
		t.Fatalf("local placement flagged: %s", f.Observed.EN)
	}
	// One node: nothing to say; no numa_maps: nothing either.
	in.Facts = facts(4)
	if f := find(Diagnose(in), IDNUMATarget); f != nil {
		t.Fatal("fired on one node")
	}
	in.Facts, in.NUMAMaps = twoNodes(), nil
	if f := find(Diagnose(in), IDNUMATarget); f != nil {
		t.Fatal("fired without numa_maps")
	}
}
