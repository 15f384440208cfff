package stacks

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// countingReader serves a virtual input of size bytes (head, then zeros)
// without holding it, and counts what was read.
type countingReader struct {
	head []byte
	size int64
	read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > c.size-c.read {
		n = c.size - c.read
	}
	for i := int64(0); i < n; i++ {
		if at := c.read + i; at < int64(len(c.head)) {
			p[i] = c.head[at]
		} else {
			p[i] = 0
		}
	}
	c.read += n
	return int(n), nil
}

func jfrHeader(size uint64) []byte {
	h := make([]byte, jfrHeaderSize)
	copy(h, "FLR\x00\x00\x02\x00\x00")
	binary.BigEndian.PutUint64(h[8:], size)
	return h
}

// A 2 GB input whose header is not a JFR chunk's is refused after its
// header, not read whole (it was: 4.6 GB RSS and 11-16 s before the error).
func TestJFRBadHeaderRefusedAtOnce(t *testing.T) {
	const twoGB = 2 << 30
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"zeros", nil, "not a JFR recording"},
		{"magic-then-zeros", []byte("FLR\x00"), "unknown format version 0.0"},
		{"size-zero", jfrHeader(0), "smaller than its header"},
		{"size-over-cap", jfrHeader(twoGB), "over the 128 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countingReader{head: tc.head, size: twoGB}
			_, _, err := JFRProfilesFrom(context.Background(), r, CPU, Wall)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if r.read > 64<<10 {
				t.Errorf("read %d bytes of a bad header's input, want its header only", r.read)
			}
		})
	}
}

// A chunk that claims more than the file holds is cut short: with nothing
// whole before it, an error; the read stops at the end of the input.
func TestJFRChunkLongerThanFile(t *testing.T) {
	r := &countingReader{head: jfrHeader(100 << 20), size: 1 << 20}
	_, _, err := JFRProfilesFrom(context.Background(), r, CPU)
	if !errors.Is(err, errJFRTruncated) {
		t.Fatalf("err %v, want a recording cut short", err)
	}
}

// Read from a stream, a recording gives what its bytes give, with the
// chunk headers' start and duration; a stopped context stops it.
func TestJFRProfilesFromStream(t *testing.T) {
	real := readJFR(t, mixedJFR)
	two := append(append([]byte(nil), real...), real...)
	want, err := JFRProfiles(real, CPU, Lock)
	if err != nil {
		t.Fatal(err)
	}
	got, info, err := JFRProfilesFrom(context.Background(), io.MultiReader(bytes.NewReader(two)), CPU, Lock)
	if err != nil {
		t.Fatal(err)
	}
	if got[CPU].Events != 2*want[CPU].Events || got[Lock].Total != 2*want[Lock].Total {
		t.Errorf("two chunks: cpu %d lock %d, want twice %d and %d", got[CPU].Events, got[Lock].Total, want[CPU].Events, want[Lock].Total)
	}
	if info.Chunks != 2 || info.Start.IsZero() || info.Duration <= 0 {
		t.Errorf("info %+v", info)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := JFRProfilesFrom(ctx, bytes.NewReader(two), CPU); !errors.Is(err, context.Canceled) {
		t.Errorf("stopped: %v", err)
	}
}

// Random bytes given as collapsed stacks are refused, not a profile of the
// few lines that happen to end in a number (it was exit 0, 9 events).
func TestCollapsedRefusesRandomBytes(t *testing.T) {
	buf := make([]byte, 4<<20)
	rand.New(rand.NewSource(1)).Read(buf)
	_, err := ReadCollapsed(bytes.NewReader(buf), CPU)
	if !errors.Is(err, ErrNotCollapsed) {
		t.Fatalf("err %v, want ErrNotCollapsed", err)
	}
	// Text that is not stacks either, and refused before it is read whole.
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		b.WriteString("2026-11-28 06:00:00 INFO request served in 12 ms, id 42\n")
	}
	r := &countingReader{head: []byte(b.String()), size: int64(b.Len())}
	if _, err := ReadCollapsed(r, CPU); !errors.Is(err, ErrNotCollapsed) {
		t.Fatalf("log lines: %v, want ErrNotCollapsed", err)
	}
	if r.read > 1<<20 {
		t.Errorf("read %d bytes before refusing", r.read)
	}
	// A real profile with a stray line still reads.
	p, err := ReadCollapsed(strings.NewReader("a;b;c 10\nnot a stack\na;b 5\n"), CPU)
	if err != nil || p.Events != 2 {
		t.Fatalf("%v %+v", err, p)
	}
}
