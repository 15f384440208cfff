//go:build !linux

// Package ethtool speaks the SIOCETHTOOL ioctl for a NIC's channel counts
// (Linux only).
package ethtool

import "errors"

// Channels is struct ethtool_channels.
type Channels struct {
	Cmd, MaxRx, MaxTx, MaxOther, MaxCombined, RxCount, TxCount, OtherCount, CombinedCount uint32
}

var errLinux = errors.New("ethtool: linux only")

// GetChannels is Linux only.
func GetChannels(string) (Channels, error) { return Channels{}, errLinux }

// SetChannels is Linux only.
func SetChannels(string, Channels) error { return errLinux }
