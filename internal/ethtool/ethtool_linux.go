//go:build linux

// Package ethtool speaks the SIOCETHTOOL ioctl for a NIC's channel counts:
// what `ethtool -l` reads (sysinfo, unprivileged) and `ethtool -L` writes
// (apply, as root). No ethtool binary is needed.
package ethtool

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Channels is struct ethtool_channels (linux/ethtool.h).
type Channels struct {
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

func ioctl(ifname string, ch *Channels) error {
	if len(ifname) >= unix.IFNAMSIZ {
		return fmt.Errorf("interface name %q too long", ifname)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("ethtool socket: %w", err)
	}
	defer unix.Close(fd)
	var ifr ifreqData
	copy(ifr.Name[:], ifname)
	ifr.Data = unsafe.Pointer(ch)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(unix.SIOCETHTOOL), uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(ch)
	if errno != 0 {
		return errno
	}
	return nil
}

// GetChannels reads the NIC's channel counts (`ethtool -l`). Drivers
// without channels return EOPNOTSUPP.
func GetChannels(ifname string) (Channels, error) {
	ch := Channels{Cmd: unix.ETHTOOL_GCHANNELS}
	if err := ioctl(ifname, &ch); err != nil {
		return ch, fmt.Errorf("ethtool -l %s: %w", ifname, err)
	}
	return ch, nil
}

// SetChannels writes every count of ch (`ethtool -L`): read them first
// with GetChannels and change only what is meant to change.
func SetChannels(ifname string, ch Channels) error {
	ch.Cmd = unix.ETHTOOL_SCHANNELS
	return ioctl(ifname, &ch)
}
