package jmx

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// Config turns the plan into one closed-model run in plan order: every
// user sends its thread group's requests in order (a loop controller's
// requests that many times), pass after pass, as a JMeter thread runs its
// samplers; a group's loop count bounds its users' passes, so a plan of N
// users, L loops and M samplers sends exactly N*L*M requests, split by label
// as JMeter splits them. The thread groups run together.
//
// A scheduler duration bounds the run by time (the longest); a plan that
// loops forever has neither bound and the caller must give one.
func (p *Plan) Config() (loadgen.Config, []finding.Text, error) {
	var cfg loadgen.Config
	notes := append([]finding.Text(nil), p.Notes...)
	if len(p.Groups) == 0 {
		return cfg, notes, finding.Errorf(finding.T("the test plan has no thread group with HTTP requests to run",
			"测试计划中没有包含 HTTP 请求的线程组"))
	}
	cfg.Sequence = true
	var bounded = true
	var requests int64
	var thinkSum float64
	for _, g := range p.Groups {
		per := totalWeight(g.Requests)
		cfg.Users += g.Users
		cfg.RampUp = max(cfg.RampUp, g.RampUp)
		cfg.Duration = max(cfg.Duration, g.Duration)
		thinkSum += float64(g.Think) * float64(g.Users)
		ug := loadgen.UserGroup{Users: g.Users, Requests: len(g.Requests)}
		if g.Loops < 0 {
			bounded = false
		} else {
			ug.Loops = g.Loops
			requests += int64(g.Users) * int64(g.Loops) * int64(per)
		}
		cfg.Groups = append(cfg.Groups, ug)
		cfg.Requests = append(cfg.Requests, g.Requests...)
	}
	if bounded {
		cfg.MaxRequests = requests
	}
	cfg.Think = time.Duration(thinkSum / float64(cfg.Users))
	if len(p.Groups) > 1 {
		notes = append(notes, finding.T("the thread groups run together, each with its users, requests and loops, but with one think time (their mean), one ramp-up and one duration (the longest)",
			"多个线程组同时运行，各自保留用户数、请求和循环次数，但思考时间取平均，启动时间和持续时间取最长"))
	}
	if !bounded && cfg.Duration == 0 {
		notes = append(notes, finding.T("the plan loops until stopped: give -d or -n", "计划会一直循环直到被停止：请给出 -d 或 -n"))
	}
	cfg.Timeout = p.Timeout
	cfg.DisableKeepAlive = p.NoKeepAlive
	return cfg, notes, nil
}

// maxCSVBytes bounds a CSV data set read into memory.
const maxCSVBytes = 256 << 20

// Load reads the plan at path and its CSV data set (a relative file name is
// relative to the plan, as in JMeter) and returns the plan with its run
// configuration and notes.
func Load(path string, props map[string]string) (*Plan, loadgen.Config, []finding.Text, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loadgen.Config{}, nil, err
	}
	defer f.Close()
	p, err := Read(f, props)
	if err != nil {
		return nil, loadgen.Config{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg, notes, err := p.Config()
	if err != nil {
		return p, cfg, notes, err
	}
	if p.CSV != nil {
		name := p.CSV.Filename
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(path), name)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return p, cfg, notes, fmt.Errorf("CSV data set %q: %w", finding.SafeLine(p.CSV.Name), err)
		}
		if len(b) > maxCSVBytes {
			return p, cfg, notes, fmt.Errorf("CSV data set %q: %s is larger than %d MiB", finding.SafeLine(p.CSV.Name), name, maxCSVBytes>>20)
		}
		v, err := ReadCSV(bytes.NewReader(b), p.CSV)
		if err != nil {
			return p, cfg, notes, fmt.Errorf("CSV data set %q (%s): %w", finding.SafeLine(p.CSV.Name), name, err)
		}
		cfg.Vars = keepUnknown(v, cfg.Requests)
	}
	return p, cfg, notes, nil
}

// ReadCSV reads a CSV data set's file as JMeter would with its settings.
func ReadCSV(r io.Reader, d *CSVDataSet) (*loadgen.Vars, error) {
	delim := d.Delimiter
	if delim == `\t` {
		delim = "\t"
	}
	var rows [][]string
	if d.Quoted && len([]rune(delim)) == 1 {
		cr := csv.NewReader(r)
		cr.Comma = []rune(delim)[0]
		cr.FieldsPerRecord = -1
		cr.LazyQuotes = true
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			rows = append(rows, rec)
		}
	} else {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := strings.TrimSuffix(sc.Text(), "\r")
			if line == "" {
				continue
			}
			rows = append(rows, strings.Split(line, delim))
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	if len(rows) > 0 {
		rows[0][0] = strings.TrimPrefix(rows[0][0], "\ufeff")
	}
	v := &loadgen.Vars{Names: d.Names}
	if len(v.Names) == 0 {
		if len(rows) == 0 {
			return nil, errors.New("empty file and no variable names")
		}
		v.Names, rows = rows[0], rows[1:]
	} else if d.IgnoreFirstLine && len(rows) > 0 {
		rows = rows[1:]
	}
	if len(rows) == 0 {
		return nil, errors.New("no data rows")
	}
	for i, row := range rows {
		// JMeter leaves missing trailing columns empty and ignores extra ones.
		for len(row) < len(v.Names) {
			row = append(row, "")
		}
		rows[i] = row[:len(v.Names)]
	}
	v.Rows = rows
	return v, nil
}

// keepUnknown adds a column for every ${name} the requests use that is not
// a column of v, holding the reference itself: JMeter sends an undefined
// reference as written, and the generator requires every reference to be a
// column once there is a variables file.
func keepUnknown(v *loadgen.Vars, qs []loadgen.Request) *loadgen.Vars {
	have := map[string]bool{}
	for _, n := range v.Names {
		have[n] = true
	}
	var extra []string
	scan := func(s string) {
		for {
			i := strings.Index(s, "${")
			if i < 0 {
				return
			}
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return
			}
			if name := s[i+2 : i+j]; !have[name] {
				have[name] = true
				extra = append(extra, name)
			}
			s = s[i+j+1:]
		}
	}
	for _, q := range qs {
		scan(q.URL)
		scan(string(q.Body))
		for _, h := range q.Headers {
			scan(h.Value)
		}
	}
	if len(extra) == 0 {
		return v
	}
	out := &loadgen.Vars{Names: append(append([]string(nil), v.Names...), extra...)}
	for _, row := range v.Rows {
		r := append([]string(nil), row...)
		for _, name := range extra {
			r = append(r, "${"+name+"}")
		}
		out.Rows = append(out.Rows, r)
	}
	return out
}
