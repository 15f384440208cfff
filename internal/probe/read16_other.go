//go:build !amd64 && !arm64

package probe

import "unsafe"

// read16 is the vector read of read16.go in Go, for other architectures.
func read16(p *uint64, blocks int) uint64 {
	w := unsafe.Slice(p, blocks*8)
	var s0, s1, s2, s3 uint64
	for i := 0; i+3 < len(w); i += 4 {
		s0 += w[i]
		s1 += w[i+1]
		s2 += w[i+2]
		s3 += w[i+3]
	}
	return s0 + s1 + s2 + s3
}
