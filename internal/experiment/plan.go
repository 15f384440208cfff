// Package experiment runs `tuneloop experiment plan.yaml`: a service, a
// load and knobs with candidate values, measured as interleaved trials
// (each trial: host knobs applied through the apply journal, the service
// started with a launch overlay, warmed up, measured by the run flow,
// stopped, the host knobs reverted), searched by successive halving when
// there are more than a few arms, and the winner re-measured against the
// baseline in a fresh interleaved block; only that comparison is reported
// as the gain. The trial log (JSON lines, fsync'd) makes a rerun with the
// same --out continue where the last one stopped.
//
// Files by job: plan.go (the plan file, read strictly), design.go (arms,
// interleaving, the halving decisions), triallog.go (the resumable log),
// overlay.go (JVM options and env through a launch overlay, checked back in
// the running JVM), trial.go (one trial on the host), experiment.go (the
// flow and the report document).
package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// Knob kinds.
const (
	KindJVM      = "jvm"      // JVM options, e.g. "-Xmx256m -Xms256m" or "-XX:+UseParallelGC"
	KindProperty = "property" // a system property: -Dkey=value
	KindEnv      = "env"      // an environment variable of the service
	KindSysctl   = "sysctl"   // a host sysctl, through the apply journal
	KindSysfs    = "sysfs"    // a host /sys attribute, through the apply journal
	// KindLimit is a process limit of the launch (key nofile, nproc,
	// memlock, core, stack; value N, SOFT:HARD or unlimited).
	KindLimit = "limit"
	// KindBinding is the launch's CPU set or NUMA node (no key; values
	// all, a CPU list such as 0-1, or node:N).
	KindBinding = "binding"
	// KindConfigFile is a configuration file (values: candidate files,
	// relative to the plan's folder) copied into each trial's folder and
	// passed through the system property key (logback.configurationFile).
	KindConfigFile = "config-file"
)

// Objective metrics.
const (
	MetricTPS = "tps"
	MetricP99 = "p99_ms"
)

// maxArms bounds the product of the knobs' values: beyond it the plan is
// refused (a search space that large needs a narrower plan, not hours).
const maxArms = 64

// maxPlanBytes bounds the plan file.
const maxPlanBytes = 1 << 20

// Plan is an experiment as read from its YAML file.
type Plan struct {
	Service     Service `yaml:"service"`
	Load        Load    `yaml:"load"`
	Repetitions int     `yaml:"repetitions"`
	// ConfirmRepetitions are the trials per side of the winner's
	// re-measurement against the baseline: by default at least the 4 an
	// exact rank test over launches needs to reach 5% (fewer, and no
	// verdict but "inconclusive" is possible).
	ConfirmRepetitions int       `yaml:"confirm_repetitions"`
	Seed               uint64    `yaml:"seed"`
	Objective          Objective `yaml:"objective"`
	Knobs              []Knob    `yaml:"knobs"`
	// Halving: successive halving from this many arms (baseline included);
	// fewer are measured as one interleaved grid. Default 5.
	HalvingFrom int `yaml:"halving_from"`
	// PowerPct sizes the "run K more" advice (default 5).
	PowerPct float64 `yaml:"power_pct"`

	dir string // the plan file's folder: config-file values are relative to it
}

// Service says how a trial gets its service.
type Service struct {
	// Start is a shell command that starts the service (in the foreground);
	// each trial starts it anew with the arm's overlay.
	Start string `yaml:"start"`
	// PID is a running service: host knobs only (nothing is restarted).
	PID          int           `yaml:"pid"`
	Target       string        `yaml:"target"`
	StartTimeout time.Duration `yaml:"start_timeout"`
	StopTimeout  time.Duration `yaml:"stop_timeout"`
}

// Load is each trial's load.
type Load struct {
	Users    int           `yaml:"users"`
	Rate     float64       `yaml:"rate"`
	Duration time.Duration `yaml:"duration"`
	WarmUp   time.Duration `yaml:"warm_up"`
	Timeout  time.Duration `yaml:"timeout"`
}

// Objective is what the winner maximises or minimises, under constraints.
type Objective struct {
	Maximize    string      `yaml:"maximize"`
	Minimize    string      `yaml:"minimize"`
	Constraints Constraints `yaml:"constraints"`
}

// Constraints an arm must meet (means over its trials); 0 is no bound.
type Constraints struct {
	P99MS    float64 `yaml:"p99_ms"`
	ErrorPct float64 `yaml:"error_pct"`
}

// Knob is one setting with its candidate values. "" as a value (or as the
// baseline) means the setting is left as the service has it.
type Knob struct {
	Name     string   `yaml:"name"`
	Kind     string   `yaml:"kind"`
	Key      string   `yaml:"key"` // property, env, sysctl or sysfs name
	Values   []string `yaml:"values"`
	Baseline string   `yaml:"baseline"`
}

// Metric is the objective's metric and its direction (+1 higher is
// better, -1 lower).
func (o Objective) Metric() (string, int) {
	if o.Minimize != "" {
		return o.Minimize, -1
	}
	return o.Maximize, +1
}

// Host reports whether the knob is a host setting (through the journal).
func (k Knob) Host() bool { return k.Kind == KindSysctl || k.Kind == KindSysfs }

// ReadPlanFile reads and validates the plan at path.
func ReadPlanFile(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, finding.Errorf(finding.T("plan %s: %v", "计划 %s：%v"), path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPlanBytes+1))
	if err != nil {
		return nil, finding.Errorf(finding.T("plan %s: %v", "计划 %s：%v"), path, err)
	}
	if len(b) > maxPlanBytes {
		return nil, finding.Errorf(finding.T("plan %s: larger than 1 MiB", "计划 %s：超过 1 MiB"), path)
	}
	return ParsePlan(path, b)
}

// lineRE finds yaml's "line N" in its errors.
var lineRE = regexp.MustCompile(`line (\d+)`)

// ParsePlan reads a plan strictly (an unknown key is an error naming the
// file and line) and validates it; name is the file's name for messages.
func ParsePlan(name string, b []byte) (*Plan, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	p := Plan{dir: filepath.Dir(name)}
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, finding.Errorf(finding.T("plan %s: empty", "计划 %s：为空"), name)
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
		msg = strings.ReplaceAll(msg, "\n  ", "; ")
		msg = strings.ReplaceAll(msg, " in type experiment.", " in ")
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			return nil, finding.Errorf(finding.T("%s:%s: %s", "%s:%s：%s"), name, m[1], finding.SafeLine(msg))
		}
		return nil, finding.Errorf(finding.T("plan %s: %s", "计划 %s：%s"), name, finding.SafeLine(msg))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, finding.Errorf(finding.T("plan %s: more than one YAML document", "计划 %s：包含多个 YAML 文档"), name)
	}
	if err := p.validate(); err != nil {
		return nil, finding.Errorf(finding.T("plan %s: %v", "计划 %s：%v"), name, err)
	}
	return &p, nil
}

// keyRE is what a property, env or sysctl name may hold.
var keyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

func bad(en, zh string, args ...any) error { return finding.Errorf(finding.T(en, zh), args...) }

// validate fills defaults and refuses what cannot be run.
func (p *Plan) validate() error {
	if err := p.validateService(); err != nil {
		return err
	}
	if err := p.validateLoad(); err != nil {
		return err
	}
	if err := p.validateObjective(); err != nil {
		return err
	}
	return p.validateKnobs()
}

// validateService: a command or a pid, and an http(s) target.
func (p *Plan) validateService() error {
	s := &p.Service
	switch {
	case s.Start == "" && s.PID == 0:
		return bad("service: give start (a command) or pid", "service：需要 start（命令）或 pid")
	case s.Start != "" && s.PID != 0:
		return bad("service: start and pid exclude each other", "service：start 与 pid 不能同时使用")
	case s.PID < 0:
		return bad("service.pid: %d is not a process id", "service.pid：%d 不是进程号", s.PID)
	}
	u, err := url.Parse(s.Target)
	if s.Target == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("service.target: %q is not an http:// or https:// URL", "service.target：%q 不是 http:// 或 https:// 地址", s.Target)
	}
	if s.StartTimeout == 0 {
		s.StartTimeout = 90 * time.Second
	}
	return nil
}

// validateLoad: the load, the repetitions and the halving's bounds.
func (p *Plan) validateLoad() error {
	l := &p.Load
	switch {
	case l.Users == 0 && l.Rate == 0:
		l.Users = 8
	case l.Users < 0 || l.Rate < 0 || (l.Users > 0 && l.Rate > 0):
		return bad("load: give users or rate (one of them, positive)", "load：需要 users 或 rate（二者之一，正数）")
	}
	if l.Duration == 0 {
		l.Duration = 30 * time.Second
	}
	if l.Duration < 2*time.Second || l.WarmUp < 0 {
		return bad("load.duration: at least 2s (and warm_up not negative)", "load.duration：至少 2s（warm_up 不能为负）")
	}
	if p.Repetitions == 0 {
		p.Repetitions = 3
	}
	if p.Repetitions < 1 || p.Repetitions > 100 {
		return bad("repetitions: %d (want 1 to 100)", "repetitions：%d（应为 1 到 100）", p.Repetitions)
	}
	if p.ConfirmRepetitions == 0 {
		p.ConfirmRepetitions = max(p.Repetitions, stats.RankRunsFor(1-stats.Confidence)) // the fewest a rank test over launches can judge
	}
	if p.ConfirmRepetitions < 1 || p.ConfirmRepetitions > 100 {
		return bad("confirm_repetitions: %d (want 1 to 100)", "confirm_repetitions：%d（应为 1 到 100）", p.ConfirmRepetitions)
	}
	if p.HalvingFrom == 0 {
		p.HalvingFrom = 5
	}
	if p.HalvingFrom < 3 {
		return bad("halving_from: %d (want 3 or more)", "halving_from：%d（应不小于 3）", p.HalvingFrom)
	}
	if p.PowerPct == 0 {
		p.PowerPct = 5
	}
	if p.PowerPct < 0 {
		return bad("power_pct: negative", "power_pct：不能为负")
	}
	return nil
}

// validateObjective: one metric to maximise or minimise, bounds not negative.
func (p *Plan) validateObjective() error {
	o := &p.Objective
	if o.Maximize == "" && o.Minimize == "" {
		o.Maximize = MetricTPS
	}
	switch {
	case o.Maximize != "" && o.Minimize != "":
		return bad("objective: maximize and minimize exclude each other", "objective：maximize 与 minimize 不能同时使用")
	case o.Maximize != "" && o.Maximize != MetricTPS:
		return bad("objective.maximize: %q (only tps)", "objective.maximize：%q（只支持 tps）", o.Maximize)
	case o.Minimize != "" && o.Minimize != MetricP99:
		return bad("objective.minimize: %q (only p99_ms)", "objective.minimize：%q（只支持 p99_ms）", o.Minimize)
	case o.Constraints.P99MS < 0 || o.Constraints.ErrorPct < 0:
		return bad("objective.constraints: negative bound", "objective.constraints：上限不能为负")
	}
	return nil
}

// knobCheck is what validateKnobs carries from one knob to the next.
type knobCheck struct {
	limits  map[string]bool // limit keys seen
	binding bool            // a binding knob seen
}

// validateKnobs: each knob valid for its kind, unique, with values, and
// more than one combination but at most maxArms.
func (p *Plan) validateKnobs() error {
	if len(p.Knobs) == 0 {
		return bad("knobs: none (nothing to try)", "knobs：为空（没有可试的设置）")
	}
	names := map[string]bool{}
	kc := &knobCheck{limits: map[string]bool{}}
	arms := 1
	for i := range p.Knobs {
		k := &p.Knobs[i]
		where := fmt.Sprintf("knobs[%d]", i)
		if k.Name == "" {
			k.Name = k.Key
		}
		if k.Name == "" {
			return bad("%s: no name", "%s：缺少 name", where)
		}
		if !keyRE.MatchString(k.Name) || names[k.Name] {
			return bad("%s: name %q is not a simple unique name", "%s：name %q 不是唯一的简单名称", where, k.Name)
		}
		names[k.Name] = true
		if err := p.validateKind(k, where, kc); err != nil {
			return err
		}
		if p.Service.PID != 0 && !k.Host() {
			return bad("%s (%s): a %s knob needs service.start (a running service given by pid only takes host knobs)",
				"%s（%s）：%s 类设置需要 service.start（以 pid 给出的运行中服务只接受主机设置）", where, k.Name, k.Kind)
		}
		seen, err := knobValues(k, where)
		if err != nil {
			return err
		}
		n := len(k.Values)
		if !seen[k.Baseline] {
			n++
		}
		arms *= n
		if arms > maxArms {
			return bad("knobs: more than %d combinations; narrow the plan", "knobs：组合超过 %d 个；请缩小计划", maxArms)
		}
	}
	if arms == 1 {
		return bad("knobs: every value is the baseline's: nothing to compare", "knobs：所有取值都等于基线：没有可比较的组合")
	}
	return nil
}

// validateKind checks a knob's key and values for its kind (config files
// are made absolute, relative to the plan's folder).
func (p *Plan) validateKind(k *Knob, where string, kc *knobCheck) error {
	switch k.Kind {
	case KindJVM:
		if k.Key != "" {
			return bad("%s (%s): a jvm knob has no key (its values are whole options)", "%s（%s）：jvm 类设置没有 key（其取值是完整的选项）", where, k.Name)
		}
		for _, v := range append([]string{k.Baseline}, k.Values...) {
			if _, err := jvmOptions(v); err != nil {
				return fmt.Errorf("%s (%s): %w", where, k.Name, err)
			}
		}
	case KindProperty, KindEnv, KindSysctl:
		if !keyRE.MatchString(k.Key) {
			return bad("%s (%s): key %q is not a valid name", "%s（%s）：key %q 不是合法的名称", where, k.Name, k.Key)
		}
		if k.Kind == KindEnv && (k.Key == overlayVar || strings.HasPrefix(k.Key, "TUNELOOP_")) {
			return bad("%s (%s): %s is the overlay's own variable", "%s（%s）：%s 是覆盖层自身使用的变量", where, k.Name, k.Key)
		}
	case KindSysfs:
		if !strings.HasPrefix(k.Key, "/sys/") || strings.Contains(k.Key, "..") {
			return bad("%s (%s): key %q is not a /sys attribute", "%s（%s）：key %q 不是 /sys 属性", where, k.Name, k.Key)
		}
	case KindLimit:
		if _, ok := limitResources[k.Key]; !ok || kc.limits[k.Key] {
			return bad("%s (%s): key %q is not a limit, or a repeated one (want one of %s)", "%s（%s）：key %q 不是限制名或重复（应为 %s 之一）", where, k.Name, k.Key, limitNames())
		}
		kc.limits[k.Key] = true
		for _, v := range append([]string{k.Baseline}, k.Values...) {
			if _, err := parseLimit(v); v != "" && err != nil {
				return fmt.Errorf("%s (%s): %w", where, k.Name, err)
			}
		}
	case KindBinding:
		if k.Key != "" || kc.binding {
			return bad("%s (%s): a binding knob has no key, and a plan has one binding knob", "%s（%s）：binding 类设置没有 key，且一个计划只能有一个", where, k.Name)
		}
		kc.binding = true
		for _, v := range append([]string{k.Baseline}, k.Values...) {
			if err := checkBindingValue(v); v != "" && err != nil {
				return fmt.Errorf("%s (%s): %w", where, k.Name, err)
			}
		}
	case KindConfigFile:
		if !keyRE.MatchString(k.Key) {
			return bad("%s (%s): key %q is not a system property name (e.g. logback.configurationFile)", "%s（%s）：key %q 不是系统属性名（例如 logback.configurationFile）", where, k.Name, k.Key)
		}
		for i, v := range k.Values {
			if v != "" && !filepath.IsAbs(v) {
				k.Values[i] = filepath.Join(p.dir, v)
			}
		}
		if k.Baseline != "" && !filepath.IsAbs(k.Baseline) {
			k.Baseline = filepath.Join(p.dir, k.Baseline)
		}
		for _, v := range append([]string{k.Baseline}, k.Values...) {
			if v == "" {
				continue
			}
			if fi, err := os.Stat(v); err != nil || !fi.Mode().IsRegular() {
				return bad("%s (%s): %s is not a readable file", "%s（%s）：%s 不是可读的文件", where, k.Name, v)
			}
		}
	default:
		return bad("%s (%s): kind %q (want jvm, property, env, limit, binding, config-file, sysctl or sysfs)",
			"%s（%s）：kind %q（应为 jvm、property、env、limit、binding、config-file、sysctl 或 sysfs）", where, k.Name, k.Kind)
	}
	return nil
}

// knobValues checks a knob's values: some, distinct, on one line, not
// empty for a host knob; seen holds them.
func knobValues(k *Knob, where string) (map[string]bool, error) {
	if len(k.Values) == 0 {
		return nil, bad("%s (%s): no values", "%s（%s）：没有 values", where, k.Name)
	}
	seen := map[string]bool{}
	for _, v := range k.Values {
		if strings.ContainsAny(v, "\x00\n\r") || seen[v] {
			return nil, bad("%s (%s): value %q repeated or holds a line break", "%s（%s）：取值 %q 重复或包含换行", where, k.Name, v)
		}
		if k.Host() && v == "" {
			return nil, bad("%s (%s): a host knob's value cannot be empty", "%s（%s）：主机设置的取值不能为空", where, k.Name)
		}
		seen[v] = true
	}
	if strings.ContainsAny(k.Baseline, "\x00\n\r") {
		return nil, bad("%s (%s): the baseline holds a line break", "%s（%s）：baseline 包含换行", where, k.Name)
	}
	return seen, nil
}
