package session

// The Prometheus side of record and run (--prometheus-listen,
// --prometheus-textfile), and a finished run exported as OpenMetrics
// (`runs export --openmetrics`).

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/promexport"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// Prom is a started exporter of the live metrics; nil when neither a
// listen address nor a textfile folder was asked for (its methods then do
// nothing).
type Prom struct {
	e      *promexport.Exporter
	srv    *promexport.Server
	dir    string
	warn   func(error)
	warned bool
}

// StartProm checks the textfile folder and starts serving on listen;
// warn hears a textfile that cannot be written (once). End it with Stop.
// The error of a folder that is none or an address it cannot listen on is
// a UsageError.
func StartProm(listen, textfile string, warn func(error)) (*Prom, error) {
	if listen == "" && textfile == "" {
		return nil, nil
	}
	l := &Prom{e: promexport.New(""), dir: textfile, warn: warn}
	if textfile != "" {
		if st, err := os.Stat(textfile); err != nil || !st.IsDir() {
			return nil, usageErr(finding.T("--prometheus-textfile %s: not a folder", "--prometheus-textfile %s：不是目录"), finding.SafeLine(textfile))
		}
	}
	if listen != "" {
		srv, err := l.e.Serve(listen)
		if err != nil {
			return nil, usageErr(finding.T("%v", "%v（无法在该地址监听）"), err)
		}
		l.srv = srv
	}
	return l, nil
}

// Addr is where the metrics are served ("" when not).
func (l *Prom) Addr() string {
	if l == nil || l.srv == nil {
		return ""
	}
	return l.srv.Addr()
}

// OnTick wraps next (may be nil) to feed the exporter first.
func (l *Prom) OnTick(next func(*sample.Rates, time.Duration)) func(*sample.Rates, time.Duration) {
	if l == nil {
		return next
	}
	return func(r *sample.Rates, el time.Duration) {
		l.e.Tick(r)
		l.textfile()
		if next != nil {
			next(r, el)
		}
	}
}

// OnLoad wraps next (may be nil) to feed the exporter the load's second.
func (l *Prom) OnLoad(next func(loadgen.Progress)) func(loadgen.Progress) {
	if l == nil {
		return next
	}
	return func(p loadgen.Progress) {
		l.e.Load(p)
		l.textfile()
		if next != nil {
			next(p)
		}
	}
}

// textfile rewrites the textfile, if asked for; a failure is said once, not
// every tick. Only one hook calls it (the tick in record, the load's second
// in run), so it needs no lock.
func (l *Prom) textfile() {
	if l.dir == "" {
		return
	}
	if err := l.e.WriteTextfile(l.dir); err != nil && !l.warned {
		l.warned = true
		if l.warn != nil {
			l.warn(err)
		}
	}
}

// Stop stops serving.
func (l *Prom) Stop() {
	if l != nil && l.srv != nil {
		l.srv.Close()
	}
}

// ExportOpenMetrics writes the series of the run folder dir as
// OpenMetrics to w, or with out ("" or "-": w) to that file: a temporary
// file renamed over it, so a failed export leaves no half file.
func ExportOpenMetrics(ctx context.Context, dir string, w io.Writer, out string) error {
	L, err := verdict.LoadContext(ctx, dir)
	if err != nil {
		return err
	}
	if L.Series == nil || len(L.Series.Ticks) == 0 {
		return finding.Errorf(finding.T("%s: the run has no recorded series to export", "%s：该运行没有可导出的记录序列"), finding.SafeLine(dir))
	}
	if out == "" || out == "-" {
		return promexport.WriteOpenMetrics(w, L.Series, L.Load)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".tuneloop-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := promexport.WriteOpenMetrics(tmp, L.Series, L.Load); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
