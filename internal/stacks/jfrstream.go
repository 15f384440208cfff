package stacks

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// A recording is read one chunk at a time (a chunk is self-contained: its
// own metadata and constant pools), so memory holds one chunk, never the
// file, and a header that does not hold together is refused before
// anything past it is read.

// jfrMaxChunk caps one chunk: the JDK starts a new chunk at maxchunksize
// (12 MB by default), so a real chunk is far smaller; a header claiming
// more is a damaged or hostile file, and the chunk would sit in memory.
const jfrMaxChunk = 128 << 20

// JFRInfo is what the chunk headers say of a recording.
type JFRInfo struct {
	Start    time.Time     // the first chunk's start (zero if unknown)
	Duration time.Duration // the chunks' durations added up
	Chunks   int           // whole chunks read
}

// jfrChunks reads a recording from r one chunk at a time.
type jfrChunks struct {
	ctx  context.Context
	r    io.Reader
	off  int64 // the file offset of the next chunk
	info JFRInfo
}

// next returns the next whole chunk and its offset in the file; io.EOF
// after the last one. A header that is not a JFR chunk header (no magic, an
// unknown version, a size smaller than the header or over jfrMaxChunk) is a
// *jfrCheckError at once; a chunk cut short is one whose cause is
// errJFRTruncated. The first chunk without the magic is ErrNotJFR.
func (c *jfrChunks) next() ([]byte, int64, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, c.off, err
	}
	var h [jfrHeaderSize]byte
	n, err := io.ReadFull(c.r, h[:])
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		if c.info.Chunks == 0 {
			return nil, c.off, ErrNotJFR
		}
		return nil, c.off, io.EOF
	case n >= 4 && string(h[:4]) != "FLR\x00" && c.info.Chunks == 0, n < 4 && c.info.Chunks == 0:
		return nil, c.off, ErrNotJFR
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, c.off, &jfrCheckError{off: int(c.off), reason: fmt.Sprintf("chunk header needs %d bytes, %d left", jfrHeaderSize, n), cause: errJFRTruncated}
	case err != nil:
		return nil, c.off, err
	}
	if string(h[:4]) != "FLR\x00" {
		return nil, c.off, &jfrCheckError{off: int(c.off), reason: fmt.Sprintf("no chunk magic FLR\\0 (found %q)", h[:4])}
	}
	if major := binary.BigEndian.Uint16(h[4:]); major != 1 && major != 2 {
		return nil, c.off, &jfrCheckError{off: int(c.off) + 4, reason: fmt.Sprintf("unknown format version %d.%d", major, binary.BigEndian.Uint16(h[6:]))}
	}
	size := binary.BigEndian.Uint64(h[8:])
	if size < jfrHeaderSize {
		return nil, c.off, &jfrCheckError{off: int(c.off) + 8, reason: fmt.Sprintf("chunk size %d is smaller than its header", size)}
	}
	if size > jfrMaxChunk {
		return nil, c.off, &jfrCheckError{off: int(c.off) + 8, reason: fmt.Sprintf("chunk size %d is over the %d MiB read here (the JDK starts a new chunk at maxchunksize, 12 MB by default)", size, jfrMaxChunk>>20)}
	}
	buf := make([]byte, size)
	copy(buf, h[:])
	// Read in slices so a stop is seen between them.
	for got := jfrHeaderSize; got < len(buf); {
		if err := c.ctx.Err(); err != nil {
			return nil, c.off, err
		}
		m, err := io.ReadFull(c.r, buf[got:min(len(buf), got+4<<20)])
		got += m
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, c.off, &jfrCheckError{off: int(c.off) + 8, reason: fmt.Sprintf("chunk size %d but only %d bytes left in the file", size, got), cause: errJFRTruncated}
		}
		if err != nil {
			return nil, c.off, err
		}
	}
	off := c.off
	c.off += int64(size)
	if start := int64(binary.BigEndian.Uint64(h[32:])); c.info.Chunks == 0 && start > 0 {
		c.info.Start = time.Unix(0, start).UTC()
	}
	if d := int64(binary.BigEndian.Uint64(h[40:])); d > 0 {
		c.info.Duration += time.Duration(d)
	}
	c.info.Chunks++
	return buf, off, nil
}

// checkAt is checkChunk of a chunk read alone, its error's offset moved to
// where the chunk sits in the file.
func checkAt(chunk []byte, off int64) ([]jfrNative, error) {
	natives, err := checkChunk(chunk, 0)
	var ce *jfrCheckError
	if errors.As(err, &ce) {
		ce.off += int(off)
	}
	return natives, err
}
