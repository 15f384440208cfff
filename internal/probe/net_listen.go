// The listener side of the network probe (`probe --listen` and our own
// loopback listener): accept, hello, and the TCP modes' traffic.

package probe

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// ListenOptions configure `probe --listen`.
type ListenOptions struct {
	Addr  string
	Token string        // "": anyone who connects may probe
	For   time.Duration // the listener stops by itself after this (0: 10 min)
	// Ready hears the address actually bound (the port of ":0").
	Ready func(addr string)
	Log   io.Writer
	// CPU pins the threads that serve a figure's bytes (qperf's -rca).
	CPU CPUPin
}

// Listen serves probes on o.Addr until o.For has passed or ctx ends.
func Listen(ctx context.Context, o ListenOptions) error {
	if o.For <= 0 {
		o.For = 10 * time.Minute
	}
	if err := o.CPU.Check(); err != nil {
		return finding.Errorf(finding.T("--cpu %d: %v", "--cpu %d：%v"), o.CPU.CPU, err)
	}
	ln, err := listenTCP(ctx, o.Addr)
	if err != nil {
		return finding.Errorf(finding.T("--listen %s: %v", "--listen %s：%v"), o.Addr, err)
	}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	reserveRaw(1)
	defer freeProcs()
	ctx, cancel := context.WithTimeout(ctx, o.For)
	defer cancel()
	serve(ctx, ln, o.Token, o.CPU, o.Log)
	return nil
}

// serve accepts until ctx ends, then closes ln and waits for its sessions.
func serve(ctx context.Context, ln net.Listener, token string, pin CPUPin, log io.Writer) {
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	var wg sync.WaitGroup
	var conns sync.Map
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		conns.Range(func(k, _ any) bool {
			if g, ok := k.(*fdGuard); ok {
				// A blocking socket: shutdown wakes the thread in read,
				// close would not (its owner closes it, after its guard
				// is stopped; the listener is going anyway).
				g.shut()
				return true
			}
			k.(io.Closer).Close()
			return true
		})
	})
	defer stop()
	sem := make(chan struct{}, maxSessions)
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				break
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like: do not spin
			continue
		}
		select {
		case sem <- struct{}{}:
		default:
			c.Close()
			continue
		}
		wg.Add(1)
		conns.Store(c, nil)
		go func() {
			defer wg.Done()
			defer func() { conns.Delete(c); c.Close(); <-sem }()
			if err := session(ctx, c, token, pin, &conns, quit); err != nil && log != nil {
				fmt.Fprintf(log, "probe listener: %s: %v\n", c.RemoteAddr(), err)
			}
		}()
	}
	ln.Close()
	wg.Wait()
}

// trackedFD is blockingFD for a listener's session: the socket is in
// conns, so the listener's stop shuts it down, and is shut down after
// sessionMax in any case, until release takes it out and closes it.
func trackedFD(c net.Conn, conns *sync.Map) (fd int, release func(), err error) {
	fd, f, err := blockingFD(c)
	if err != nil {
		return 0, nil, err
	}
	g := guardFD(context.Background(), fd, sessionMax)
	conns.Store(g, nil)
	return fd, func() { g.stop(); conns.Delete(g); f.Close() }, nil
}

// tidField is " tid=N" naming the calling thread when asked, else "".
func tidField(asked bool) string {
	if !asked {
		return ""
	}
	return " tid=" + strconv.Itoa(unix.Gettid())
}

// session serves one connection: the hello, then its mode's traffic.
func session(ctx context.Context, c net.Conn, token string, pin CPUPin, conns *sync.Map, quit func()) error {
	c.SetDeadline(time.Now().Add(helloWait))
	br := bufio.NewReaderSize(c, 256)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("no hello: %w", err)
	}
	h, err := parseHello(string(line))
	if err != nil {
		return err
	}
	mode, size := h.mode, h.size
	if token != "" && subtle.ConstantTimeCompare([]byte(h.token), []byte(token)) != 1 {
		io.WriteString(c, "refused\n")
		return fmt.Errorf("refused: wrong token")
	}
	if br.Buffered() > 0 {
		return fmt.Errorf("data before ok")
	}
	c.SetDeadline(time.Now().Add(sessionMax))
	switch mode {
	case "crr":
		_, err = io.WriteString(c, "ok\n")
		return err
	case "quit":
		if token == "" {
			io.WriteString(c, "refused\n")
			return fmt.Errorf("quit refused: a listener without a token is stopped by its --for only")
		}
		io.WriteString(c, "ok\n")
		quit()
		return nil
	case "udplat", "udpbw":
		return udpSession(ctx, c, h, pin, conns)
	}
	// The figure is served on a thread of its own (onOwnThread), pinned
	// before the client starts and, when asked, named in the answer: a
	// prober on this host reads where it ran. The socket leaves Go's
	// poller first, so the answer goes out on the blocking socket.
	fd, release, err := trackedFD(c, conns)
	if err != nil {
		return err
	}
	defer release()
	answered := false
	err = onOwnThread(pin, []int{fd}, func() error {
		// Before the answer: taking the first raw slot collects once, which
		// the client's timed window must not wait for.
		raw, leave := enterRaw()
		defer leave()
		s := sock{fd, raw}
		answered = true
		if err := s.writeFull([]byte("ok" + tidField(h.tid) + "\n")); err != nil {
			return err
		}
		buf := make([]byte, max(size, 1))
		switch mode {
		case "lat":
			// Until the client is done (or sessionMax, trackedFD's guard).
			for s.readFull(buf) == nil && s.writeFull(buf) == nil {
			}
		case "bw":
			// The hello and its answer made this socket look interactive,
			// so TCP delays its ACKs (pingpong mode), and with Nagle on
			// the sender then holds small writes until each ACK: they
			// leave in fewer, larger segments (64 B, one CPU: ~24 KB a
			// segment and 45 MB/s, against ~2.5 KB and 38 MB/s ACKed at
			// once). qperf's and iperf3's data sockets answer nothing
			// before their stream: this one ACKs at once too.
			unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
			var n int64
			for {
				k, err := s.read(buf)
				if k <= 0 || err != nil {
					break
				}
				n += int64(k)
			}
			s.writeFull([]byte(strconv.FormatInt(n, 10) + "\n"))
		}
		return nil
	})
	if err != nil && !answered { // not pinned
		sock{fd, false}.writeFull([]byte("error " + finding.SafeLine(err.Error()) + "\n"))
	}
	return err
}
