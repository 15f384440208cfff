package sysinfo

// Block devices, /sys/block/NAME/:
//
//	queue/scheduler:     none [mq-deadline] kyber bfq
//	queue/rotational:    0
//	queue/read_ahead_kb: 128
//	size:                2097152          (512-byte sectors)
//	device -> ../../../virtio1            (transport from the resolved path)

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// isVirtualDisk: devices without their own hardware queue.
func isVirtualDisk(name string) bool {
	for _, p := range []string{"loop", "ram", "zram", "dm-", "md", "nbd", "sr"} {
		if strings.HasPrefix(name, p) {
			return p != "sr" // optical drives are real, if rare on servers
		}
	}
	return false
}

// parseScheduler parses queue/scheduler. Single-queue kernels without a
// choice print "none" unbracketed.
func parseScheduler(s string) (string, []string, error) {
	ws, err := parseWords(s)
	if err != nil {
		return "", nil, err
	}
	if len(ws) == 1 && ws[0] == "none" {
		return "none", ws, nil
	}
	return parseBracketChoice(s)
}

func collectDisks(h hostfs.FS) Field[[]Disk] {
	dir := h.SysPath("block")
	names, err := h.ReadDir(dir)
	if err != nil {
		return Missing[[]Disk](err)
	}
	var disks []Disk
	var firstErr error
	for _, n := range names {
		d, err := readDisk(h, dir+"/"+n, n)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		disks = append(disks, d)
	}
	if len(disks) == 0 {
		if firstErr == nil {
			// No block devices at all is possible (diskless container view).
			return Got([]Disk{}, h.Display(dir))
		}
		return Missing[[]Disk](firstErr)
	}
	return Got(disks, h.Display(dir))
}

func readDisk(h hostfs.FS, dir, name string) (Disk, error) {
	d := Disk{Name: name, Virtual: isVirtualDisk(name), NUMANode: -1}
	size := readField(h, dir+"/size", parseInt)
	if !size.OK {
		return d, size.AsErr()
	}
	if size.Value < 0 {
		return d, finding.Errorf(finding.T("%s: negative size", "%s: 大小为负"), h.Display(dir+"/size"))
	}
	d.SizeBytes = int64(size.Value) * 512
	q := dir + "/queue"
	p := q + "/scheduler"
	if s, err := h.ReadString(p); err == nil {
		sel, all, err := parseScheduler(s)
		if err != nil {
			return d, fileErr(h, p, err)
		}
		d.Scheduler, d.Schedulers = sel, all
	} else if !d.Virtual {
		return d, err
	}
	if r := readField(h, q+"/rotational", parseBool01); r.OK {
		d.Rotational = r.Value
	}
	if r := readField(h, q+"/read_ahead_kb", parseInt); r.OK {
		d.ReadAheadKB = r.Value
	}
	if r := readField(h, q+"/nr_requests", parseInt); r.OK {
		d.NrRequests = r.Value
	}
	dev := dir + "/device"
	if h.Exists(dev) {
		if r := readField(h, dev+"/queue_depth", parseInt); r.OK {
			d.QueueDepth = r.Value
		}
		if m := readField(h, dev+"/model", parseText); m.OK {
			d.Model = m.Value
		}
		dp := resolveDevice(h, dev)
		d.Transport = dp.transport
		if strings.HasPrefix(name, "nvme") {
			d.Transport = "nvme"
		}
		d.NUMANode = deviceNUMA(h, dev, dp)
	}
	return d, nil
}
