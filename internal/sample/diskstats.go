package sample

import (
	"github.com/tuneloop/tuneloop/internal/finding"
)

// /proc/diskstats: block device I/O counters since boot (or since the
// device appeared). Sample (kernel 6.18; 20 columns):
//
//	 254       0 vda 42440 6724 2628538 15868 8014 11803 6885920 11526 0 6944 31739 4077 1 6141360 4341 238 2
//	 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
//	   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
//
// After major minor name: reads completed, reads merged, sectors read, ms
// reading, writes completed, writes merged, sectors written, ms writing,
// I/Os in flight, ms doing I/O (io_ticks), weighted ms (time_in_queue);
// 4.18+ adds discards completed, merged, sectors, ms; 5.5+ adds flushes
// completed and ms. Sectors are 512 bytes whatever the device's block size.
// Devices whose counters are all zero are not kept (unused loop devices).

// Disk is one /proc/diskstats line.
type Disk struct {
	Major      uint32 `json:"maj"`
	Minor      uint32 `json:"min"`
	Name       string `json:"dev"`
	RdIOs      uint64 `json:"r"`
	RdMerges   uint64 `json:"rm"`
	RdSectors  uint64 `json:"rs"`
	RdTicks    uint64 `json:"rt"` // ms
	WrIOs      uint64 `json:"w"`
	WrMerges   uint64 `json:"wm"`
	WrSectors  uint64 `json:"ws"`
	WrTicks    uint64 `json:"wt"` // ms
	InFlight   uint64 `json:"inflight"`
	IOTicks    uint64 `json:"io_ms"` // ms the device had I/O in flight (%util)
	QueueTicks uint64 `json:"q_ms"`  // weighted ms (aqu-sz)
	DcIOs      uint64 `json:"d,omitempty"`
	DcMerges   uint64 `json:"dm,omitempty"`
	DcSectors  uint64 `json:"ds,omitempty"`
	DcTicks    uint64 `json:"dt,omitempty"`
	FlIOs      uint64 `json:"f,omitempty"`
	FlTicks    uint64 `json:"ft,omitempty"`
}

type diskSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newDiskSampler(env *Env) (Sampler, error) {
	return &diskSampler{env: env, path: env.FS.ProcPath("diskstats")}, nil
}

func (p *diskSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	s.Disks, err = parseDiskstats(b, s.Disks[:0], &p.sc)
	return err
}

func parseDiskstats(b []byte, dst []Disk, sc *scratch) ([]Disk, error) {
	var err error
	l := lines{b: b}
	for l.next() {
		f := sc.fields(l.line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 14 {
			firstErr(&err, badLine(l.n, l.line, finding.T("fewer than 14 columns", "少于 14 列")))
			continue
		}
		var d Disk
		maj, ok1 := atou(f[0])
		min, ok2 := atou(f[1])
		if !ok1 || !ok2 || maj > 1<<32-1 || min > 1<<32-1 {
			firstErr(&err, badLine(l.n, l.line, finding.T("bad device number", "设备号无效")))
			continue
		}
		d.Major, d.Minor = uint32(maj), uint32(min)
		cols := [...]*uint64{&d.RdIOs, &d.RdMerges, &d.RdSectors, &d.RdTicks, &d.WrIOs, &d.WrMerges, &d.WrSectors,
			&d.WrTicks, &d.InFlight, &d.IOTicks, &d.QueueTicks, &d.DcIOs, &d.DcMerges, &d.DcSectors, &d.DcTicks, &d.FlIOs, &d.FlTicks}
		var any uint64
		ok := true
		for i := 3; i < len(f) && i-3 < len(cols); i++ {
			v, good := atou(f[i])
			if !good {
				ok = false
				break
			}
			*cols[i-3] = v
			any |= v
		}
		if !ok {
			firstErr(&err, badLine(l.n, l.line, finding.T("bad counter", "计数器无效")))
			continue
		}
		if any == 0 {
			continue
		}
		d.Name = sc.intern(f[2])
		dst = append(dst, d)
	}
	return dst, err
}
