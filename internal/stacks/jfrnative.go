package stacks

import "encoding/binary"

// jdk.NativeMethodSample, read by the validator's walk: the JFR library has
// no type for it and skips it, so the thread in native code (a socket or
// file read, an epoll wait) would be missing from the wall view.

// jfrNative is one jdk.NativeMethodSample: a thread sampled in native code
// (a socket or file read, an epoll wait). The library has no type for the
// event and skips it, so this walk, which reads every event's fields from
// the chunk's metadata anyway, keeps its keys into the chunk's pools.
type jfrNative struct {
	ticks  uint64 // startTime, in the chunk's ticks
	thread uint64 // sampledThread: a java.lang.Thread pool key
	stack  uint64 // stackTrace: a jdk.types.StackTrace pool key (0: none)
}

// jfrChunk is one whole, valid chunk: buf[start:end], and its native samples
// in the order written.
type jfrChunk struct {
	start, end int
	natives    []jfrNative
}

// scanJFR is checkJFR giving the whole, valid leading chunks (those before
// the error, all of them when err is nil).
func scanJFR(buf []byte) ([]jfrChunk, error) {
	var chunks []jfrChunk
	pos := 0
	for pos < len(buf) {
		natives, err := checkChunk(buf, pos)
		if err != nil {
			return chunks, err
		}
		end := pos + int(binary.BigEndian.Uint64(buf[pos+8:]))
		chunks = append(chunks, jfrChunk{start: pos, end: end, natives: natives})
		pos = end
	}
	return chunks, nil
}

// native reads a jdk.NativeMethodSample's fields (just checked) by name,
// from the metadata: startTime, sampledThread and stackTrace as JDK 11-25
// write them; any other field is skipped, one of another shape left unread.
func (c *chunkCheck) native(r *jfrReader, cls *jfrClass) (jfrNative, error) {
	var n jfrNative
	for _, f := range cls.fields {
		var to *uint64
		switch {
		case f.array:
		case f.name == "startTime" && !f.cp && c.prim[f.typ] == primLong:
			to = &n.ticks
		case f.name == "sampledThread" && f.cp && c.classes[f.typ] != nil && c.classes[f.typ].name == "java.lang.Thread":
			to = &n.thread
		case f.name == "stackTrace" && f.cp && c.classes[f.typ] != nil && c.classes[f.typ].name == "jdk.types.StackTrace":
			to = &n.stack
		}
		if to == nil {
			if err := c.field(r, cls, f, modeSpec, 0); err != nil {
				return n, err
			}
			continue
		}
		v, err := r.varlong(cls.name + "." + f.name)
		if err != nil {
			return n, err
		}
		*to = v
	}
	return n, nil
}
