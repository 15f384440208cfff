package attach

// The hsperfdata file a HotSpot JVM maps at /tmp/hsperfdata_USER/NSPID
// (unless -XX:-UsePerfData): a binary prologue, then entries. Sample (od -c
// of the start of a file, then of one entry's name and value):
//
//	0000000 312 376 300 300 001 002 000 001 ...          magic cafec0c0, little-endian, v2.0, accessible
//	        s u n . r t . j v m C a p a b i l i t i e s \0 1 1 0 0 0 ...
//	        s u n . r t . j a v a C o m m a n d \0 S l e e p e r   1 2 0
//
// Prologue (perfMemory.hpp): magic u32 (always big-endian), byte_order u8 (0
// big, 1 little), major u8, minor u8, accessible u8, used i32, overflow i32,
// mod_time_stamp i64, entry_offset i32 (at 24), num_entries i32 (at 28).
// Entry: entry_length i32, name_offset i32, vector_length i32, data_type u8
// ('B' byte vector = string, 'J' long), flags u8, units u8, variability u8,
// data_offset i32; offsets are from the start of the entry.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
)

var errNotPerfData = errors.New("not an hsperfdata file")

// parsePerfData returns the string entries and the long entries (in decimal)
// of an hsperfdata file. A truncated or damaged file yields what was read
// before the damage.
func parsePerfData(b []byte) (map[string]string, error) {
	if len(b) < 32 || !bytes.Equal(b[:4], []byte{0xca, 0xfe, 0xc0, 0xc0}) {
		return nil, errNotPerfData
	}
	var bo binary.ByteOrder = binary.BigEndian
	if b[4] == 1 {
		bo = binary.LittleEndian
	}
	i32 := func(off int) int {
		if off < 0 || off+4 > len(b) {
			return -1
		}
		return int(int32(bo.Uint32(b[off:])))
	}
	off, n := i32(24), i32(28)
	out := make(map[string]string)
	for k := 0; k < n && off >= 0 && off+20 <= len(b); k++ {
		length, nameOff, vecLen, dataOff := i32(off), i32(off+4), i32(off+8), i32(off+16)
		typ := b[off+12]
		if length <= 0 || off+length > len(b) || nameOff < 0 || dataOff < 0 || nameOff >= length || dataOff > length {
			return out, errors.New("hsperfdata: damaged entry")
		}
		entry := b[off : off+length]
		name := entry[nameOff:]
		if j := bytes.IndexByte(name, 0); j >= 0 {
			name = name[:j]
		}
		data := entry[dataOff:]
		switch {
		case typ == 'B' && vecLen > 0:
			if vecLen < len(data) {
				data = data[:vecLen]
			}
			if j := bytes.IndexByte(data, 0); j >= 0 {
				data = data[:j]
			}
			out[string(name)] = string(data)
		case typ == 'J' && vecLen == 0 && len(data) >= 8:
			out[string(name)] = strconv.FormatInt(int64(bo.Uint64(data)), 10)
		}
		off += length
	}
	return out, nil
}

// attachCapable reads sun.rt.jvmCapabilities: its first character is '1'
// when the JVM supports attach ('0' with -XX:+DisableAttachMechanism).
func attachCapable(pd map[string]string) (capable, known bool) {
	c, ok := pd["sun.rt.jvmCapabilities"]
	if !ok || c == "" {
		return false, false
	}
	return c[0] == '1', true
}
