package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
)

const (
	seqBlock  = 1 << 20
	randBlock = 4 << 10
	// minDiskBytes: below this the disk part is not worth running.
	minDiskBytes = 4 << 20
)

// fsName names a filesystem by its statfs f_type magic.
func fsName(magic int64) string {
	switch magic {
	case 0xEF53:
		return "ext4"
	case 0x58465342:
		return "xfs"
	case 0x9123683E:
		return "btrfs"
	case 0x01021994:
		return "tmpfs"
	case 0x858458f6:
		return "ramfs"
	case 0x794c7630:
		return "overlay"
	case 0x6969:
		return "nfs"
	case 0x2fc12fc1:
		return "zfs"
	case 0xF2F52010:
		return "f2fs"
	case 0xFF534D42:
		return "cifs"
	case 0x65735546:
		return "fuse"
	}
	return fmt.Sprintf("0x%x", magic)
}

// diskFile is the probe's one file: it has no name (O_TMPFILE, or
// unlinked right after it was created), so nothing is left behind even by
// a SIGKILL; fd writes through the page cache, dfd (when the filesystem
// allows it) with O_DIRECT.
type diskFile struct {
	fd, dfd int
	direct  bool
}

func openUnnamed(dir string) (int, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return fd, nil
	}
	// No O_TMPFILE here (old kernel, some filesystems): a name for an
	// instant, then none.
	var rnd [8]byte
	for i := range rnd {
		rnd[i] = "abcdefghijklmnopqrstuvwxyz"[rand.IntN(26)]
	}
	name := filepath.Join(dir, ".tuneloop-probe-"+strconv.Itoa(os.Getpid())+"-"+string(rnd[:]))
	fd, err = unix.Open(name, unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, err
	}
	if err := unix.Unlink(name); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("unlink %s: %w", name, err)
	}
	return fd, nil
}

func openDisk(dir string) (*diskFile, error) {
	fd, err := openUnnamed(dir)
	if err != nil {
		return nil, err
	}
	f := &diskFile{fd: fd, dfd: -1}
	// The same inode again with O_DIRECT, through /proc (the file has no
	// name): refused (EINVAL) on tmpfs and the like.
	if dfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0); err == nil {
		f.dfd, f.direct = dfd, true
	}
	return f, nil
}

func (f *diskFile) close() {
	if f.dfd >= 0 {
		unix.Close(f.dfd)
	}
	unix.Close(f.fd)
}

// io is the descriptor the throughput figures use.
func (f *diskFile) io() int {
	if f.direct {
		return f.dfd
	}
	return f.fd
}

// disk measures fsync latency and sequential and random throughput on a
// file of at most DiskBytes (and a tenth of the free space) in o.Dir.
func (p *prober) disk(ctx context.Context) {
	dir, err := filepath.Abs(p.o.Dir)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(dir); err == nil && !st.IsDir() {
			err = fmt.Errorf("not a directory")
		}
	}
	if err != nil {
		p.skip(PartDisk, finding.T(fmt.Sprintf("--dir %s: %v", p.o.Dir, err), fmt.Sprintf("--dir %s：%v", p.o.Dir, err)))
		return
	}
	p.res.Dir = dir
	var sf unix.Statfs_t
	if err := unix.Statfs(dir, &sf); err != nil {
		p.skip(PartDisk, finding.T(fmt.Sprintf("statfs %s: %v", dir, err), fmt.Sprintf("statfs %s：%v", dir, err)))
		return
	}
	fs := fsName(int64(sf.Type))
	p.res.DiskFS = fs
	if fs == "tmpfs" || fs == "ramfs" {
		p.res.Notes = append(p.res.Notes, finding.T(dir+" is on "+fs+": memory, not a disk", dir+" 位于 "+fs+"：这是内存而不是磁盘"))
	}
	size := min(p.b.diskBytes, int64(sf.Bavail)*int64(sf.Bsize)/10) &^ (seqBlock - 1)
	if size < minDiskBytes {
		p.skip(PartDisk, finding.T(fmt.Sprintf("%s: under %d MiB free for a tenth of the space", dir, minDiskBytes>>20*10),
			fmt.Sprintf("%s：可用空间的十分之一不足 %d MiB", dir, minDiskBytes>>20)))
		return
	}
	p.res.DiskBytes = size
	f, err := openDisk(dir)
	if err != nil {
		p.skip(PartDisk, finding.T(fmt.Sprintf("a file in %s: %v", dir, err), fmt.Sprintf("在 %s 中建文件：%v", dir, err)))
		return
	}
	defer f.close()
	sync, err := openUnnamed(dir)
	if err != nil {
		p.skip(PartDisk, finding.T(fmt.Sprintf("a file in %s: %v", dir, err), fmt.Sprintf("在 %s 中建文件：%v", dir, err)))
		return
	}
	defer unix.Close(sync)
	over, err := openUnnamed(dir)
	if err != nil {
		p.skip(PartDisk, finding.T(fmt.Sprintf("a file in %s: %v", dir, err), fmt.Sprintf("在 %s 中建文件：%v", dir, err)))
		return
	}
	defer unix.Close(over)
	buf, err := unix.Mmap(-1, 0, seqBlock, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		p.skip(PartDisk, finding.T("buffer: "+err.Error(), "缓冲区："+err.Error()))
		return
	}
	defer unix.Munmap(buf)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range buf {
		buf[i] = byte(r.Uint32()) // incompressible, for filesystems that compress
	}
	// Fill the file once, so reads read the device and writes overwrite.
	for off := int64(0); off < size; off += seqBlock {
		if ctx.Err() != nil {
			return
		}
		if _, err := unix.Pwrite(f.io(), buf, off); err != nil {
			if f.direct && errors.Is(err, unix.EINVAL) {
				// O_DIRECT opened but refused at the first write (alignment rules).
				unix.Close(f.dfd)
				f.dfd, f.direct = -1, false
				off -= seqBlock
				continue
			}
			p.skip(PartDisk, finding.T(fmt.Sprintf("writing %d MiB in %s: %v", size>>20, dir, err), fmt.Sprintf("在 %s 写入 %d MiB：%v", dir, size>>20, err)))
			return
		}
	}
	unix.Fdatasync(f.fd)
	var ioNote finding.Text
	if !f.direct {
		ioNote = finding.T("buffered: "+fs+" refused O_DIRECT; writes end with fdatasync, the file's cache is dropped before reads",
			"带缓存："+fs+" 不支持 O_DIRECT；写以 fdatasync 结束，读之前丢弃该文件的缓存")
	}
	lat := &latDist{}
	var p99 float64
	var appendAt, overAt int64
	seqOff := int64(0)
	// The overwritten file's first MiB exists before its first timed write.
	for off := int64(0); off < 1<<20; off += randBlock {
		if _, err := unix.Pwrite(over, buf[:randBlock], off); err != nil {
			p.skip(PartDisk, finding.T(fmt.Sprintf("writing in %s: %v", dir, err), fmt.Sprintf("在 %s 写入：%v", dir, err)))
			return
		}
	}
	unix.Fdatasync(over)
	benches := []bench{
		{id: "disk.fsync", unit: "us", name: finding.T("fsync latency, median (append 4 KiB + fdatasync, as a log)", "fsync 延迟中位数（追加 4 KiB + fdatasync，如日志）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) {
				m, q, err := fsyncRound(ctx, sync, buf[:randBlock], d, lat, true, &appendAt)
				p99 = q
				return m, err
			}, dist: lat.buckets},
		{id: "disk.fsync_p99", unit: "us", follows: true, name: finding.T("fsync latency, 99th percentile (same operations)", "fsync 延迟 P99（同一批操作）"),
			run: func(context.Context, time.Duration) (float64, error) { return p99, nil }},
		{id: "disk.fsync_overwrite", unit: "us", name: finding.T("fsync latency, median (overwrite 4 KiB + fdatasync, as a preallocated WAL)", "fsync 延迟中位数（覆盖写 4 KiB + fdatasync，如预分配的 WAL）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) {
				m, _, err := fsyncRound(ctx, over, buf[:randBlock], d, nil, false, &overAt)
				return m, err
			}},
		{id: "disk.seq_write", unit: "MB/s", higher: true, note: constNote(ioNote), name: finding.T("sequential write, 1 MiB blocks", "顺序写（1 MiB 块）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) {
				return seqRound(ctx, f, buf, size, &seqOff, d, true)
			}},
		{id: "disk.seq_read", unit: "MB/s", higher: true, note: constNote(ioNote), name: finding.T("sequential read, 1 MiB blocks", "顺序读（1 MiB 块）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) {
				return seqRound(ctx, f, buf, size, &seqOff, d, false)
			}},
		{id: "disk.rand_read", unit: "IOPS", higher: true, note: constNote(ioNote), name: finding.T("random read, 4 KiB, one at a time", "随机读（4 KiB，队列深度 1）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) {
				return randRound(ctx, f, buf[:randBlock], size, r, d, false)
			}},
		{id: "disk.rand_write", unit: "IOPS", higher: true, note: constNote(ioNote), name: finding.T("random write, 4 KiB, one at a time", "随机写（4 KiB，队列深度 1）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) {
				return randRound(ctx, f, buf[:randBlock], size, r, d, true)
			}},
	}
	p.rounds(ctx, PartDisk, benches, p.b.disk)
}

// fsyncAppendCap is where the appended fsync file starts over (truncated
// to nothing, outside the timed operations).
const fsyncAppendCap = 64 << 20

// fsyncRound writes 4 KiB and fdatasyncs, over and over for d, each
// operation's latency into dist (when not nil); it returns the round's
// median and p99, µs. With grow, each write goes at the end of the file
// (a log: the size changes, so the journal commits); without, it rewrites
// the first MiB in place (a preallocated write-ahead log: data only).
func fsyncRound(ctx context.Context, fd int, b []byte, d time.Duration, dist *latDist, grow bool, at *int64) (float64, float64, error) {
	var lats []float64
	start := time.Now()
	for time.Since(start) < d && ctx.Err() == nil {
		if grow && *at >= fsyncAppendCap {
			if err := unix.Ftruncate(fd, 0); err != nil {
				return 0, 0, err
			}
			unix.Fdatasync(fd)
			*at = 0
		}
		t := time.Now()
		if _, err := unix.Pwrite(fd, b, *at); err != nil {
			return 0, 0, err
		}
		if err := unix.Fdatasync(fd); err != nil {
			return 0, 0, err
		}
		us := float64(time.Since(t).Nanoseconds()) / 1e3
		lats = append(lats, us)
		if dist != nil {
			dist.add(us)
		}
		*at += randBlock
		if !grow {
			*at %= 1 << 20
		}
	}
	if len(lats) == 0 {
		return math.NaN(), math.NaN(), ctx.Err()
	}
	slices.Sort(lats)
	return lats[len(lats)/2], lats[min(len(lats)-1, int(math.Ceil(0.99*float64(len(lats))))-1)], nil
}

// seqRound writes or reads 1 MiB blocks from *off on (wrapping at size)
// for d, in MB/s; buffered writes are synced and buffered reads start
// from a dropped cache, inside and outside the time respectively.
func seqRound(ctx context.Context, f *diskFile, b []byte, size int64, off *int64, d time.Duration, write bool) (float64, error) {
	fd := f.io()
	if !f.direct && !write {
		unix.Fadvise(fd, 0, size, unix.FADV_DONTNEED)
	}
	var n int64
	start := time.Now()
	for time.Since(start) < d && ctx.Err() == nil {
		var err error
		if write {
			_, err = unix.Pwrite(fd, b, *off)
		} else {
			_, err = unix.Pread(fd, b, *off)
		}
		if err != nil {
			return 0, err
		}
		n += int64(len(b))
		*off = (*off + int64(len(b))) % size
	}
	if write && !f.direct {
		if err := unix.Fdatasync(fd); err != nil {
			return 0, err
		}
	}
	return float64(n) / time.Since(start).Seconds() / 1e6, nil
}

// randRound does 4 KiB reads or writes at random aligned offsets, one at
// a time, for d: operations per second.
func randRound(ctx context.Context, f *diskFile, b []byte, size int64, r *rand.Rand, d time.Duration, write bool) (float64, error) {
	fd := f.io()
	if !f.direct && !write {
		unix.Fadvise(fd, 0, size, unix.FADV_DONTNEED)
	}
	blocks := size / randBlock
	var n int64
	start := time.Now()
	for time.Since(start) < d && ctx.Err() == nil {
		off := r.Int64N(blocks) * randBlock
		var err error
		if write {
			_, err = unix.Pwrite(fd, b, off)
		} else {
			_, err = unix.Pread(fd, b, off)
		}
		if err != nil {
			return 0, err
		}
		n++
	}
	if write && !f.direct {
		if err := unix.Fdatasync(fd); err != nil {
			return 0, err
		}
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// latDist counts latencies in power-of-two buckets from 1 µs to 16 s.
type latDist struct{ n [25]int64 }

func (l *latDist) add(us float64) {
	i := 0
	for le := 1.0; us > le && i < len(l.n)-1; le *= 2 {
		i++
	}
	l.n[i]++
}

func (l *latDist) buckets() []Bucket {
	var out []Bucket
	first, last := -1, -1
	for i, c := range l.n {
		if c > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for i := max(first, 0); first >= 0 && i <= last; i++ {
		out = append(out, Bucket{LeUS: math.Ldexp(1, i), Count: l.n[i]})
	}
	return out
}
