package sysinfo

import (
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

func TestIsVirtualDisk(t *testing.T) {
	for name, want := range map[string]bool{"loop0": true, "zram0": true, "dm-3": true, "md127": true, "nbd0": true, "ram1": true,
		"vda": false, "sda": false, "nvme0n1": false, "sr0": false, "mmcblk0": false} {
		if got := isVirtualDisk(name); got != want {
			t.Errorf("isVirtualDisk(%q) = %v", name, got)
		}
	}
}

func TestCollectDisks(t *testing.T) {
	dir := t.TempDir()
	vda := "sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda"
	nvme := "sys/devices/pci0000:80/0000:80:00.0/0000:81:00.0/nvme/nvme0/nvme0n1"
	sda := "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
	writeTree(t, dir, map[string]string{
		vda + "/size":                 "20971520\n",
		vda + "/queue/scheduler":      "none [mq-deadline] kyber bfq \n",
		vda + "/queue/rotational":     "1\n",
		vda + "/queue/read_ahead_kb":  "128\n",
		vda + "/queue/nr_requests":    "256\n",
		nvme + "/size":                "3750748848\n",
		nvme + "/queue/scheduler":     "[none] mq-deadline kyber\n",
		nvme + "/queue/rotational":    "0\n",
		nvme + "/queue/read_ahead_kb": "128\n",
		"sys/devices/pci0000:80/0000:80:00.0/0000:81:00.0/numa_node":        "1\n",
		"sys/devices/pci0000:80/0000:80:00.0/0000:81:00.0/nvme/nvme0/model": "HWE52P431T9M002N\n",
		sda + "/size":             "3907029168\n",
		sda + "/queue/scheduler":  "[mq-deadline] kyber bfq none\n",
		sda + "/queue/rotational": "1\n",
		"sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/queue_depth": "32\n",
		"sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/model":       "ST2000NM0055-1V4\n",
		"sys/devices/virtual/block/loop0/size":                                           "0\n",
		"sys/devices/virtual/block/loop0/queue/scheduler":                                "none\n",
	})
	symlink(t, "../devices/pci0000:00/0000:00:02.0/virtio1/block/vda", dir+"/sys/block/vda")
	symlink(t, "../../../virtio1", dir+"/"+vda+"/device")
	symlink(t, "../devices/pci0000:80/0000:80:00.0/0000:81:00.0/nvme/nvme0/nvme0n1", dir+"/sys/block/nvme0n1")
	symlink(t, "../../nvme0", dir+"/"+nvme+"/device")
	symlink(t, "../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", dir+"/sys/block/sda")
	symlink(t, "../../../0:0:0:0", dir+"/"+sda+"/device")
	symlink(t, "../devices/virtual/block/loop0", dir+"/sys/block/loop0")

	f := collectDisks(hostfs.Under(dir))
	if !f.OK || len(f.Value) != 4 {
		t.Fatalf("got %+v", f)
	}
	by := map[string]Disk{}
	for _, d := range f.Value {
		by[d.Name] = d
	}
	if d := by["vda"]; d.Transport != "virtio" || d.Scheduler != "mq-deadline" || !slices.Equal(d.Schedulers, []string{"none", "mq-deadline", "kyber", "bfq"}) ||
		!d.Rotational || d.ReadAheadKB != 128 || d.NrRequests != 256 || d.SizeBytes != 20971520*512 || d.Virtual || d.NUMANode != -1 {
		t.Errorf("vda %+v", d)
	}
	if d := by["nvme0n1"]; d.Transport != "nvme" || d.Scheduler != "none" || d.NUMANode != 1 || d.Model != "HWE52P431T9M002N" || d.Rotational {
		t.Errorf("nvme %+v", d)
	}
	if d := by["sda"]; d.Transport != "ata" || d.QueueDepth != 32 || d.Model != "ST2000NM0055-1V4" || d.Scheduler != "mq-deadline" {
		t.Errorf("sda %+v", d)
	}
	if d := by["loop0"]; !d.Virtual || d.Scheduler != "none" || d.Transport != "" {
		t.Errorf("loop0 %+v", d)
	}
}

func FuzzParseScheduler(f *testing.F) {
	f.Add("none [mq-deadline] kyber bfq")
	f.Add("none")
	f.Fuzz(func(t *testing.T, s string) {
		sel, all, err := parseScheduler(s)
		if err == nil && !slices.Contains(all, sel) {
			t.Fatalf("%q not in %v", sel, all)
		}
	})
}

func FuzzParseDevicePath(f *testing.F) {
	f.Add("/sys/devices/pci0000:00/0000:00:03.0/virtio2")
	f.Fuzz(func(t *testing.T, p string) {
		d := parseDevicePath(p)
		if d.pci != "" && !pciAddrRE.MatchString(d.pci) {
			t.Fatalf("bad pci %q", d.pci)
		}
		_ = irqNameMatches(p, "eth0")
	})
}
