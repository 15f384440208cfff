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

// Config turns the plan into one closed-model run: the thread groups run
// together, their users added; each request's weight is its share of its
// group's iteration times the group's users, so every group keeps its part
// of the traffic when requests take about as long.
//
// A plan bounded by loop counts is bounded by the same number of requests
// (MaxRequests); a scheduler duration bounds it by time (the longest); a plan
// that loops forever has neither and the caller must bound it.
func (p *Plan) Config() (loadgen.Config, []finding.Text, error) {
	var cfg loadgen.Config
	notes := append([]finding.Text(nil), p.Notes...)
	if len(p.Groups) == 0 {
		return cfg, notes, finding.Errorf(finding.T("the test plan has no thread group with HTTP requests to run",
			"测试计划中没有包含 HTTP 请求的线程组"))
	}
	notes = append(notes, finding.T("each user picks its next request at random, weighted by how often the plan sends it, instead of the plan's order: per-label counts match JMeter's on average, the total exactly",
		"每个用户按计划中的发送频率加权随机选择下一个请求，而不是按计划顺序：各标签的请求数平均上与 JMeter 一致，总数完全一致"))
	l := 1
	for _, g := range p.Groups {
		l = lcm(l, totalWeight(g.Requests))
		if l > 1<<20 {
			l = 1 << 20
		}
	}
	var bounded = true
	var requests int64
	var thinkSum float64
	for _, g := range p.Groups {
		per := totalWeight(g.Requests)
		cfg.Users += g.Users
		cfg.RampUp = max(cfg.RampUp, g.RampUp)
		cfg.Duration = max(cfg.Duration, g.Duration)
		thinkSum += float64(g.Think) * float64(g.Users)
		if g.Loops < 0 {
			bounded = false
		} else {
			requests += int64(g.Users) * int64(g.Loops) * int64(per)
		}
		for _, q := range g.Requests {
			if len(p.Groups) > 1 {
				q.Weight = max(1, int(int64(q.Weight)*int64(g.Users)*int64(l)/int64(per)))
			}
			cfg.Requests = append(cfg.Requests, q)
		}
	}
	if bounded {
		cfg.MaxRequests = requests
	}
	cfg.Think = time.Duration(thinkSum / float64(cfg.Users))
	if len(p.Groups) > 1 {
		notes = append(notes, finding.T("the thread groups run as one: users added, each group's requests weighted by its users, one think time (their mean), one ramp-up and one duration (the longest)",
			"多个线程组合并运行：用户数相加，各组请求按其用户数加权，思考时间取平均，启动时间和持续时间取最长"))
	}
	if !bounded && cfg.Duration == 0 {
		notes = append(notes, finding.T("the plan loops until stopped: give -d or -n", "计划会一直循环直到被停止：请给出 -d 或 -n"))
	}
	cfg.Timeout = p.Timeout
	cfg.DisableKeepAlive = p.NoKeepAlive
	return cfg, notes, nil
}

func lcm(a, b int) int {
	if a <= 0 || b <= 0 {
		return max(a, b, 1)
	}
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
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
