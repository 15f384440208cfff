//go:build amd64 || arm64

package probe

// read16 sums blocks 64-byte blocks from p with 16-byte vector loads
// (read16_amd64.s, read16_arm64.s). One core's read bandwidth depends on
// the width of its loads: on the 2-core x86 VM this was measured on, over
// the same 1 GiB of data, 8-byte loads (Go's own loop, or C not
// vectorised) read 8.3-8.8 GB/s, 16-byte (SSE2) 10.0-10.6, 32-byte (AVX2)
// 15.2-15.8. The probe uses 16-byte loads, a width every amd64 and arm64
// core has, so hosts compare on one footing. (sysbench's read is a 4-byte
// load per int of a buffer it zeroed: on that VM its own loop read 11.3
// GB/s over zeros and 6.8 over data, so its figure is not like for like.)
//
//go:noescape
func read16(p *uint64, blocks int) uint64
