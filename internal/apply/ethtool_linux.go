package apply

import (
	"fmt"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/ethtool"
)

// ethtoolKnob is a NIC's combined channel count. Ring sizes (`ethtool -G`)
// are not supported yet: resolve refuses them with that reason.
type ethtoolKnob struct{ ifc string }

func (k ethtoolKnob) read() (string, bool, error) {
	ch, err := ethtool.GetChannels(k.ifc)
	if err != nil {
		return "", false, err
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
	ch, err := ethtool.GetChannels(k.ifc)
	if err != nil {
		return err
	}
	if ch.MaxCombined > 0 && uint32(n) > ch.MaxCombined {
		return fmt.Errorf("ethtool -L %s combined %d: the hardware maximum is %d", k.ifc, n, ch.MaxCombined)
	}
	ch.CombinedCount = uint32(n)
	if err := ethtool.SetChannels(k.ifc, ch); err != nil {
		return fmt.Errorf("ethtool -L %s combined %d: %w", k.ifc, n, err)
	}
	return nil
}
