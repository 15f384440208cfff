// Scenario files (YAML) and variables files (CSV). Sample scenario:
//
//	base_url: http://10.0.0.5:8080
//	users: 60
//	duration: 10m
//	warm_up: 30s
//	variables: accounts.csv
//	requests:
//	  - {label: login, method: POST, url: /login, body: '{"user":"${user}"}', weight: 1, assert: {status: [200], body_contains: token}}
//	  - {label: balance, url: "/balance?acct=${account}", weight: 9}
//
// With "order: sequence" (and "loops: N") every user sends the requests in
// the order written, each weight times in a row, N times over; each pass
// takes the next row of variables (weighted picks take one per request).
//
// Sample variables file (first row names the columns):
//
//	user,account
//	alice,6222020200001
//	bob,6222020200002

package loadgen

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Vars are the values of ${name} references: column names and rows.
type Vars struct {
	Names []string
	Rows  [][]string
}

// ReadVars reads a CSV file whose first row names the columns.
func ReadVars(r io.Reader) (*Vars, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0
	head, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("variables file is empty")
		}
		return nil, fmt.Errorf("variables file: %w", err)
	}
	v := &Vars{}
	for _, n := range head {
		v.Names = append(v.Names, strings.TrimSpace(strings.TrimPrefix(n, "\ufeff")))
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("variables file: %w", err)
		}
		v.Rows = append(v.Rows, rec)
	}
	if len(v.Rows) == 0 {
		return nil, errors.New("variables file has no data rows")
	}
	return v, nil
}

// Scenario is the YAML scenario file. Durations are Go durations ("90s",
// "10m"); fields left out keep the command-line values.
type Scenario struct {
	BaseURL     string            `yaml:"base_url"`
	Users       int               `yaml:"users"`
	Rate        float64           `yaml:"rate"`
	Connections int               `yaml:"connections"`
	Duration    Duration          `yaml:"duration"`
	Requests    int64             `yaml:"requests_total"`
	RampUp      Duration          `yaml:"ramp_up"`
	WarmUp      Duration          `yaml:"warm_up"`
	Think       Duration          `yaml:"think_time"`
	Timeout     Duration          `yaml:"timeout"`
	KeepAlive   *bool             `yaml:"keepalive"`
	Insecure    bool              `yaml:"insecure"`
	HTTP2       bool              `yaml:"http2"`
	Headers     map[string]string `yaml:"headers"`
	Variables   string            `yaml:"variables"` // CSV file, relative to the scenario file
	// Order is "weight" (the default: each request picked at random by its
	// weight) or "sequence" (every user sends the requests in order, each
	// weight times in a row, as a JMeter thread does); Loops bounds each
	// user's passes over them in sequence order.
	Order string            `yaml:"order"`
	Loops int               `yaml:"loops"`
	Steps []ScenarioRequest `yaml:"requests"`
}

// ScenarioRequest is one entry of Scenario.Steps.
type ScenarioRequest struct {
	Label    string            `yaml:"label"`
	Method   string            `yaml:"method"`
	URL      string            `yaml:"url"`
	Headers  map[string]string `yaml:"headers"`
	Body     string            `yaml:"body"`
	BodyFile string            `yaml:"body_file"`
	Weight   int               `yaml:"weight"`
	Assert   struct {
		Status       IntList `yaml:"status"`
		BodyContains string  `yaml:"body_contains"`
	} `yaml:"assert"`
}

// Duration reads "90s"-style YAML values.
type Duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a duration like 30s or 10m", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// IntList reads either one integer or a list of them.
type IntList []int

// UnmarshalYAML implements yaml.Unmarshaler.
func (l *IntList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var i int
		if err := n.Decode(&i); err != nil {
			return err
		}
		*l = IntList{i}
		return nil
	}
	var s []int
	if err := n.Decode(&s); err != nil {
		return err
	}
	*l = s
	return nil
}

// ParseScenario decodes a scenario; unknown keys are errors so typos show.
func ParseScenario(r io.Reader) (*Scenario, error) {
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		if err == io.EOF {
			return nil, errors.New("scenario file is empty")
		}
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if len(s.Steps) == 0 {
		return nil, errors.New("scenario: no requests")
	}
	switch {
	case s.Order != "" && s.Order != "weight" && s.Order != "sequence":
		return nil, fmt.Errorf("scenario: order is %q: want weight or sequence", s.Order)
	case s.Loops < 0:
		return nil, errors.New("scenario: loops must not be negative")
	case s.Loops > 0 && s.Order != "sequence":
		return nil, errors.New("scenario: loops need order: sequence")
	}
	return &s, nil
}

// LoadScenario reads a scenario file and applies it to cfg: its requests
// replace cfg.Requests, and the settings it names override cfg's. Relative
// body_file and variables paths are resolved from the scenario's directory.
func LoadScenario(path string, cfg *Config) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := ParseScenario(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	cfg.Requests = cfg.Requests[:0]
	for i, st := range s.Steps {
		q := Request{Label: st.Label, Method: st.Method, URL: st.URL, Weight: st.Weight,
			ExpectStatus: st.Assert.Status, ExpectBody: st.Assert.BodyContains}
		if s.BaseURL != "" && !strings.Contains(q.URL, "://") {
			q.URL = strings.TrimSuffix(s.BaseURL, "/") + "/" + strings.TrimPrefix(q.URL, "/")
		}
		if q.URL == "" {
			return fmt.Errorf("%s: request %d has no url", path, i+1)
		}
		q.Headers = append(sortedHeaders(s.Headers), sortedHeaders(st.Headers)...)
		switch {
		case st.Body != "" && st.BodyFile != "":
			return fmt.Errorf("%s: request %d has both body and body_file", path, i+1)
		case st.BodyFile != "":
			b, err := os.ReadFile(rel(st.BodyFile))
			if err != nil {
				return fmt.Errorf("%s: request %d: %w", path, i+1, err)
			}
			q.Body = b
		default:
			q.Body = []byte(st.Body)
		}
		cfg.Requests = append(cfg.Requests, q)
	}
	if s.Variables != "" {
		vf, err := os.Open(rel(s.Variables))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		cfg.Vars, err = ReadVars(vf)
		vf.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Variables, err)
		}
	}
	setIf(&cfg.Users, s.Users)
	setIf(&cfg.Rate, s.Rate)
	setIf(&cfg.Connections, s.Connections)
	setIf(&cfg.MaxRequests, s.Requests)
	setIf(&cfg.Duration, time.Duration(s.Duration))
	setIf(&cfg.RampUp, time.Duration(s.RampUp))
	setIf(&cfg.WarmUp, time.Duration(s.WarmUp))
	setIf(&cfg.Think, time.Duration(s.Think))
	setIf(&cfg.Timeout, time.Duration(s.Timeout))
	if s.Users > 0 {
		cfg.Rate = 0
	} else if s.Rate > 0 {
		cfg.Users = 0
	}
	if s.KeepAlive != nil {
		cfg.DisableKeepAlive = !*s.KeepAlive
	}
	cfg.Sequence = s.Order == "sequence"
	cfg.Loops = s.Loops
	cfg.Insecure = cfg.Insecure || s.Insecure
	cfg.HTTP2 = cfg.HTTP2 || s.HTTP2
	return nil
}

func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// sortedHeaders turns a YAML map into headers in a stable order.
func sortedHeaders(m map[string]string) []Header {
	var hs []Header
	for k, v := range m {
		hs = append(hs, Header{Name: k, Value: v})
	}
	for i := 1; i < len(hs); i++ {
		for j := i; j > 0 && hs[j].Name < hs[j-1].Name; j-- {
			hs[j], hs[j-1] = hs[j-1], hs[j]
		}
	}
	return hs
}
