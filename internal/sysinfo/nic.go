package sysinfo

// Network interfaces, /sys/class/net/NAME/ (device is a link into the
// device tree; virtual interfaces have none):
//
//	device -> ../../../virtio2        (PCI parent: /sys/devices/pci0000:00/0000:00:03.0)
//	device/driver -> ../../../../bus/virtio/drivers/virtio_net
//	speed: 25000   mtu: 1500   operstate: up
//	queues/rx-0/rps_cpus: 00000000,0000ff00   queues/rx-0/rps_flow_cnt: 0

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

var (
	pciAddrRE = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)
	virtioRE  = regexp.MustCompile(`^virtio([0-9]+)$`)
)

// devicePath facts derived from the resolved device link path.
type devicePath struct {
	pci       string // last PCI address in the path
	pciDir    string // host directory of that PCI function
	virtioIdx int    // N of a trailing "virtioN", else -1
	transport string // nvme, virtio, scsi, ata, mmc, usb, pci
}

// parseDevicePath reads a resolved sysfs device path such as
// /sys/devices/pci0000:00/0000:00:03.0/virtio2 or
// /sys/devices/pci0000:7c/0000:7c:00.0/0000:7d:00.0.
func parseDevicePath(p string) devicePath {
	d := devicePath{virtioIdx: -1}
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i, c := range parts {
		if pciAddrRE.MatchString(c) {
			d.pci = c
			d.pciDir = strings.Join(parts[:i+1], "/")
		}
	}
	if m := virtioRE.FindStringSubmatch(parts[len(parts)-1]); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			d.virtioIdx = n
		}
	}
	for _, c := range parts {
		switch {
		case strings.HasPrefix(c, "nvme"):
			d.transport = "nvme"
		case virtioRE.MatchString(c):
			d.transport = "virtio"
		case strings.HasPrefix(c, "ata"):
			d.transport = "ata"
		case strings.HasPrefix(c, "mmc"):
			d.transport = "mmc"
		case strings.HasPrefix(c, "usb"):
			d.transport = "usb"
		}
		if d.transport != "" {
			break
		}
	}
	if d.transport == "" {
		for _, c := range parts {
			if strings.HasPrefix(c, "host") || strings.HasPrefix(c, "target") {
				d.transport = "scsi"
			}
		}
	}
	if d.transport == "" && d.pci != "" {
		d.transport = "pci"
	}
	return d
}

// irqNameMatches reports whether an /proc/interrupts action name belongs to
// interface ifname ("eth0-TxRx-3", "eth0"), not to "eth01".
func irqNameMatches(name, ifname string) bool {
	for off := 0; ; {
		i := strings.Index(name[off:], ifname)
		if i < 0 {
			return false
		}
		i += off
		before := i == 0 || !isNameChar(name[i-1])
		end := i + len(ifname)
		after := end == len(name) || !isAlnum(name[end])
		if before && after {
			return true
		}
		off = i + 1
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameChar(c byte) bool { return isAlnum(c) || c == '_' }

// virtioQueueIRQ matches virtio-net queue IRQs of device virtioN:
// "virtio2-input.0", "virtio2-output.0" (config IRQs are not queues).
func virtioQueueIRQ(name string, idx int) bool {
	p := "virtio" + strconv.Itoa(idx) + "-"
	return strings.HasPrefix(name, p+"input") || strings.HasPrefix(name, p+"output")
}

func collectNICs(h hostfs.FS, ethtool bool) Field[[]NIC] {
	dir := h.SysPath("class/net")
	names, err := h.ReadDir(dir)
	if err != nil {
		return Missing[[]NIC](err)
	}
	irqs, irqErr := readInterrupts(h)
	var nics []NIC
	var firstErr error
	for _, n := range names {
		if n == "bonding_masters" { // a control file of the bonding driver
			continue
		}
		nic, err := readNIC(h, dir+"/"+n, n, irqs, irqErr, ethtool)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		nics = append(nics, nic)
	}
	if len(nics) == 0 {
		if firstErr == nil {
			firstErr = finding.Errorf(finding.T("%s: no interfaces", "%s: 没有网络接口"), h.Display(dir))
		}
		return Missing[[]NIC](firstErr)
	}
	return Got(nics, h.Display(dir))
}

func readNIC(h hostfs.FS, dir, name string, irqs interruptTable, irqErr error, ethtool bool) (NIC, error) {
	nic := NIC{Name: name, SpeedMbps: -1, NUMANode: -1}
	// mtu and operstate are always there; without them this is not a NIC
	// directory we understand.
	mtu := readField(h, dir+"/mtu", parseInt)
	if !mtu.OK {
		return nic, mtu.AsErr()
	}
	op := readField(h, dir+"/operstate", parseText)
	if !op.OK {
		return nic, op.AsErr()
	}
	nic.MTU, nic.OperState = mtu.Value, op.Value
	if sp := readField(h, dir+"/speed", parseInt); sp.OK && sp.Value > 0 {
		nic.SpeedMbps = sp.Value
	}
	typ := readField(h, dir+"/type", parseInt)
	nic.Loopback = name == "lo" || (typ.OK && typ.Value == 772)

	dev := dir + "/device"
	var dp devicePath
	if !h.Exists(dev) {
		nic.Virtual = true
	} else {
		if d, err := h.ReadLink(dev + "/driver"); err == nil {
			nic.Driver = filepath.Base(d)
		}
		dp = resolveDevice(h, dev)
		nic.PCI = dp.pci
		nic.NUMANode = deviceNUMA(h, dev, dp)
	}

	if qs, err := h.ReadDir(dir + "/queues"); err == nil {
		for _, q := range qs {
			switch {
			case strings.HasPrefix(q, "rx-"):
				nic.RxQueues++
				rq := RPSQueue{Queue: q, CPUs: []int{}}
				if c := readField(h, dir+"/queues/"+q+"/rps_cpus", parseHexMask); c.OK {
					rq.CPUs = c.Value
				}
				if fc := readField(h, dir+"/queues/"+q+"/rps_flow_cnt", parseInt); fc.OK {
					rq.FlowCnt = fc.Value
				}
				nic.RPS = append(nic.RPS, rq)
			case strings.HasPrefix(q, "tx-"):
				nic.TxQueues++
			}
		}
		slices.SortFunc(nic.RPS, func(a, b RPSQueue) int { return queueNum(a.Queue) - queueNum(b.Queue) })
	}

	if !nic.Virtual && irqErr == nil {
		nic.IRQs = nicIRQs(h, dev, dp, name, irqs)
	}
	if ethtool && !nic.Virtual {
		if c, m, err := ethtoolGChannels(name); err == nil {
			nic.Combined, nic.MaxCombined = c, m
		}
	}
	return nic, nil
}

func queueNum(q string) int {
	_, n, _ := strings.Cut(q, "-")
	v, _ := strconv.Atoi(n)
	return v
}

// nicIRQs finds the NIC's interrupts: MSI vectors listed in msi_irqs of
// the device (or, for virtio, of its PCI parent), else /proc/interrupts
// rows named after the interface, its virtio queues or its PCI address.
func nicIRQs(h hostfs.FS, dev string, dp devicePath, name string, t interruptTable) []IRQ {
	idx := t.byNumber()
	var nums []int
	for _, d := range []string{dev, dp.pciDir} {
		if d == "" {
			continue
		}
		ents, err := h.ReadDir(d + "/msi_irqs")
		if err != nil {
			continue
		}
		for _, e := range ents {
			n, err := strconv.Atoi(e)
			if err != nil {
				continue
			}
			// virtioN-config is the device's control vector, not a queue.
			if i, ok := idx[n]; ok && !(dp.virtioIdx >= 0 && strings.HasSuffix(t.IRQs[i].Name, "-config")) {
				nums = append(nums, n)
			}
		}
		if len(nums) > 0 {
			break
		}
	}
	if len(nums) == 0 {
		for _, q := range t.IRQs {
			if irqNameMatches(q.Name, name) ||
				(dp.virtioIdx >= 0 && virtioQueueIRQ(q.Name, dp.virtioIdx)) ||
				(dp.pci != "" && strings.Contains(q.Name, dp.pci)) {
				nums = append(nums, q.Number)
			}
		}
	}
	slices.Sort(nums)
	out := make([]IRQ, 0, len(nums))
	for _, n := range nums {
		q := t.IRQs[idx[n]]
		q.Counts = slices.Clone(q.Counts)
		_ = irqAffinity(h, &q) // affinity stays nil when unreadable
		out = append(out, q)
	}
	return out
}

// resolveDevice follows a sysfs "device" link. A fixture copied without its
// symlinks still names the PCI address or virtioN in the link text.
func resolveDevice(h hostfs.FS, dev string) devicePath {
	var dp devicePath
	if real, err := filepath.EvalSymlinks(dev); err == nil {
		dp = parseDevicePath(real)
	}
	if dp.pci == "" && dp.virtioIdx < 0 {
		if t, err := h.ReadLink(dev); err == nil {
			alt := parseDevicePath(t)
			alt.pciDir = "" // relative text, not a directory we can read
			dp = alt
		}
	}
	return dp
}

// deviceNUMA reads numa_node of the device or its PCI function; -1 when
// neither says (single-node hosts, virtio without a PCI parent).
func deviceNUMA(h hostfs.FS, dev string, dp devicePath) int {
	paths := []string{dev + "/numa_node"}
	if dp.pciDir != "" {
		paths = append(paths, dp.pciDir+"/numa_node")
	}
	for _, p := range paths {
		if nn := readField(h, p, parseInt); nn.OK {
			return max(nn.Value, -1)
		}
	}
	return -1
}
