package remote

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Served is our binary running a long-lived subcommand on the target (a
// jmeter-server engine's keeper): its output lines arrive on Lines; its
// input stays open until Close, so the subcommand learns from the input's
// end that we are done, or gone (a lost connection, a killed tuneloop: the
// SSH session ends, sshd closes the input).
type Served struct {
	Host   string
	Lines  <-chan string // its stdout, line by line (terminal-safe); closed at its end
	in     *io.PipeWriter
	closer func() error
	wait   chan error
	once   sync.Once
	err    error
}

// StartServed copies bin to the target and runs it there with args,
// bounded by limit (timeout -k 10s), its stdin held open. The copy is
// removed when it ends (the remote shell's EXIT trap).
func (c *Client) StartServed(ctx context.Context, bin string, args []string, limit time.Duration) (*Served, error) {
	f, err := os.Open(bin)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s, err := c.ssh.NewSession()
	if err != nil {
		f.Close()
		return nil, c.lost(err, time.Now(), nil, "")
	}
	pr, pw := io.Pipe()
	s.Stdin = io.MultiReader(f, pr)
	stdout, err := s.StdoutPipe()
	if err != nil {
		s.Close()
		f.Close()
		return nil, err
	}
	var mu sync.Mutex
	var copyErr string
	caught := newSafeWriter(io.Discard)
	caught.intercept = func(line string) bool {
		if e, ok := strings.CutPrefix(line, errMarker); ok {
			mu.Lock()
			copyErr = e
			mu.Unlock()
		}
		return true
	}
	s.Stderr = caught
	j := Job{Args: args, Limit: limit}
	// No exec: the shell waits, so its EXIT trap removes the copy.
	script := copyScript(st.Size(), "") + j.command(`"$d"`) + "\n"
	if err := s.Start("sh -c " + shellQuote(script)); err != nil {
		s.Close()
		f.Close()
		return nil, c.lost(err, time.Now(), nil, "")
	}
	lines := make(chan string, 64)
	p := &Served{Host: c.Target.Addr(), Lines: lines, in: pw, wait: make(chan error, 1),
		closer: func() error { f.Close(); return s.Close() }}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- finding.SafeLine(sc.Text())
		}
		close(lines)
	}()
	go func() {
		err := s.Wait()
		mu.Lock()
		if copyErr != "" {
			err = c.copyError(st.Size(), copyErr)
		}
		mu.Unlock()
		p.wait <- err
	}()
	return p, nil
}

// Send writes one line to its input.
func (p *Served) Send(line string) error {
	_, err := p.in.Write([]byte(line + "\n"))
	return err
}

// Close ends its input (the subcommand stops what it started), waits up to
// grace for it to exit, then closes the session.
func (p *Served) Close(grace time.Duration) error {
	p.once.Do(func() {
		p.in.Close()
		select {
		case p.err = <-p.wait:
		case <-time.After(grace):
		}
		p.closer()
	})
	return p.err
}
