package sysinfo

import "github.com/tuneloop/tuneloop/internal/ethtool"

// ethtoolGChannels asks the driver for its channel counts (`ethtool -l`).
// Works unprivileged; drivers without channels return EOPNOTSUPP.
func ethtoolGChannels(ifname string) (combined, maxCombined int, err error) {
	ch, err := ethtool.GetChannels(ifname)
	if err != nil {
		return 0, 0, err
	}
	return int(ch.CombinedCount), int(ch.MaxCombined), nil
}
