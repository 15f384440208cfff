// Package finding is the shared vocabulary of results: a Finding says what
// was seen (Evidence, with where it was read), why it matters, what to do,
// how to undo it and how risky it is, in English and Chinese.
//
// Every producer of results (host rules, run diagnosis, thread dump and GC
// analysis, porting scan) speaks this vocabulary, so every report renders
// all of them the same way.
package finding

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Lang selects the language of user-facing text.
type Lang string

const (
	EN Lang = "en"
	ZH Lang = "zh"
)

// ParseLang accepts "en", "zh" and locale strings such as "zh_CN.UTF-8".
func ParseLang(s string) (Lang, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	switch {
	case l == "en" || strings.HasPrefix(l, "en_") || strings.HasPrefix(l, "en-") || l == "c" || l == "posix":
		return EN, nil
	case l == "zh" || strings.HasPrefix(l, "zh_") || strings.HasPrefix(l, "zh-"):
		return ZH, nil
	}
	return EN, fmt.Errorf("unknown language %q (want en or zh)", s)
}

// LangFromEnv picks the language from LC_ALL, LC_MESSAGES or LANG, the way
// gettext does; anything not Chinese is English.
func LangFromEnv(getenv func(string) string) Lang {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			if l, err := ParseLang(v); err == nil {
				return l
			}
			return EN
		}
	}
	return EN
}

// Text is a user-facing string in both languages. Both must be filled for
// anything a user reads; tests enforce it on the knowledge base.
type Text struct {
	EN string `json:"en"`
	ZH string `json:"zh"`
}

// T builds a Text.
func T(en, zh string) Text { return Text{EN: en, ZH: zh} }

// In returns the text in lang, falling back to English when the Chinese
// text is missing (never to an empty string when one exists).
func (t Text) In(l Lang) string {
	if l == ZH && t.ZH != "" {
		return t.ZH
	}
	return t.EN
}

// IsZero reports whether both languages are empty.
func (t Text) IsZero() bool { return t.EN == "" && t.ZH == "" }

// Join is the texts one after another, each language on its own.
func Join(ts ...Text) Text {
	var out Text
	for _, t := range ts {
		out.EN += t.EN
		out.ZH += t.ZH
	}
	return out
}

// Tf formats both languages with the same arguments.
func Tf(t Text, args ...any) Text {
	en, zh := args, args
	copied := false
	for i, a := range args {
		if x, ok := a.(Text); ok { // a Text argument is said in each language
			if !copied {
				en, zh, copied = append([]any(nil), args...), append([]any(nil), args...), true
			}
			en[i], zh[i] = x.EN, x.In(ZH)
		}
	}
	return Text{EN: fmt.Sprintf(t.EN, en...), ZH: fmt.Sprintf(t.ZH, zh...)}
}

// Severity orders how much a finding matters. The zero value is Info.
type Severity int

const (
	Info Severity = iota
	Warning
	Critical
)

var severityNames = [...]string{"info", "warning", "critical"}

func (s Severity) String() string {
	if s >= 0 && int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity parses "info", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	return Info, fmt.Errorf("unknown severity %q (want info, warning or critical)", s)
}

func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

func (s *Severity) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	v, err := ParseSeverity(str)
	*s = v
	return err
}

// Label is the severity name in the given language.
func (s Severity) Label(l Lang) string {
	if l == ZH {
		switch s {
		case Critical:
			return "严重"
		case Warning:
			return "警告"
		default:
			return "提示"
		}
	}
	return s.String()
}

// Status is the outcome of one check.
type Status string

const (
	// Fail: the check found something to change or look at.
	Fail Status = "fail"
	// Pass: the check ran and the host matches the recommendation.
	Pass Status = "pass"
	// Unavailable: the input the check needs could not be read; Reason says why.
	Unavailable Status = "unavailable"
	// Skipped: the check does not apply here (profile, architecture, no such device).
	Skipped Status = "skipped"
)

// Label is the status name in the given language.
func (s Status) Label(l Lang) string {
	if l == ZH {
		switch s {
		case Fail:
			return "需处理"
		case Pass:
			return "通过"
		case Unavailable:
			return "无法读取"
		case Skipped:
			return "不适用"
		}
	}
	return string(s)
}

// Evidence is one observed value and where it was read.
type Evidence struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source,omitempty"`
}

// Fix is what to do about a finding and how to undo it. Apply, Revert and
// Persist hold only literal commands, config lines or JVM options, the same
// in every language; explanations go in Note.
type Fix struct {
	// Apply is the exact command or config line(s) to apply, one per line.
	Apply string `json:"apply,omitempty"`
	// Revert undoes Apply; "" only when Apply is empty (advice-only findings).
	Revert string `json:"revert,omitempty"`
	// Persist keeps the change across reboots, when Apply is runtime-only.
	Persist string `json:"persist,omitempty"`
	// Note says where the lines go and what else to do (restart, check).
	Note Text `json:"note"`
	// Reboot is true when the change takes effect only after a reboot.
	Reboot bool `json:"reboot,omitempty"`
	// Changes is Apply as knobs `tuneloop apply` can set, read back and
	// revert through its journal; empty when the fix is not such a knob.
	Changes []Change `json:"changes,omitempty"`
}

// Change kinds: which writer sets a knob.
const (
	// ChangeSysctl: Key is a dotted sysctl name (net.core.somaxconn).
	ChangeSysctl = "sysctl"
	// ChangeSysfs: Key is a /sys or /proc path, possibly a glob (cpu*).
	ChangeSysfs = "sysfs"
	// ChangePrlimit: Key is "PID/resource" (1234/nofile), Value "soft:hard".
	ChangePrlimit = "prlimit"
	// ChangeEthtool: Key is "IFACE/param" (eth0/combined).
	ChangeEthtool = "ethtool"
)

// Change is one knob of a Fix set to Value. The changes of one Fix are one
// group: applied together, and undone together when any fails.
type Change struct {
	Kind  string `json:"kind"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Finding is the result of one check (or one diagnosis) on one subject.
type Finding struct {
	// ID is stable across releases: reports, CI gates and suppressions refer to it.
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Status   Status   `json:"status"`
	Severity Severity `json:"severity"`
	// Subject names what was checked when a rule runs per object (a NIC, a disk, a JVM pid).
	Subject     string     `json:"subject,omitempty"`
	Title       Text       `json:"title"`
	Observed    Text       `json:"observed"`
	Evidence    []Evidence `json:"evidence,omitempty"`
	Why         Text       `json:"why"`
	Recommended Text       `json:"recommended"`
	Fix         Fix        `json:"fix"`
	Risk        Text       `json:"risk"`
	// Workload says which workloads the recommendation applies to.
	Workload Text `json:"workload"`
	// Reason explains an Unavailable or Skipped status.
	Reason     Text     `json:"reason"`
	References []string `json:"references,omitempty"`
	// Confidence in [0,1] for diagnoses inferred from series; 1 for direct readings.
	Confidence float64 `json:"confidence,omitempty"`
	// Window is when a diagnosis over a recorded series held (nil for
	// readings at one instant).
	Window *Window `json:"window,omitempty"`
}

// Window is a span of a recorded run.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// StableKey is Key without a heap address in the subject ("Class@0x..."):
// the same lock moves when the GC compacts the heap, and differs from run
// to run, so dumps over time and runs compared match on the class.
func (f *Finding) StableKey() string {
	k := f.Key()
	if i := strings.LastIndex(k, "@0x"); i > 0 && !strings.ContainsAny(k[i+3:], "/ ") {
		return k[:i]
	}
	return k
}

// Key identifies a finding within one result set: the rule plus its subject.
func (f *Finding) Key() string {
	if f.Subject == "" {
		return f.ID
	}
	return f.ID + "/" + f.Subject
}

// EvidenceValue is the value of the first evidence named key, "" when none.
func (f *Finding) EvidenceValue(key string) string {
	for _, e := range f.Evidence {
		if e.Key == key {
			return e.Value
		}
	}
	return ""
}
