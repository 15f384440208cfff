package finding

import (
	"encoding/json"
	"testing"
)

func TestParseLang(t *testing.T) {
	for in, want := range map[string]Lang{"en": EN, "zh": ZH, "zh_CN.UTF-8": ZH, "zh-TW": ZH, "en_US.UTF-8": EN, "C": EN, "POSIX": EN} {
		if got, err := ParseLang(in); err != nil || got != want {
			t.Errorf("ParseLang(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseLang("fr_FR"); err == nil {
		t.Error("fr_FR accepted")
	}
}

func TestLangFromEnvPrecedence(t *testing.T) {
	env := map[string]string{"LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}
	if got := LangFromEnv(func(k string) string { return env[k] }); got != ZH {
		t.Errorf("LC_MESSAGES should win over LANG, got %v", got)
	}
	env["LC_ALL"] = "fr_FR.UTF-8" // set but not ours: English, not the next variable
	if got := LangFromEnv(func(k string) string { return env[k] }); got != EN {
		t.Errorf("LC_ALL=fr should give English, got %v", got)
	}
}

func TestTextFallsBackToEnglish(t *testing.T) {
	if got := T("only english", "").In(ZH); got != "only english" {
		t.Errorf("got %q", got)
	}
}

func TestSeverityJSONRoundTrip(t *testing.T) {
	for _, s := range []Severity{Info, Warning, Critical} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s: round trip gave %v, %v", b, back, err)
		}
	}
	var s Severity
	if err := json.Unmarshal([]byte(`"fatal"`), &s); err == nil {
		t.Error("unknown severity accepted")
	}
}

func TestSortRanksRootCausesFirst(t *testing.T) {
	fs := []Finding{
		{ID: "a.pass", Status: Pass},
		{ID: "b.warn", Status: Fail, Severity: Warning},
		{ID: "c.unavail", Status: Unavailable},
		{ID: "d.crit", Status: Fail, Severity: Critical},
		{ID: "e.skip", Status: Skipped},
		{ID: "f.info", Status: Fail, Severity: Info},
		{ID: "a.warn", Status: Fail, Severity: Warning},
	}
	Sort(fs)
	want := []string{"d.crit", "a.warn", "b.warn", "f.info", "c.unavail", "a.pass", "e.skip"}
	for i, id := range want {
		if fs[i].ID != id {
			t.Fatalf("position %d: got %s, want %s (order %v)", i, fs[i].ID, id, ids(fs))
		}
	}
	c := Count(fs)
	if c.Fail != 4 || c.Critical != 1 || c.Warning != 2 || c.Info != 1 || c.Pass != 1 || c.Unavailable != 1 || c.Skipped != 1 {
		t.Errorf("counts %+v", c)
	}
	if w, ok := Worst(fs); !ok || w != Critical {
		t.Errorf("worst = %v, %v", w, ok)
	}
	if _, ok := Worst(fs[4:]); ok {
		t.Error("Worst found a failure among non-failures")
	}
}

func ids(fs []Finding) []string {
	out := make([]string, len(fs))
	for i := range fs {
		out[i] = fs[i].ID
	}
	return out
}

func TestStableKey(t *testing.T) {
	for subject, want := range map[string]string{
		"java.util.concurrent.locks.ReentrantLock$NonfairSync@0x00000006875d8ea8": "threaddump.lock.app/java.util.concurrent.locks.ReentrantLock$NonfairSync",
		"com.example.zoo.Journal": "threaddump.lock.app/com.example.zoo.Journal",
		"user@0xhost/path":        "threaddump.lock.app/user@0xhost/path", // not an address: a slash follows
		"":                        "threaddump.lock.app",
	} {
		f := Finding{ID: "threaddump.lock.app", Subject: subject}
		if got := f.StableKey(); got != want {
			t.Errorf("%q: %q, want %q", subject, got, want)
		}
	}
}
