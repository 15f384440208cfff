package apply

import (
	"fmt"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ethtoolChannels is struct ethtool_channels (ETHTOOL_GCHANNELS/SCHANNELS),
// the ioctl behind `ethtool -l` / `ethtool -L`.
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

// ifreqData is struct ifreq with ifr_data, padded to the kernel's 40 bytes.
type ifreqData struct {
	Name [unix.IFNAMSIZ]byte
	Data unsafe.Pointer
	_    [24 - unsafe.Sizeof(uintptr(0))]byte
}

// ethtoolKnob is a NIC's combined channel count. Ring sizes (`ethtool -G`)
// are not supported yet: resolve refuses them with that reason.
type ethtoolKnob struct{ ifc string }

func (k ethtoolKnob) ioctl(ch *ethtoolChannels) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("ethtool socket: %w", err)
	}
	defer unix.Close(fd)
	var ifr ifreqData
	copy(ifr.Name[:], k.ifc)
	ifr.Data = unsafe.Pointer(ch)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(unix.SIOCETHTOOL), uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(ch)
	if errno != 0 {
		return errno
	}
	return nil
}

func (k ethtoolKnob) read() (string, bool, error) {
	ch := &ethtoolChannels{Cmd: unix.ETHTOOL_GCHANNELS}
	if err := k.ioctl(ch); err != nil {
		return "", false, fmt.Errorf("ethtool -l %s: %w", k.ifc, err)
	}
	if ch.MaxCombined == 0 {
		return "", false, fmt.Errorf("ethtool -l %s: the driver has no combined channels (separate rx/tx ones are not supported yet)", k.ifc)
	}
	return strconv.FormatUint(uint64(ch.CombinedCount), 10), false, nil
}

func (k ethtoolKnob) write(v string, _ bool) error {
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n == 0 {
		return fmt.Errorf("ethtool -L %s combined %q: want a positive count", k.ifc, v)
	}
	// SCHANNELS takes every count: read them first and change only combined.
	ch := &ethtoolChannels{Cmd: unix.ETHTOOL_GCHANNELS}
	if err := k.ioctl(ch); err != nil {
		return fmt.Errorf("ethtool -l %s: %w", k.ifc, err)
	}
	if ch.MaxCombined > 0 && uint32(n) > ch.MaxCombined {
		return fmt.Errorf("ethtool -L %s combined %d: the hardware maximum is %d", k.ifc, n, ch.MaxCombined)
	}
	ch.Cmd, ch.CombinedCount = unix.ETHTOOL_SCHANNELS, uint32(n)
	if err := k.ioctl(ch); err != nil {
		return fmt.Errorf("ethtool -L %s combined %d: %w", k.ifc, n, err)
	}
	return nil
}
