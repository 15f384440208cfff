//go:build !linux

package sysinfo

import "errors"

func ethtoolGChannels(string) (int, int, error) { return 0, 0, errors.New("ethtool: linux only") }
