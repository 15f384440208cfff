package attach

// The reply of a HotSpot attach listener (protocol 1), as read from the
// .java_pid socket until the JVM closes it: the result code on the first
// line, then the command's output. Samples (\n shown as ⏎):
//
//	0⏎OpenJDK 64-Bit Server VM version 17.0.15+6-Debian-1deb12u1⏎JDK 17.0.15⏎
//	0⏎-XX:CICompilerCount=2 -XX:ConcGCThreads=1 -XX:InitialHeapSize=398458880 ...⏎
//	-1⏎java.lang.IllegalArgumentException: Unknown diagnostic command⏎
//	-1⏎Operation nosuchop not recognized!
//
// An empty reply (the JVM closed the connection without a word) is how a
// listener refuses a client whose uid/gid it does not accept.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// MaxReply bounds what one command may return (a Thread.print of 20,000
// threads is about 40 MB).
const MaxReply = 512 << 20

// errNoReply is an empty reply: the peer closed the connection unread.
var errNoReply = errors.New("the JVM closed the connection without a reply")

// parseReply splits a reply into its result code and output.
func parseReply(b []byte) (code int, out []byte, err error) {
	if len(b) == 0 {
		return 0, nil, errNoReply
	}
	line, rest, ok := bytes.Cut(b, []byte{'\n'})
	if !ok {
		// "-1" alone, or an old JVM that wrote the code without a newline.
		line, rest = b, nil
	}
	line = bytes.TrimRight(line, "\r")
	if len(line) == 0 || len(line) > 11 {
		return 0, nil, fmt.Errorf("not an attach reply: first line %q", finding.Clip(line, 40))
	}
	n, perr := strconv.Atoi(string(line))
	if perr != nil {
		return 0, nil, fmt.Errorf("not an attach reply: first line %q", finding.Clip(line, 40))
	}
	return n, rest, nil
}

// readReply reads a whole reply from r, up to MaxReply bytes.
func readReply(r io.Reader) (code int, out []byte, err error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxReply+1))
	if err != nil && len(b) == 0 {
		return 0, nil, err
	}
	if len(b) > MaxReply {
		return 0, nil, fmt.Errorf("reply larger than %d MiB", MaxReply>>20)
	}
	code, out, perr := parseReply(b)
	if perr != nil {
		if err != nil { // a reset after a partial reply says more than "no reply"
			return 0, nil, err
		}
		return 0, nil, perr
	}
	return code, out, err
}

// request encodes a protocol-1 request: "1", the command and exactly three
// arguments, each NUL-terminated.
func request(cmd string, args ...string) ([]byte, error) {
	if len(args) > 3 {
		return nil, fmt.Errorf("attach: %s: at most 3 arguments, got %d", cmd, len(args))
	}
	var b bytes.Buffer
	b.WriteString("1\x00")
	for i, s := range append([]string{cmd}, args...) {
		if bytes.IndexByte([]byte(s), 0) >= 0 {
			return nil, fmt.Errorf("attach: argument %d contains NUL", i)
		}
		b.WriteString(s)
		b.WriteByte(0)
	}
	for i := len(args); i < 3; i++ {
		b.WriteByte(0)
	}
	return b.Bytes(), nil
}
