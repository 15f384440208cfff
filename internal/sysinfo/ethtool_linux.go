//go:build linux

package sysinfo

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ethtoolChannels is struct ethtool_channels (linux/ethtool.h).
type ethtoolChannels struct {
	Cmd           uint32
	MaxRx         uint32
	MaxTx         uint32
	MaxOther      uint32
	MaxCombined   uint32
	RxCount       uint32
	TxCount       uint32
	OtherCount    uint32
	CombinedCount uint32
}

// ifreqData is struct ifreq with ifr_data: IFNAMSIZ name + a pointer,
// padded to the kernel's 40-byte union.
type ifreqData struct {
	Name [unix.IFNAMSIZ]byte
	Data unsafe.Pointer
	_    [24 - unsafe.Sizeof(uintptr(0))]byte
}

// ethtoolGChannels asks the driver for its channel counts (`ethtool -l`).
// Works unprivileged; drivers without channels return EOPNOTSUPP.
func ethtoolGChannels(ifname string) (combined, maxCombined int, err error) {
	if len(ifname) >= unix.IFNAMSIZ {
		return 0, 0, fmt.Errorf("interface name %q too long", ifname)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("ethtool socket: %w", err)
	}
	defer unix.Close(fd)
	ch := &ethtoolChannels{Cmd: unix.ETHTOOL_GCHANNELS}
	var ifr ifreqData
	copy(ifr.Name[:], ifname)
	ifr.Data = unsafe.Pointer(ch)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(unix.SIOCETHTOOL), uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(ch)
	if errno != 0 {
		return 0, 0, fmt.Errorf("ethtool -l %s: %w", ifname, errno)
	}
	return int(ch.CombinedCount), int(ch.MaxCombined), nil
}
