package sysinfo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

func TestParseDevicePath(t *testing.T) {
	tests := []struct {
		in        string
		pci       string
		virtio    int
		transport string
	}{
		{"/sys/devices/pci0000:00/0000:00:03.0/virtio2", "0000:00:03.0", 2, "virtio"},
		{"/sys/devices/pci0000:7c/0000:7c:00.0/0000:7d:00.0", "0000:7d:00.0", -1, "pci"},
		{"/sys/devices/pci0000:00/0000:00:1d.0/nvme/nvme0", "0000:00:1d.0", -1, "nvme"},
		{"/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0", "0000:00:17.0", -1, "ata"},
		{"/sys/devices/pci0000:00/0000:00:10.0/host2/target2:0:0/2:0:0:0", "0000:00:10.0", -1, "scsi"},
		{"/sys/devices/platform/soc/mmc_host/mmc0/mmc0:0001", "", -1, "mmc"},
		{"../../../virtio2", "", 2, "virtio"},
		{"", "", -1, ""},
	}
	for _, tt := range tests {
		d := parseDevicePath(tt.in)
		if d.pci != tt.pci || d.virtioIdx != tt.virtio || d.transport != tt.transport {
			t.Errorf("parseDevicePath(%q) = %+v", tt.in, d)
		}
	}
}

func TestIRQNameMatches(t *testing.T) {
	tests := []struct {
		name, ifname string
		want         bool
	}{
		{"eth0-TxRx-3", "eth0", true},
		{"eth0", "eth0", true},
		{"eth01-TxRx-0", "eth0", false},
		{"veth0", "eth0", false},
		{"mlx5_comp0@pci:0000:7d:00.0", "eth0", false},
		{"enp125s0f0-rx-1", "enp125s0f0", true},
	}
	for _, tt := range tests {
		if got := irqNameMatches(tt.name, tt.ifname); got != tt.want {
			t.Errorf("irqNameMatches(%q, %q) = %v", tt.name, tt.ifname, got)
		}
	}
	if !virtioQueueIRQ("virtio2-input.0", 2) || !virtioQueueIRQ("virtio2-output.3", 2) || virtioQueueIRQ("virtio2-config", 2) || virtioQueueIRQ("virtio12-input.0", 1) {
		t.Error("virtioQueueIRQ")
	}
}

// symlink creates link -> target, making parent directories.
func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestCollectNICs(t *testing.T) {
	dir := t.TempDir()
	vio := "sys/devices/pci0000:00/0000:00:03.0"
	hinic := "sys/devices/pci0000:7c/0000:7c:00.0/0000:7d:00.0"
	writeTree(t, dir, map[string]string{
		// This Firecracker VM's virtio NIC (MSI vectors on the PCI parent).
		vio + "/numa_node":                                       "-1\n",
		vio + "/msi_irqs/37":                                     "msix\n",
		vio + "/msi_irqs/38":                                     "msix\n",
		vio + "/msi_irqs/39":                                     "msix\n",
		vio + "/virtio2/net/eth0/mtu":                            "1400\n",
		vio + "/virtio2/net/eth0/operstate":                      "up\n",
		vio + "/virtio2/net/eth0/type":                           "1\n",
		vio + "/virtio2/net/eth0/queues/rx-0/rps_cpus":           "0\n",
		vio + "/virtio2/net/eth0/queues/rx-0/rps_flow_cnt":       "0\n",
		vio + "/virtio2/net/eth0/queues/tx-0/xps_cpus":           "1\n",
		"sys/bus/virtio/drivers/virtio_net/uevent":               "",
		"sys/bus/pci/drivers/hinic/uevent":                       "",
		hinic + "/numa_node":                                     "0\n",
		hinic + "/msi_irqs/63":                                   "msix\n",
		hinic + "/msi_irqs/64":                                   "msix\n",
		hinic + "/net/enp125s0f0/mtu":                            "1500\n",
		hinic + "/net/enp125s0f0/operstate":                      "up\n",
		hinic + "/net/enp125s0f0/speed":                          "25000\n",
		hinic + "/net/enp125s0f0/queues/rx-0/rps_cpus":           "00000000,0000ff00\n",
		hinic + "/net/enp125s0f0/queues/rx-1/rps_cpus":           "0\n",
		hinic + "/net/enp125s0f0/queues/rx-0/rps_flow_cnt":       "4096\n",
		hinic + "/net/enp125s0f0/queues/tx-0/xps_cpus":           "0\n",
		hinic + "/net/enp125s0f0/queues/tx-1/xps_cpus":           "0\n",
		"sys/devices/pci0000:00/0000:00:05.0/net/eth1/mtu":       "9000\n",
		"sys/devices/pci0000:00/0000:00:05.0/net/eth1/operstate": "down\n",
		"sys/devices/virtual/net/lo/mtu":                         "65536\n",
		"sys/devices/virtual/net/lo/operstate":                   "unknown\n",
		"sys/devices/virtual/net/lo/type":                        "772\n",
		"proc/interrupts": "           CPU0       CPU1\n" +
			" 37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n" +
			" 38:          0        645 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n" +
			" 39:        718          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n" +
			" 50:          5          0 PCI-MSI-0000:00:05.0   0-edge      eth1-TxRx-0\n" +
			" 51:          5          0 PCI-MSI-0000:00:05.0   1-edge      eth10-TxRx-0\n" +
			" 63:          9          0   ITS-MSI 524288 Edge      hinic0_queue0\n" +
			" 64:          8          0   ITS-MSI 524289 Edge      hinic0_queue1\n" +
			"NMI:          0          0   Non-maskable interrupts\n",
		"proc/irq/38/smp_affinity_list":       "0-1\n",
		"proc/irq/38/effective_affinity_list": "1\n",
		"proc/irq/39/smp_affinity_list":       "0-1\n",
		"proc/irq/63/smp_affinity_list":       "0\n",
		"proc/irq/64/smp_affinity_list":       "0\n",
	})
	symlink(t, "../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0", dir+"/sys/class/net/eth0")
	symlink(t, "../../../virtio2", dir+"/"+vio+"/virtio2/net/eth0/device")
	symlink(t, "../../../../bus/virtio/drivers/virtio_net", dir+"/"+vio+"/virtio2/driver")
	symlink(t, "../../devices/pci0000:7c/0000:7c:00.0/0000:7d:00.0/net/enp125s0f0", dir+"/sys/class/net/enp125s0f0")
	symlink(t, "../../../0000:7d:00.0", dir+"/"+hinic+"/net/enp125s0f0/device")
	symlink(t, "../../../../bus/pci/drivers/hinic", dir+"/"+hinic+"/driver")
	symlink(t, "../../devices/pci0000:00/0000:00:05.0/net/eth1", dir+"/sys/class/net/eth1")
	symlink(t, "../../../0000:00:05.0", dir+"/sys/devices/pci0000:00/0000:00:05.0/net/eth1/device")
	symlink(t, "../../devices/virtual/net/lo", dir+"/sys/class/net/lo")

	f := collectNICs(hostfs.Under(dir), false)
	if !f.OK || len(f.Value) != 4 {
		t.Fatalf("got %+v", f)
	}
	byName := map[string]NIC{}
	for _, n := range f.Value {
		byName[n.Name] = n
	}

	eth0 := byName["eth0"]
	if eth0.Driver != "virtio_net" || eth0.Virtual || eth0.PCI != "0000:00:03.0" || eth0.MTU != 1400 || eth0.SpeedMbps != -1 ||
		eth0.NUMANode != -1 || eth0.RxQueues != 1 || eth0.TxQueues != 1 || len(eth0.IRQs) != 2 {
		t.Errorf("eth0: %+v", eth0)
	} else if q := eth0.IRQs[0]; q.Number != 38 || q.Name != "virtio2-input.0" || !slices.Equal(q.Affinity, []int{0, 1}) || !slices.Equal(q.Effective, []int{1}) {
		t.Errorf("eth0 irq: %+v", q)
	}

	hn := byName["enp125s0f0"]
	if hn.Driver != "hinic" || hn.PCI != "0000:7d:00.0" || hn.NUMANode != 0 || hn.SpeedMbps != 25000 || hn.RxQueues != 2 || hn.TxQueues != 2 {
		t.Errorf("hinic: %+v", hn)
	}
	if len(hn.RPS) != 2 || !slices.Equal(hn.RPS[0].CPUs, []int{8, 9, 10, 11, 12, 13, 14, 15}) || hn.RPS[0].FlowCnt != 4096 || len(hn.RPS[1].CPUs) != 0 {
		t.Errorf("hinic rps: %+v", hn.RPS)
	}
	if len(hn.IRQs) != 2 || hn.IRQs[0].Name != "hinic0_queue0" || !slices.Equal(hn.IRQs[1].Affinity, []int{0}) {
		t.Errorf("hinic irqs: %+v", hn.IRQs)
	}

	// No msi_irqs: fall back to names; eth10 must not match eth1.
	e1 := byName["eth1"]
	if len(e1.IRQs) != 1 || e1.IRQs[0].Number != 50 {
		t.Errorf("eth1: %+v", e1.IRQs)
	}
	lo := byName["lo"]
	if !lo.Virtual || !lo.Loopback || lo.IRQs != nil {
		t.Errorf("lo: %+v", lo)
	}
}
