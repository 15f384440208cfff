package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Callchain context markers (include/uapi/linux/perf_event.h): an entry
// at or above contextMax says which side the frames after it are on.
const (
	contextKernel = ^uint64(128 - 1)  // (u64)-128
	contextUser   = ^uint64(512 - 1)  // (u64)-512
	contextMax    = ^uint64(4095 - 1) // (u64)-4095
)

// ringPages is the data part of each CPU's ring buffer, in pages (a power of two).
const ringPages = 64

// rawSample is one PERF_RECORD_SAMPLE: the task and its callchain, leaf
// first, kernel part marked.
type rawSample struct {
	pid, tid uint32
	kernel   []uint64 // leaf first
	user     []uint64 // leaf first
}

// cpuRing is one CPU's event and its mapped ring buffer.
type cpuRing struct {
	fd   int
	mem  []byte
	data []byte
}

// sampleSystem samples every CPU at hz until ctx ends or d passes, with
// kernel and user callchains, and calls keep for each sample (on the
// calling goroutine). lost counts samples the kernel dropped.
func sampleSystem(ctx context.Context, hz int, d time.Duration, keep func(rawSample)) (lost uint64, err error) {
	attr := unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_SOFTWARE,
		Config:      unix.PERF_COUNT_SW_CPU_CLOCK,
		Sample:      uint64(hz),
		Sample_type: unix.PERF_SAMPLE_IP | unix.PERF_SAMPLE_TID | unix.PERF_SAMPLE_CALLCHAIN,
		Bits:        unix.PerfBitDisabled | unix.PerfBitFreq | unix.PerfBitExcludeHv,
		Wakeup:      1,
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	ncpu := runtime.NumCPU()
	if n, err := onlineCPUs(); err == nil {
		ncpu = n
	}
	var rings []*cpuRing
	defer func() {
		for _, r := range rings {
			_ = unix.Munmap(r.mem)
			_ = unix.Close(r.fd)
		}
	}()
	page := os.Getpagesize()
	for cpu := 0; cpu < ncpu; cpu++ {
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			if errors.Is(err, unix.ENODEV) || errors.Is(err, unix.EINVAL) && cpu > 0 {
				continue // an offline CPU
			}
			return 0, openError(err)
		}
		mem, err := unix.Mmap(fd, 0, (1+ringPages)*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			_ = unix.Close(fd)
			return 0, fmt.Errorf("perf_event_open: mapping the ring buffer of cpu %d: %w (raise /proc/sys/kernel/perf_event_mlock_kb)", cpu, err)
		}
		rings = append(rings, &cpuRing{fd: fd, mem: mem, data: mem[page:]})
	}
	for _, r := range rings {
		if err := unix.IoctlSetInt(r.fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
			return 0, fmt.Errorf("perf_event_open: enabling: %w", err)
		}
	}
	end := time.Now().Add(d)
	fds := make([]unix.PollFd, len(rings))
	for i, r := range rings {
		fds[i] = unix.PollFd{Fd: int32(r.fd), Events: unix.POLLIN}
	}
	for {
		for _, r := range rings {
			lost += r.drain(keep)
		}
		left := time.Until(end)
		if left <= 0 || ctx.Err() != nil {
			break
		}
		// Wake at least every 100 ms so a cancelled ctx is seen at once.
		if _, err := unix.Poll(fds, int(min(left, 100*time.Millisecond)/time.Millisecond)+1); err != nil && !errors.Is(err, unix.EINTR) {
			return lost, err
		}
	}
	for _, r := range rings {
		_ = unix.IoctlSetInt(r.fd, unix.PERF_EVENT_IOC_DISABLE, 0)
		lost += r.drain(keep)
	}
	return lost, nil
}

// drain reads every record between data_tail and data_head.
func (r *cpuRing) drain(keep func(rawSample)) (lost uint64) {
	meta := (*unix.PerfEventMmapPage)(unsafe.Pointer(&r.mem[0]))
	head := atomic.LoadUint64(&meta.Data_head)
	tail := atomic.LoadUint64(&meta.Data_tail)
	size := uint64(len(r.data))
	var rec []byte
	for tail < head {
		at := tail % size
		hdr := r.read(at, 8, &rec)
		typ := binary.NativeEndian.Uint32(hdr[0:4])
		n := uint64(binary.NativeEndian.Uint16(hdr[6:8]))
		if n < 8 {
			break
		}
		body := r.read(at, n, &rec)[8:]
		switch typ {
		case unix.PERF_RECORD_SAMPLE:
			if s, ok := parseSample(body); ok {
				keep(s)
			}
		case unix.PERF_RECORD_LOST:
			if len(body) >= 16 {
				lost += binary.NativeEndian.Uint64(body[8:16])
			}
		}
		tail += n
	}
	atomic.StoreUint64(&meta.Data_tail, tail)
	return lost
}

// read copies n bytes at offset at of the ring into buf (records may wrap).
func (r *cpuRing) read(at, n uint64, buf *[]byte) []byte {
	size := uint64(len(r.data))
	if at+n <= size {
		return r.data[at : at+n]
	}
	*buf = append((*buf)[:0], r.data[at:]...)
	*buf = append(*buf, r.data[:n-(size-at)]...)
	return *buf
}

// parseSample reads a sample of Sample_type IP|TID|CALLCHAIN:
// u64 ip; u32 pid, tid; u64 nr; u64 ips[nr].
func parseSample(b []byte) (rawSample, bool) {
	if len(b) < 24 {
		return rawSample{}, false
	}
	s := rawSample{pid: binary.NativeEndian.Uint32(b[8:12]), tid: binary.NativeEndian.Uint32(b[12:16])}
	nr := binary.NativeEndian.Uint64(b[16:24])
	if nr > uint64(len(b)-24)/8 {
		return rawSample{}, false
	}
	var side *[]uint64
	for i := uint64(0); i < nr; i++ {
		ip := binary.NativeEndian.Uint64(b[24+8*i:])
		switch {
		case ip == contextKernel:
			side = &s.kernel
		case ip == contextUser:
			side = &s.user
		case ip >= contextMax:
			side = nil // guest or unknown context: not ours to name
		case side != nil:
			*side = append(*side, ip)
		}
	}
	return s, true
}

func onlineCPUs() (int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexAny(s, "-,"); i >= 0 {
		s = s[i+1:]
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
		return 0, err
	}
	return n + 1, nil
}

// openError says what would allow sampling.
func openError(err error) error {
	paranoid := "?"
	if b, rerr := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); rerr == nil {
		paranoid = strings.TrimSpace(string(b))
	}
	switch {
	case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
		return &Unavailable{Err: err, Paranoid: paranoid, Reason: ReasonPermission}
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP):
		return &Unavailable{Err: err, Paranoid: paranoid, Reason: ReasonNoPerf}
	}
	return &Unavailable{Err: err, Paranoid: paranoid, Reason: ReasonOther}
}
