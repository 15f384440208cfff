package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// zoo/eval/services.tsv declares, for each eval service, the mechanism it is
// built to show and the application frame that causes it; `make eval` and
// the e2e subset (run_eval_test.go) score the diagnosis against it. This
// test keeps the declarations true to the code without starting a JVM: every
// declared frame is a method of a class of the zoo's sources.

const evalManifest = "../../zoo/eval/services.tsv"

// evalService is one row of zoo/eval/services.tsv.
type evalService struct {
	name, start, path string
	users             int
	duration          time.Duration
	mechanism         string
	code              []string // alternatives: pkg.Class.method
	fixed             string
}

// parseEvalManifest reads the manifest; a malformed row is an error naming
// its line.
func parseEvalManifest(path string) ([]evalService, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []evalService
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 8 {
			return nil, &manifestError{path, n, strconv.Itoa(len(c)) + " tab-separated columns, want 8"}
		}
		users, err := strconv.Atoi(c[3])
		if err != nil || users < 1 {
			return nil, &manifestError{path, n, "users " + strconv.Quote(c[3]) + " is not a positive number"}
		}
		d, err := time.ParseDuration(c[4])
		if err != nil || d <= 0 {
			return nil, &manifestError{path, n, "duration " + strconv.Quote(c[4]) + " is not a Go duration"}
		}
		out = append(out, evalService{name: c[0], start: c[1], path: c[2], users: users, duration: d,
			mechanism: c[5], code: strings.Split(c[6], "|"), fixed: c[7]})
	}
	return out, sc.Err()
}

type manifestError struct {
	file string
	line int
	msg  string
}

func (e *manifestError) Error() string { return e.file + ":" + strconv.Itoa(e.line) + ": " + e.msg }

func readEvalManifest(t *testing.T) map[string]evalService {
	t.Helper()
	list, err := parseEvalManifest(evalManifest)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]evalService{}
	for _, s := range list {
		out[s.name] = s
	}
	return out
}

var (
	mechanismID = regexp.MustCompile(`^mech\.[a-z]+\.[a-z0-9-]+$`)
	javaFrame   = regexp.MustCompile(`^((?:[a-z][a-z0-9_]*\.)+)([A-Z][A-Za-z0-9_$]*)\.([a-z][A-Za-z0-9_]*)$`)
)

func TestEvalManifest(t *testing.T) {
	list, err := parseEvalManifest(evalManifest)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 10 {
		t.Fatalf("%d services in %s, want the whole eval zoo", len(list), evalManifest)
	}
	seen := map[string]bool{}
	families := map[string]bool{}
	for _, s := range list {
		if seen[s.name] {
			t.Errorf("%s: declared twice", s.name)
		}
		seen[s.name] = true
		if !mechanismID.MatchString(s.mechanism) {
			t.Errorf("%s: mechanism %q is not an ID mech.FAMILY.NAME", s.name, s.mechanism)
		}
		families[strings.Split(s.mechanism, ".")[1]] = true
		if !strings.HasPrefix(s.path, "/") {
			t.Errorf("%s: path %q does not start with /", s.name, s.path)
		}
		for _, ph := range []string{"{JAVA}", "{ZOO}", "{PORT}"} {
			if !strings.Contains(s.start, ph) {
				t.Errorf("%s: start command lacks %s: %s", s.name, ph, s.start)
			}
		}
		// Each declared frame is a method of a class in the zoo's sources.
		for _, frame := range s.code {
			m := javaFrame.FindStringSubmatch(frame)
			if m == nil {
				t.Errorf("%s: code %q is not pkg.Class.method", s.name, frame)
				continue
			}
			rel := strings.ReplaceAll(m[1], ".", "/") + m[2] + ".java"
			var src []byte
			for _, project := range []string{"spring", "netty", "jdk"} {
				if b, err := os.ReadFile(filepath.Join("../../zoo", project, "src/main/java", rel)); err == nil {
					src = b
				}
			}
			if src == nil {
				t.Errorf("%s: no source of %s%s in zoo/{spring,netty,jdk}", s.name, m[1], m[2])
				continue
			}
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(m[3]) + `\s*\(`).Match(src) {
				t.Errorf("%s: %s has no method %s", s.name, rel, m[3])
			}
		}
	}
	// The issue asks for one service per catalogue family at least; these
	// are the families the zoo covers today.
	for _, f := range []string{"logging", "eventloop", "cpu", "gc", "pool", "wait", "lock"} {
		if !families[f] {
			t.Errorf("no eval service of the %s family", f)
		}
	}
}

func TestEvalManifestErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"a\tb\tc\n", "bad.tsv:1: 3 tab-separated columns"},
		{"# c\nn\ts\t/p\tx\t15s\tmech.a.b\tp.C.m\t-\n", "bad.tsv:2: users \"x\""},
		{"n\ts\t/p\t5\tsoon\tmech.a.b\tp.C.m\t-\n", "bad.tsv:1: duration \"soon\""},
	} {
		p := filepath.Join(dir, "bad.tsv")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := parseEvalManifest(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
}
