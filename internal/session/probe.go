package session

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/remote"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/version"
)

// ProbeOptions are one `tuneloop probe` that measures (not --listen).
type ProbeOptions struct {
	// Measure is what to measure; its Facts are collected here, and with
	// PeerSSH its Peer and Token are the listener's started there.
	Measure probe.Options
	// Out is the probe folder ("": probes/<time>-<host>; "-": none).
	Out string
	// PeerSSH is a host where the network part's other side is started
	// over SSH, logged in with Remote; Exe is our binary for it ("": this
	// one, as remote.Connect picks it).
	PeerSSH string
	Remote  remote.Options
	Exe     string
	// Catalog is the catalog the folder is put in ("": the default one
	// from Getenv); NoCatalog leaves it out.
	Catalog   string
	NoCatalog bool
	Getenv    func(string) string
	// Lang is the language of the probe folder's renderings.
	Lang finding.Lang
	// Note receives each line said on the way (the folder, a catalog not
	// updated); nil: none.
	Note func(finding.Text)
}

// Probe measures the platform: the folder and its catalog line exist from
// the start (status probing, as a run's do: a probe killed before its end
// stays listed as incomplete), the figures are measured, then probe.json
// and its renderings are written and catalogued again. A probe that fails
// before measuring anything leaves nothing. The result is returned also
// when ctx ended the measuring early (what was measured until then).
func Probe(ctx context.Context, o ProbeOptions) (*probe.Result, error) {
	if o.Note == nil {
		o.Note = func(finding.Text) {}
	}
	facts := sysinfo.Collect(hostfs.Live(), sysinfo.Options{NoEthtool: true})
	dir := o.Out
	if dir == "" {
		host := ""
		if facts.Hostname.OK {
			host = facts.Hostname.Value
		}
		dir = filepath.Join("probes", strings.TrimPrefix(DefaultDir(time.Now(), host), "runs"+string(filepath.Separator)))
	}
	if dir != "-" {
		if err := CheckOut(dir); err != nil {
			return nil, &UsageError{Err: err}
		}
	}
	m := o.Measure
	m.Facts = facts
	if o.PeerSSH != "" {
		peer, stop, err := startPeerSSH(ctx, o)
		if err != nil {
			return nil, err
		}
		defer stop()
		m.Peer, m.Token = peer.addr, peer.token
	} else if parts, _ := probe.ParseParts(strings.Join(m.Parts, ",")); m.Peer == "" && slices.Contains(parts, probe.PartNet) {
		// Over loopback the other side is a process of its own, as
		// qperf's; in a test binary (which cannot be started as tuneloop)
		// and where that fails, it is this process.
		if exe := o.Exe; exe != "" || !testing.Testing() {
			if exe == "" {
				exe, _ = os.Executable()
			}
			addr, token, pid, stop, err := startLocalPeer(ctx, exe, m.PeerCPU)
			if err == nil {
				defer stop()
				m.Peer, m.Token, m.PeerLabel, m.PeerPID = addr, token, probe.PeerOwnProcess, pid
			} else {
				o.Note(finding.Tf(finding.T("the loopback listener could not start as a process of its own (%v): it runs in this one, whose threads never switch address space (qperf's server is a process)",
					"环回监听无法作为独立进程启动（%v）：改在本进程内运行，其线程之间切换不会切换地址空间（qperf 的服务端是独立进程）"), err))
			}
		}
	}
	var started func()
	if dir != "-" {
		var err error
		if started, err = o.startFolder(ctx, dir, facts, m); err != nil {
			return nil, err
		}
	}
	r, err := probe.Measure(ctx, m)
	if err != nil {
		if started != nil {
			started()
		}
		return nil, err
	}
	r.Tool = "tuneloop " + version.Version
	if dir == "-" {
		return r, nil
	}
	if err := writeProbeFolder(dir, r, o.Lang); err != nil {
		return nil, err
	}
	o.Note(finding.T("probe folder: "+dir, "探测目录："+dir))
	if !o.NoCatalog {
		if err := o.catalogProbe(ctx, dir, r, 0); err != nil {
			o.Note(finding.Tf(finding.T("tuneloop: warning: probe not added to the catalog: %v (add it later with tuneloop runs add %s)",
				"tuneloop: 警告：探测结果未加入运行记录目录：%v（稍后可用 tuneloop runs add %s 加入）"), err, dir))
		}
	}
	return r, nil
}

// startFolder creates the probe folder with a probe.json that says the
// probe is running (status probing: what a probe killed before its end
// leaves) and catalogs it, a busy catalog waited for 3 s at most (the line
// is written again at the end). The returned func undoes both when the
// probe fails before measuring anything: nothing is left of it.
func (o *ProbeOptions) startFolder(ctx context.Context, dir string, facts *sysinfo.Facts, m probe.Options) (func(), error) {
	created := false
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		created = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, finding.Errorf(finding.T("creating the probe folder: %v", "创建探测目录：%v"), err)
	}
	parts := m.Parts
	stub := &probe.Result{Schema: probe.Schema, Tool: "tuneloop " + version.Version, Start: time.Now(), Quick: m.Quick, Parts: parts,
		Host: probe.HostOf(facts), Status: probe.StatusProbing, Figures: []probe.Figure{}}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, probe.File), stub); err != nil {
		return nil, err
	}
	if !o.NoCatalog {
		_ = o.catalogProbe(ctx, dir, stub, 3*time.Second)
	}
	return func() {
		_ = os.Remove(filepath.Join(dir, probe.File))
		if created {
			_ = os.Remove(dir) // only when empty: never what was there before
		}
		if !o.NoCatalog {
			if p, err := o.catalogPath(); err == nil {
				if c, err := catalog.Open(context.WithoutCancel(ctx), p); err == nil {
					_, _ = c.RemoveDir(context.WithoutCancel(ctx), dir)
					c.Close()
				}
			}
		}
	}, nil
}

// catalogPath is the catalog's file: Catalog, else the default.
func (o *ProbeOptions) catalogPath() (string, error) {
	if o.Catalog != "" {
		return o.Catalog, nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return catalog.DefaultPath(getenv)
}

// catalogProbe puts the probe r of folder dir in the catalog (waiting up to
// maxWait for a busy one; 0: the catalog's own bound). A catalog found
// damaged is rebuilt from the folders next to dir first, and said so.
func (o *ProbeOptions) catalogProbe(ctx context.Context, dir string, r *probe.Result, maxWait time.Duration) error {
	p, err := o.catalogPath()
	if err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx) // a Ctrl-C'd probe is still catalogued
	c, err := catalog.Open(ctx, p)
	if err != nil {
		return err
	}
	defer c.Close()
	c.MaxWait = maxWait
	c.Waiting = func(t finding.Text) { o.Note(finding.Tf(finding.T("tuneloop: %s", "tuneloop: %s"), t)) }
	if c.Recovered != nil {
		rb, _ := RebuildCatalog(ctx, c, []string{filepath.Dir(dir)})
		o.Note(finding.Tf(finding.T("tuneloop: %s", "tuneloop: %s"), CatalogRecovered(c, rb)))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return c.PutProbe(ctx, catalog.ProbeEntryOf(abs, r))
}

// writeProbeFolder writes probe.json and its text, Markdown and HTML
// renderings in lang (each whole or not at all).
func writeProbeFolder(dir string, r *probe.Result, lang finding.Lang) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return finding.Errorf(finding.T("creating the probe folder: %v", "创建探测目录：%v"), err)
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, probe.File), r); err != nil {
		return err
	}
	return runfolder.WriteDocuments(dir,
		runfolder.Document{Name: "probe.txt", Write: func(w io.Writer) error { return report.WriteProbe(w, r, report.Text, lang) }},
		runfolder.Document{Name: "probe.md", Write: func(w io.Writer) error { return report.WriteProbe(w, r, report.Markdown, lang) }},
		runfolder.Document{Name: "probe.html", Write: func(w io.Writer) error { return html.WriteProbe(w, report.NewProbePage(r, lang)) }})
}
