package diagnose

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/units"
)

// A condition must hold in at least MinTicks ticks and MinFrac of the run
// to count as sustained: one noisy second is not a diagnosis.
const (
	MinTicks = 2
	MinFrac  = 0.5
)

// window is the ticks where a condition held.
type window struct {
	hits  []int // tick indexes
	total int
	from  time.Time // start of the first hit interval
	to    time.Time // end of the last hit interval
}

// sustained evaluates pred on every tick.
func sustained(ts []Tick, pred func(i int, t *Tick) bool) window {
	w := window{total: len(ts)}
	for i := range ts {
		if pred(i, &ts[i]) {
			w.hits = append(w.hits, i)
		}
	}
	if len(w.hits) > 0 {
		first, last := &ts[w.hits[0]], &ts[w.hits[len(w.hits)-1]]
		w.from = first.Begin()
		w.to = last.T
	}
	return w
}

// ok says the condition was sustained.
func (w window) ok() bool {
	return len(w.hits) >= MinTicks && float64(len(w.hits)) >= MinFrac*float64(w.total)
}

// any says the condition held at least once.
func (w window) any() bool { return len(w.hits) > 0 }

func (w window) frac() float64 {
	if w.total == 0 {
		return 0
	}
	return float64(len(w.hits)) / float64(w.total)
}

// mean averages f over the hit ticks.
func (w window) mean(ts []Tick, f func(t *Tick) float64) float64 {
	if len(w.hits) == 0 {
		return 0
	}
	s := 0.0
	for _, i := range w.hits {
		s += f(&ts[i])
	}
	return s / float64(len(w.hits))
}

// peak is the maximum of f over the hit ticks.
func (w window) peak(ts []Tick, f func(t *Tick) float64) float64 {
	m := 0.0
	for k, i := range w.hits {
		if v := f(&ts[i]); k == 0 || v > m {
			m = v
		}
	}
	return m
}

// timeSpan is the window for Finding.Window.
func (w window) timeSpan() *finding.Window {
	return &finding.Window{From: w.from.UTC(), To: w.to.UTC()}
}

// evidence is the window as evidence rows.
func (w window) evidence(start time.Time) []finding.Evidence {
	return []finding.Evidence{
		{Key: "window", Value: fmt.Sprintf("%s – %s UTC (+%s – +%s)", w.from.UTC().Format("15:04:05"), w.to.UTC().Format("15:04:05"),
			rel(w.from.Sub(start)), rel(w.to.Sub(start))), Source: runfolder.SamplesFile},
		{Key: "ticks", Value: fmt.Sprintf("%d of %d (%.0f%%)", len(w.hits), w.total, 100*w.frac())},
	}
}

func rel(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Round(100 * time.Millisecond).String()
}

// span is the window in words.
func (w window) span() finding.Text {
	return finding.Tf(finding.T("%d of %d ticks, %s–%s UTC", "%d/%d 个采样周期，%s–%s UTC"),
		len(w.hits), w.total, w.from.UTC().Format("15:04:05"), w.to.UTC().Format("15:04:05"))
}

func pct(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" }

func num(v float64) string { return strconv.FormatFloat(v, 'f', numPrec(v), 64) }

// numPrec is the decimals a figure is quoted with: none from 100 up.
func numPrec(v float64) int {
	if v >= 100 {
		return 0
	}
	return 1
}

// mib quotes a size in kB as MiB (units.FormatMiB) with num's decimals:
// the figures of one message keep one unit, so they read against each
// other.
func mib(kb float64) string { return units.FormatMiB(kb/1024, numPrec(kb/1024)) }

func ev(k, v, src string) finding.Evidence { return finding.Evidence{Key: k, Value: v, Source: src} }

// cpuMask formats CPUs as the kernel's hex mask (comma every 32 bits), as
// rps_cpus and smp_affinity take it.
func cpuMask(cpus []int) string {
	hi := 0
	for _, c := range cpus {
		hi = max(hi, c)
	}
	words := make([]uint32, hi/32+1)
	for _, c := range cpus {
		if c >= 0 {
			words[c/32] |= 1 << (c % 32)
		}
	}
	var parts []string
	for i := len(words) - 1; i >= 0; i-- {
		if len(parts) == 0 {
			parts = append(parts, strconv.FormatUint(uint64(words[i]), 16))
		} else {
			parts = append(parts, fmt.Sprintf("%08x", words[i]))
		}
	}
	return strings.Join(parts, ",")
}
