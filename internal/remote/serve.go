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

	"golang.org/x/crypto/ssh"
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
	cp, err := c.startCopied(bin, args, limit)
	if err != nil {
		return nil, err
	}
	lines := make(chan string, 64)
	p := &Served{Host: c.Target.Addr(), Lines: lines, in: cp.in, wait: make(chan error, 1), closer: cp.close}
	go func() {
		sc := bufio.NewScanner(cp.out)
		for sc.Scan() {
			lines <- finding.SafeLine(sc.Text())
		}
		close(lines)
	}()
	go func() {
		err := cp.s.Wait()
		if detail := cp.copyErr(); detail != "" {
			err = c.copyError(cp.size, detail)
		}
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

// copied is our binary copied to the target over stdin (head -c reads
// exactly its size) and started there with args, its stdin then held open.
type copied struct {
	s    *ssh.Session
	f    *os.File
	size int64
	in   *io.PipeWriter
	out  io.Reader
	mu   sync.Mutex
	err  string // why the copy failed, from its stderr
}

// startCopied copies bin and starts it with args, bounded by limit; the
// remote shell waits for it, so its EXIT trap removes the copy.
func (c *Client) startCopied(bin string, args []string, limit time.Duration) (*copied, error) {
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
	cp := &copied{s: s, f: f, size: st.Size()}
	pr, pw := io.Pipe()
	s.Stdin = io.MultiReader(f, pr)
	stdout, err := s.StdoutPipe()
	if err != nil {
		cp.close()
		return nil, err
	}
	cp.in, cp.out = pw, stdout
	// Only why a copy failed is kept of its stderr.
	caught := newSafeWriter(io.Discard)
	caught.intercept = func(line string) bool {
		if e, ok := strings.CutPrefix(line, errMarker); ok {
			cp.mu.Lock()
			cp.err = e
			cp.mu.Unlock()
		}
		return true
	}
	s.Stderr = caught
	j := Job{Args: args, Limit: limit}
	// No exec: the shell waits, so its EXIT trap removes the copy.
	script := copyScript(st.Size(), "") + j.command(`"$d"`) + "\n"
	if err := s.Start("sh -c " + shellQuote(script)); err != nil {
		cp.close()
		return nil, c.lost(err, time.Now(), nil, "")
	}
	return cp, nil
}

func (cp *copied) close() error { cp.f.Close(); return cp.s.Close() }

func (cp *copied) copyErr() string {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.err
}
