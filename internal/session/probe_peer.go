package session

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/remote"
)

// peerSSHFor bounds the listener started over SSH: the probe's network
// part takes well under this; a lost connection ends it sooner.
const peerSSHFor = 5 * time.Minute

// sshPeer is the listener started over SSH: where to probe, with what.
type sshPeer struct{ addr, token string }

// startPeerSSH copies our binary to o.PeerSSH and runs `probe --listen :0`
// there with a fresh token, bounded in time; it returns the address to
// probe (the SSH host, the port it bound), the token, and a stop that ends
// the remote side and waits for the copy to be removed.
func startPeerSSH(ctx context.Context, o ProbeOptions) (sshPeer, func(), error) {
	c, bin, err := remote.Connect(ctx, o.PeerSSH, o.Remote, o.Exe)
	if err != nil {
		return sshPeer{}, nil, err
	}
	token := probe.NewToken()
	rctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(rctx, remote.Job{Binary: bin, Args: append([]string{"probe", "--listen", ":0", "--for", peerSSHFor.String(), "--token", token, "--lang", "en"}, pinArgs(o.Measure.PeerCPU)...),
			Limit: peerSSHFor + 30*time.Second, Stdout: pw, Stderr: io.Discard})
		pw.CloseWithError(fmt.Errorf("the remote listener ended: %v", err))
		done <- err
	}()
	var addr string
	stop := func() {
		// Asked to quit, the listener exits and the remote shell removes
		// its copy; cancelling the session is the fallback.
		if addr != "" {
			qctx, qcancel := context.WithTimeout(context.Background(), 5*time.Second)
			probe.Quit(qctx, addr, token)
			qcancel()
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
		}
		cancel()
		c.Close()
	}
	l := firstLine(ctx, pr)
	f := strings.Fields(l)
	if len(f) < 3 || f[0] != "listening" {
		stop()
		return sshPeer{}, nil, finding.Errorf(finding.T("--peer-ssh %s: the remote probe listener did not start (%q)", "--peer-ssh %s：远端探测监听未能启动（%q）"), o.PeerSSH, finding.SafeLine(l))
	}
	_, port, err := net.SplitHostPort(f[2])
	if err != nil {
		stop()
		return sshPeer{}, nil, finding.Errorf(finding.T("--peer-ssh %s: the remote probe listener said %q", "--peer-ssh %s：远端探测监听返回了 %q"), o.PeerSSH, finding.SafeLine(l))
	}
	addr = net.JoinHostPort(c.Target.Host, port)
	return sshPeer{addr: addr, token: token}, stop, nil
}

// firstLine is the listener's first line ("listening on ADDR until ..."),
// waited for 2 minutes at most; the rest of its output is drained.
func firstLine(ctx context.Context, r io.Reader) string {
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- s
		io.Copy(io.Discard, r)
	}()
	select {
	case l := <-line:
		return l
	case <-time.After(2 * time.Minute):
	case <-ctx.Done():
	}
	return ""
}

// localPeerFor bounds the loopback listener of our own: the network part
// takes well under it; the probe's end, or its death (the listener's
// stdin closes), ends it sooner.
const localPeerFor = 15 * time.Minute

// startLocalPeer runs `exe probe --listen 127.0.0.1:0 --stdin-bound` as the
// network part's other side over loopback, as qperf's server is a process
// of its own: prober and listener then switch address space on every
// exchange and pay what CPU vulnerability mitigations add to that switch
// (seed 004's regression), which two threads of one process never do. The
// token goes in its environment, not on its command line (ps shows that).
// It returns the address, the token and a stop that ends it and waits.
func startLocalPeer(ctx context.Context, exe string, pin probe.CPUPin) (addr, token string, pid int, stop func(), err error) {
	token = probe.NewToken()
	cmd := exec.Command(exe, append([]string{"probe", "--listen", "127.0.0.1:0", "--for", localPeerFor.String(), "--lang", "en", "--stdin-bound"}, pinArgs(pin)...)...)
	cmd.Env = append(os.Environ(), probe.TokenEnv+"="+token)
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", "", 0, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", "", 0, nil, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop = func() {
		// Its stdin closed, the listener stops; a kill is the fallback.
		in.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	lctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	l := firstLine(lctx, out)
	cancel()
	f := strings.Fields(l)
	if len(f) < 3 || f[0] != "listening" {
		stop()
		return "", "", 0, nil, fmt.Errorf("%s probe --listen said %q", exe, finding.SafeLine(l))
	}
	return f[2], token, cmd.Process.Pid, stop, nil
}

// pinArgs is the listener's --cpu for a pin.
func pinArgs(pin probe.CPUPin) []string {
	if !pin.On {
		return nil
	}
	return []string{"--cpu", pin.String()}
}
