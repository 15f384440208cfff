// Package analysis is the flow of `tuneloop analyze FILE...`: it opens
// every input (files, archive entries, standard input), sorts them by what
// they are, analyses the thread dumps, GC logs, logging configurations,
// JFR recordings and collapsed stacks each with its own reader, names the
// mechanism from them, checks a pasted JVM command line, and returns one
// document (Result) that Write renders in every format.
package analysis

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/version"
)

// Options are what one analysis reads and how; the command line parses
// and checks them (flags -> Options).
type Options struct {
	Lang finding.Lang
	// Output is the format the result will be written as: with HTML the
	// profiles' flame pages are written next to Out.
	Output report.Format
	// Out is the page -o html writes.
	Out string
	// Cmdline is a pasted JVM command line; JDK its feature release (0:
	// inferred); Profile the --profile flag (a profile kind for JFR, or the
	// workload profile of the command line).
	Cmdline string
	JDK     int
	Profile string
	// Forced is how every input is read ("" = by content).
	Forced input.Format
	Limits input.Limits
	// Collapsed and Pprof are where a profile input is also written.
	Collapsed, Pprof string
	// Stdin is read for the input "-".
	Stdin io.Reader
	Now   func() time.Time
}

// Result is the one document of `analyze FILE...`: its exported fields
// are the JSON (schema tuneloop.analyze/v1); Write renders every format.
type Result struct {
	Schema      string    `json:"schema"` // tuneloop.analyze/v1
	Tool        string    `json:"tool"`
	GeneratedAt time.Time `json:"generated_at"`
	// ThreadDumps summarises each dump (without the threads themselves).
	ThreadDumps []*threaddump.Report `json:"thread_dumps,omitempty"`
	// DumpDuplicates are dumps given twice (the same file, or the same
	// content), counted once.
	DumpDuplicates []threaddump.Duplicate `json:"thread_dump_duplicates,omitempty"`
	// DumpsThinned: the inputs held more dumps than a set keeps; these
	// were kept evenly over them.
	DumpsThinned *threaddump.Thinning `json:"thread_dumps_thinned,omitempty"`
	GC           *gclog.Report        `json:"gc,omitempty"`
	// GCSets holds one report per JVM when the GC logs came from several.
	GCSets     []*gclog.Report   `json:"gc_sets,omitempty"`
	LogConfigs []string          `json:"logging_configs,omitempty"`
	Findings   []finding.Finding `json:"findings"`
	Inputs     []string          `json:"inputs"`

	// Profiles are the JFR recordings' and collapsed stacks' profiles, one page each.
	Profiles []*report.FlamePage `json:"profiles,omitempty"`

	// Read lists each input read, with its format and what was undone.
	Read []InputRead `json:"read,omitempty"`
	// Unreadable are the inputs that could not be read, each with why.
	Unreadable []InputError `json:"unreadable,omitempty"`
	// DumpNotes are the dumps read only in part: cut short, or with records left out.
	DumpNotes []DumpNote `json:"thread_dump_notes,omitempty"`
	// ReadInPart are the inputs --max-input cut: what came before the
	// limit is analysed, the rest was not read.
	ReadInPart []InputError `json:"read_in_part,omitempty"`

	// Given counts the inputs given (files and archive entries, refused
	// ones too): when none could be read, the command fails whole.
	Given int `json:"-"`
	// ProfilePages are the flame pages written with -o html.
	ProfilePages []string `json:"-"`

	lang     finding.Lang
	sections []section // in input order of kinds; Write renders them
	// For -o html: the GC analyses with their points, and the dump set.
	gcReports []*gclog.Report
	gcEvents  []*report.GCEvents
	dumps     *threaddump.Set
	// jfrRead are the JFR recordings read whole as profiles (a refused one
	// is not read again for the time account).
	jfrRead []string
}

// DumpNote says what is missing from one dump.
type DumpNote struct {
	Source     string       `json:"source"`
	Line       int          `json:"line"`
	Format     string       `json:"format"`
	Truncated  finding.Text `json:"truncated,omitzero"`
	Dropped    int          `json:"dropped,omitempty"`
	DroppedWhy finding.Text `json:"dropped_why,omitzero"`
}

// InputRead is one input that was read.
type InputRead struct {
	Name     string `json:"name"`
	Format   string `json:"format"`
	Encoding string `json:"encoding,omitempty"`
	// LongLines counts lines cut at the line limit.
	LongLines int `json:"long_lines,omitempty"`
}

// InputError is one input refused, and why (in the report's language).
type InputError struct {
	Name    string `json:"name"`
	Message string `json:"error"`
}

// section is one kind of input's text, written by Write (title: its
// Markdown heading).
type section struct {
	title finding.Text
	write func(w io.Writer) error
}

// UsageError is an analysis the options make impossible (the command
// line's fault: exit 2 there).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(t finding.Text, args ...any) error { return &UsageError{Err: finding.Errorf(t, args...)} }

// Interrupted is the error of an analysis stopped by ctx.
func Interrupted(ctx context.Context) error {
	return finding.Errorf(finding.T("interrupted (%v): nothing reported", "已中断（%v）：没有输出报告"), ctx.Err())
}

// Files analyses the inputs args (paths; "-" is o.Stdin) and the command
// line o.Cmdline into one document. Each input is read or refused on its
// own (Result.Unreadable); the error is for what stops the whole analysis.
func Files(ctx context.Context, args []string, o Options) (*Result, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	r := &Result{Schema: "tuneloop.analyze/v1", Tool: "tuneloop " + version.Version, GeneratedAt: now().UTC(), Inputs: args, lang: o.Lang}
	in, err := r.open(ctx, args, o)
	for _, fs := range in {
		for _, f := range fs {
			defer f.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	dumps, gcs, confs, profs := in[input.KindThreadDump], in[input.KindGCLog], in[input.KindLogConfig], in[input.KindProfile]
	if err := r.threadDumps(ctx, dumps); err != nil {
		return nil, err
	}
	if err := r.gcLogs(ctx, gcs); err != nil {
		return nil, err
	}
	r.logConfigs(ctx, confs, o.Cmdline)
	if err := r.profileInputs(ctx, profs, o); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, Interrupted(ctx)
	}
	r.mechanisms(ctx, profs, o.Forced)
	for i := range r.Read {
		for _, f := range append(append(dumps, gcs...), confs...) {
			if f.Name == r.Read[i].Name {
				r.Read[i].LongLines = f.LongLines()
			}
		}
	}
	if o.Cmdline != "" {
		if err := r.cmdline(o.Cmdline, o.Profile, o.JDK); err != nil {
			return nil, err
		}
	}
	finding.Sort(r.Findings)
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	return r, nil
}

// HasPage says whether the GC and thread dump page can be drawn (-o html).
func (r *Result) HasPage() bool {
	return len(r.gcReports) > 0 || (r.dumps != nil && len(r.dumps.Dumps) > 0)
}

func (r *Result) refuse(name string, err error) {
	r.Unreadable = append(r.Unreadable, InputError{Name: name, Message: finding.Localize(err, r.lang)})
}

// partial notes an input cut at --max-input.
func (r *Result) partial(name string, err error) {
	r.ReadInPart = append(r.ReadInPart, InputError{Name: name, Message: finding.Localize(err, r.lang)})
}

func (r *Result) section(title finding.Text, write func(w io.Writer) error) {
	r.sections = append(r.sections, section{title: title, write: write})
}

// cutAtLimit ends an input at --max-input as if it ended there (what came
// before is analysed, and the input is said to be read in part), instead
// of failing the whole input.
type cutAtLimit struct {
	r   io.ReadCloser
	err error // the limit's error, once reached
}

func (c *cutAtLimit) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && errors.Is(err, input.ErrLimit) {
		c.err = err
		return n, io.EOF
	}
	return n, err
}

func (c *cutAtLimit) Close() error { return c.r.Close() }

// open opens every input (a zip: each entry; - : standard input) and
// sorts them by kind (forced: every input read as that format); an input
// that cannot be opened or is no kind analyze reads is refused on its own.
// The caller closes the files.
func (r *Result) open(ctx context.Context, args []string, o Options) (map[input.Kind][]*input.File, error) {
	in := map[input.Kind][]*input.File{}
	stdinUsed := false
	for _, path := range args {
		var files []*input.File
		var err error
		switch {
		case path == "-" && stdinUsed:
			return in, usage(finding.T("- (standard input) is given twice", "- （标准输入）给出了两次"))
		case path == "-":
			stdinUsed = true
			files, err = input.OpenStream(ctx, "stdin", o.Stdin, o.Limits)
		default:
			files, err = input.OpenAll(ctx, path, o.Limits)
		}
		if err != nil {
			if ctx.Err() != nil {
				return in, Interrupted(ctx)
			}
			if errors.Is(err, input.ErrNotFile) && dirExists(path) {
				err = finding.Errorf(finding.T("%s: a directory, but not a run folder (no manifest.json from 'tuneloop record')",
					"%s：是一个目录，但不是运行目录（没有 'tuneloop record' 写出的 manifest.json）"), path)
			}
			r.Given++
			r.refuse(path, err)
			continue
		}
		r.Given += len(files)
		for _, f := range files {
			format := f.Format
			if o.Forced != "" {
				format = o.Forced
			}
			switch k := format.Kind(); k {
			case input.KindThreadDump, input.KindGCLog, input.KindLogConfig, input.KindProfile:
				in[k] = append(in[k], f)
			default:
				f.Close()
				d := input.Describe(format, f.Head)
				r.refuse(f.Name, finding.Errorf(finding.T("%s: %s", "%s：%s"), f.Name, d))
				continue
			}
			r.Read = append(r.Read, InputRead{Name: f.Name, Format: string(format), Encoding: f.Encoding})
		}
	}
	return in, nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
