// Package units is the one home of the small decisions about quantities
// that several parts of tuneloop make: reading and writing byte sizes
// ("512m", "4GiB"), resource limits ("unlimited", "1024:4096") and hex
// numbers (chunk sizes, /proc/net/tcp fields). Before it, each caller had
// its own copy and the copies disagreed (hex accepted in one, GiB in
// another; "infinity" in one, "unlimited" only in another). Like pprof's
// measurement package it knows units, nothing about where a value came from.
//
// Sample values it reads:
//
//	512m  4G  0x100  4GiB  100 KB  1048576      (sizes)
//	unlimited  infinity  -1  1024  1024:4096    (rlimits)
//	1a2b  FFFF  0000000f                        (hex)
package units
