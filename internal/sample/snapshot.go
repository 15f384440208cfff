package sample

import "time"

// UserHZ is the unit of the tick counters in /proc/stat and /proc/PID/stat
// (USER_HZ). It is 100 on every Linux ABI tuneloop builds for (x86-64,
// arm64), whatever the kernel's CONFIG_HZ.
const UserHZ = 100

// Snapshot is one tick: every counter as read, cumulative, with the time it
// was read. A nil or empty part means its sampler did not run or did not
// succeed; Samplers says which and why. Field names are short because a run
// writes one Snapshot per second as a JSON line.
type Snapshot struct {
	Time     time.Time `json:"t"`
	Tick     int64     `json:"tick"`
	CostUS   int64     `json:"cost_us"` // wall time of the whole Collect
	Self     SelfUsage `json:"self"`
	Samplers []Outcome `json:"samplers"`

	Stat       *Stat             `json:"stat,omitempty"`
	Load       *LoadAvg          `json:"load,omitempty"`
	Softirqs   *Softirqs         `json:"softirqs,omitempty"`
	Interrupts *Interrupts       `json:"irqs,omitempty"`
	Mem        map[string]uint64 `json:"mem,omitempty"` // /proc/meminfo, kB (HugePages_* are counts)
	VM         map[string]uint64 `json:"vm,omitempty"`  // selected /proc/vmstat counters
	NUMA       []NUMANode        `json:"numa,omitempty"`
	Disks      []Disk            `json:"disks,omitempty"`
	Net        []NetDev          `json:"net,omitempty"`
	TCP        *TCP              `json:"tcp,omitempty"`
	TCPStates  *TCPStates        `json:"tcpstates,omitempty"`
	PSI        map[string]PSI    `json:"psi,omitempty"` // cpu, memory, io (irq on 6.1+)
	Proc       *Proc             `json:"proc,omitempty"`
	Threads    Threads           `json:"threads,omitempty"`
}

// SelfUsage is the recorder's own cost so far (getrusage of this process).
type SelfUsage struct {
	CPUUS    int64 `json:"cpu_us"`    // user+system CPU time, microseconds
	MaxRSSKB int64 `json:"maxrss_kb"` // peak resident set
}

// reset empties s for reuse, keeping capacity.
func (s *Snapshot) reset() {
	*s = Snapshot{
		Samplers: s.Samplers[:0],
		Threads:  s.Threads[:0],
		Disks:    s.Disks[:0],
		Net:      s.Net[:0],
		NUMA:     s.NUMA[:0],
		Mem:      clearMap(s.Mem),
		VM:       clearMap(s.VM),
		PSI:      clearMap(s.PSI),
	}
}

func clearMap[V any](m map[string]V) map[string]V {
	clear(m)
	return m
}

// Outcome returns the named sampler's outcome in this tick.
func (s *Snapshot) Outcome(name string) (Outcome, bool) {
	for _, o := range s.Samplers {
		if o.Name == name {
			return o, true
		}
	}
	return Outcome{}, false
}

// OK reports whether the named sampler succeeded in this tick.
func (s *Snapshot) OK(name string) bool {
	o, ok := s.Outcome(name)
	return ok && o.Status == StatusOK
}
