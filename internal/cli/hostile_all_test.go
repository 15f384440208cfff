package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// Issue 12: every control character and escape a target or a file can hold,
// through every command and output format. A terminal must act on none of
// them (text, and JSON shown on a terminal), Markdown must not turn them into
// markup or links, HTML must show them as text.

// The escapes: BEL, a colour (CSI), an OSC title ended by BEL, the C1 CSI
// (U+009B), CR, backspace, a right-to-left override, HTML and a Markdown
// link. hostileName is the part a file name can hold; hostileText adds what
// only file contents and JSON can (NUL, a URL with '/').
const (
	hostileName = "evil\a\x1b[31mRED\x1b[0m\x1b]0;owned\a\u009b2J\rCR\bBS\u202eRLO<b>x"
	hostileText = hostileName + "\x00NUL<script>alert(1)</script>[click](http://evil.example/)|pipe"
)

// hostileBad lists what must never reach an output raw: C0 controls but
// newline and tab, DEL, C1 controls and the bidi controls.
func hostileBad(s string) []rune {
	var bad []rune
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || finding.IsBidiControl(r) {
			bad = append(bad, r)
		}
	}
	return bad
}

// clean asserts what a user would check of one output in one format.
func clean(t *testing.T, what, format, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8", what)
	}
	if bad := hostileBad(out); len(bad) > 0 {
		i := strings.IndexRune(out, bad[0])
		t.Errorf("%s: %d raw control characters, first %U in %q", what, len(bad), bad[0], out[max(0, i-80):min(len(out), i+20)])
	}
	switch format {
	case "json":
		if !json.Valid([]byte(out)) {
			t.Errorf("%s: not valid JSON:\n%.2000s", what, out)
		}
	case "markdown":
		prose, tables := markdownProse(out)
		for _, raw := range []string{"<script>", "<b>", "[click](http://evil.example/)"} {
			if strings.Contains(prose, raw) {
				i := strings.Index(prose, raw)
				t.Errorf("%s: %q raw in Markdown outside code: %q", what, raw, prose[max(0, i-100):i+len(raw)])
			}
		}
		for _, tb := range tables {
			for _, row := range tb[1:] {
				if n, want := cellCount(row), cellCount(tb[0]); n != want {
					t.Errorf("%s: a table row has %d cells, its header %d: %q", what, n, want, row)
				}
			}
		}
	case "html":
		for _, raw := range []string{"<script>alert(1)", "<b>x"} {
			if strings.Contains(out, raw) {
				t.Errorf("%s: %q raw in HTML", what, raw)
			}
		}
	case "junit":
		if err := xml.Unmarshal([]byte(out), new(struct{})); err != nil {
			t.Errorf("%s: not well-formed XML: %v", what, err)
		}
	}
}

// markdownProse is the Markdown out of code blocks and code spans (where
// text is shown as it is, markup included), and its tables' rows.
func markdownProse(md string) (string, [][]string) {
	var prose strings.Builder
	var tables [][]string
	fence := ""
	inTable := false
	for _, l := range strings.Split(md, "\n") {
		trim := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(trim, fence) && strings.Trim(trim, "`") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trim, "```") {
			fence = trim[:len(trim)-len(strings.TrimLeft(trim, "`"))]
			continue
		}
		if strings.HasPrefix(l, "|") {
			if !inTable {
				tables = append(tables, nil)
			}
			inTable = true
			tables[len(tables)-1] = append(tables[len(tables)-1], l)
		} else {
			inTable = false
		}
		// Code spans: a run of backticks up to the same run.
		for {
			i := strings.IndexByte(l, '`')
			if i < 0 {
				break
			}
			n := len(l[i:]) - len(strings.TrimLeft(l[i:], "`"))
			j := strings.Index(l[i+n:], l[i:i+n])
			if j < 0 {
				break
			}
			l = l[:i] + l[i+n+j+n:]
		}
		prose.WriteString(l + "\n")
	}
	return prose.String(), tables
}

// cellCount counts a table row's cell separators: pipes not escaped, code
// spans included (GFM splits cells there too).
func cellCount(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// cmd runs the whole command line as a user would and checks stdout and
// stderr; it returns stdout and the exit code.
func cmd(t *testing.T, format string, args ...string) (string, int) {
	t.Helper()
	env, out, errb := testEnv()
	code := runRoot(t, env, args...)
	what := strings.Join(args, " ")
	clean(t, what, format, out.String())
	clean(t, what+" (stderr)", "text", errb.String())
	if code == ExitUsage {
		t.Logf("%q: exit 2: %s", what, errb)
	}
	return out.String(), code
}

// fileOut checks a file a command wrote (-o html --out, --html).
func fileOut(t *testing.T, what, format, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	clean(t, what, format, string(b))
}

// Files whose names and contents hold the escapes, and paths that do not
// exist: every command that reads a path names it on stderr escaped.
func TestHostileErrorsNamePathsEscaped(t *testing.T) {
	missing := filepath.Join(t.TempDir(), hostileName)
	for _, args := range [][]string{
		{"analyze", missing},
		{"compare", missing, missing},
		{"porting", missing},
		{"check", "--root", missing},
		{"apply", "--from", missing},
		{"load", "--scenario", missing},
		{"load", "--import", missing},
		{"runs", "rm", missing, "--catalog", filepath.Join(t.TempDir(), "c.db")},
		{"load", "http://127.0.0.1:1/" + hostileName, "-d", "1s"},
		{"jvm", hostileName},                             // not a PID: said escaped
		{"jvm", "1", "--jcmd", hostileName, "-o", "xml"}, // a usage error before any attach
		{"jvm", "1", "--raw", missing + "/x", "--dump", "0"},
	} {
		_, code := cmd(t, "text", args...)
		if code == ExitOK {
			t.Errorf("%q: exit 0", args)
		}
	}
}

// analyze: a thread dump with a hostile thread name, a GC log with a hostile
// cause, a logging configuration with hostile appenders, each in a file with
// a hostile name, in every format analyze writes.
func TestHostileAnalyzeEveryFormat(t *testing.T) {
	tmp := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, hostileName+name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dump, err := os.ReadFile(filepath.Join(dumpsDir, "jdk17_deadlock_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// A dump holds no NUL (it would be binary): the name without it.
	noNUL := strings.ReplaceAll(hostileText, "\x00", "")
	dumpPath := write("dump.txt", bytes.ReplaceAll(dump, []byte(`"transfer-1"`), []byte(`"`+noNUL+`"`)))
	gc, err := os.ReadFile(filepath.Join(gcDir, "jdk17-g1.log"))
	if err != nil {
		t.Fatal(err)
	}
	// A cause is within parentheses: the escapes without the link.
	gcPath := write("gc.log", bytes.ReplaceAll(gc, []byte("(G1 Evacuation Pause)"), []byte("("+hostileName+")")))
	props := "log4j.rootLogger=INFO, FILE\nlog4j.appender.FILE=org.apache.log4j.FileAppender\n" +
		"log4j.appender.FILE.File=/var/log/" + strings.ReplaceAll(noNUL, "\n", "") + ".log\n" +
		"log4j.appender.FILE.layout=org.apache.log4j.PatternLayout\nlog4j.logger.com.evil\x1b[31m\u202e=DEBUG, FILE\n"
	confPath := write("log4j.properties", []byte(props))

	for _, in := range []struct{ name, path string }{{"dump", dumpPath}, {"gc", gcPath}, {"logconf", confPath}} {
		for _, o := range []string{"text", "json", "markdown"} {
			out, code := cmd(t, o, "analyze", in.path, "-o", o)
			if code != ExitOK && code != ExitFindings {
				t.Errorf("analyze %s -o %s: exit %d\n%.1500s", in.name, o, code, out)
			}
			if o == "text" && !strings.Contains(out, `evil\x07\x1b[31mRED`) {
				t.Errorf("analyze %s: the hostile text is not shown escaped:\n%.3000s", in.name, out)
			}
		}
		for _, lang := range []string{"en", "zh"} {
			cmd(t, "text", "analyze", in.path, "--lang", lang)
		}
	}
	// A JVM command line: its options are text from the target's /proc.
	cmdline := "java -Xmx2g -Dapp.name=" + strings.ReplaceAll(noNUL, " ", "") + " -XX:+UseSerialGC -XX:" + hostileName + " -jar " + hostileName + ".jar"
	for _, o := range []string{"text", "json", "markdown"} {
		cmd(t, o, "analyze", "--cmdline", cmdline, "-o", o)
	}
	for _, in := range []struct{ name, path string }{{"dump", dumpPath}, {"gc", gcPath}} {
		page := filepath.Join(tmp, in.name+".html")
		cmd(t, "text", "analyze", in.path, "-o", "html", "--out", page)
		fileOut(t, "analyze "+in.name+" -o html", "html", page)
		if b, _ := os.ReadFile(page); !bytes.Contains(b, []byte(`evil\x07\x1b[31mRED`)) {
			t.Errorf("analyze %s -o html: the hostile name is not shown escaped", in.name)
		}
	}
}

// check with a captured host tree whose NIC, disk, OS name and host name
// hold the escapes.
func TestHostileCheckRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "..", "testdata", "hosts", "kunpeng920-2s4n"), root).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, mv := range [][2]string{{"sys/class/net/enp125s0f0", "sys/class/net/eth" + hostileName}, {"sys/block/sda", "sys/block/sd" + hostileName}} {
		if err := os.Rename(filepath.Join(root, mv[0]), filepath.Join(root, mv[1])); err != nil {
			t.Fatal(err)
		}
	}
	osr := filepath.Join(root, "etc", "os-release")
	b, err := os.ReadFile(osr)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "PRETTY_NAME=") {
			l = `PRETTY_NAME="` + strings.ReplaceAll(hostileText, "\x00", "") + `"`
		}
		lines = append(lines, l)
	}
	os.WriteFile(osr, []byte(strings.Join(lines, "\n")), 0o644)
	os.WriteFile(filepath.Join(root, "proc", "sys", "kernel", "hostname"), []byte(hostileName+"\n"), 0o644)
	for _, o := range []string{"text", "json", "markdown"} {
		out, _ := cmd(t, o, "check", "--root", root, "-o", o, "--all")
		if !strings.Contains(out, "eth") || !strings.Contains(out, "evil") {
			t.Errorf("check -o %s: the hostile NIC is not in the output:\n%.2000s", o, out)
		}
	}
	cmd(t, "text", "check", "--root", root, "--lang", "zh")
}

// porting: a jar with a hostile name holding a native library with a
// hostile name (an x86-64 ELF: a blocker, named in every format).
func TestHostilePorting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "app")
	os.MkdirAll(dir, 0o755)
	jar := jarOf(t, map[string][]byte{
		"lib/" + hostileName + ".so":                                 portingELF(t, "x86_64"),
		"META-INF/maven/com.evil/" + hostileName + "/pom.properties": pom("com.evil\x1b[31m", hostileName, "1.0\u202e"),
	}, false)
	if err := os.WriteFile(filepath.Join(dir, hostileName+".jar"), jar, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"text", "json", "markdown", "junit"} {
		out, _ := cmd(t, o, "porting", dir, "-o", o, "--all")
		if !strings.Contains(out, "evil") {
			t.Errorf("porting -o %s: the jar is not named:\n%.2000s", o, out)
		}
	}
	cmd(t, "text", "porting", dir, "--lang", "zh")
}

// hostileReport is a run report (compare's input) whose identifying and
// descriptive strings all hold the escapes.
func hostileReport(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var page map[string]any
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				switch k {
				case "title", "command", "dir", "id", "target", "subject", "en", "zh", "label", "name", "url", "service", "frame", "class", "owner":
					if s, ok := c.(string); ok {
						x[k] = s + hostileText
						continue
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(page)
	out, _ := json.Marshal(page)
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// compare: two run reports whose service, IDs, titles and labels hold the
// escapes, in every format compare writes.
func TestHostileCompare(t *testing.T) {
	tmp := t.TempDir()
	before, after := filepath.Join(tmp, "before.json"), filepath.Join(tmp, "after.json")
	hostileReport(t, demoBefore, before)
	hostileReport(t, demoAfter, after)
	for _, o := range []string{"text", "json", "markdown", "junit"} {
		out, code := cmd(t, o, "compare", before, after, "-o", o)
		if code != ExitOK && code != ExitFindings {
			t.Errorf("compare -o %s: exit %d\n%.2000s", o, code, out)
		}
	}
	cmd(t, "text", "compare", before, after, "--lang", "zh")
}

// runs: catalog entries (from manifests) with hostile IDs, targets,
// findings and folders, listed, trended and exported.
func TestHostileRuns(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	c, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		dir := filepath.Join(tmp, fmt.Sprintf("%s-%d", hostileName, i))
		if _, err := runfolder.Create(dir, runfolder.Manifest{ID: hostileText}); err != nil {
			t.Fatal(err)
		}
		hostileReport(t, demoAfter, filepath.Join(dir, "report.json"))
		e := catalog.Entry{ID: fmt.Sprintf("%s%d", hostileText, i), Dir: dir, Start: t0.Add(time.Duration(i) * time.Hour), End: t0.Add(time.Duration(i)*time.Hour + time.Minute),
			Status: runfolder.Complete, PID: 7, Comm: hostileText, Findings: 1, Top: hostileText, Host: hostileText, Command: hostileText}
		if err := c.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	for _, o := range []string{"text", "json"} {
		cmd(t, o, "runs", "--catalog", db, "-o", o)
		cmd(t, o, "runs", "trend", "--catalog", db, "-o", o)
	}
	cmd(t, "text", "runs", "--catalog", db, "--lang", "zh")
	cmd(t, "text", "runs", "export", "--catalog", db)
}

// apply --from a run folder whose check.json holds hostile findings: IDs,
// subjects, keys, values and commands.
func TestHostileApplyFrom(t *testing.T) {
	host := applyHost(t)
	dir := t.TempDir()
	fs := []finding.Finding{
		{ID: "net.syn-backlog", Subject: hostileText, Status: finding.Fail, Title: finding.T(hostileText, hostileText),
			Fix: finding.Fix{Apply: "sysctl -w " + hostileText, Changes: []finding.Change{{Kind: finding.ChangeSysctl, Key: "net.ipv4.tcp_max_syn_backlog", Value: "4096" + hostileText}}}},
		{ID: "kernel." + hostileText, Status: finding.Fail, Fix: finding.Fix{Apply: hostileText, Reboot: true}},
	}
	b, _ := json.Marshal(fs)
	os.WriteFile(filepath.Join(dir, "check.json"), b, 0o644)
	for _, o := range []string{"text", "json"} {
		cmd(t, o, "apply", "--from", dir, "--all-safe", "--root", host, "--journal", t.TempDir(), "-o", o)
		cmd(t, o, "apply", "net.syn-backlog", "kernel."+hostileText, "--from", dir, "--root", host, "--journal", t.TempDir(), "-o", o)
	}
}

// load: a scenario whose labels and URLs hold the escapes, against a
// 127.0.0.1 server whose answers carry them in a header, the status line's
// reason and the body; the summary, the JSON and the HTML report.
func TestHostileLoad(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Evil", strings.NewReplacer("\r", "", "\n", "", "\x00", "").Replace(hostileText))
		w.Header().Set("Server", "evil\x1b[31m\u202e")
		if strings.Contains(r.URL.RawQuery, "fail") {
			w.WriteHeader(500)
		}
		w.Write([]byte(hostileText))
	}))
	defer srv.Close()
	tmp := t.TempDir()
	q := func(s string) string { // a YAML double-quoted string, every non-ASCII or control rune escaped
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range s {
			if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
		return b.String() + `"`
	}
	scenario := fmt.Sprintf("base_url: %s\nrequests:\n  - {label: %s, url: %s, weight: 1, assert: {body_contains: %s}}\n  - {label: %s, url: %s, weight: 1}\n",
		srv.URL, q(hostileText), q("/ok?x="+url.QueryEscape(hostileText)), q("absent"+hostileName), q("fail"+hostileName), q("/x?fail=1"))
	sc := filepath.Join(tmp, "scenario.yaml")
	os.WriteFile(sc, []byte(scenario), 0o644)
	page := filepath.Join(tmp, "load.html")
	for _, o := range []string{"text", "json"} {
		out, code := cmd(t, o, "load", "--scenario", sc, "-c", "2", "-d", "1s", "-q", "-o", o)
		if code == ExitUsage {
			t.Errorf("load -o %s: exit %d\n%.2000s", o, code, out)
		}
	}
	if env, _, _ := testEnv(); newLoadCmd(env).Flags().Lookup("html") != nil { // the load page (being built alongside)
		cmd(t, "text", "load", "--scenario", sc, "-c", "2", "-d", "1s", "-q", "--html", page)
		fileOut(t, "load --html", "html", page)
	}
	cmd(t, "text", "load", srv.URL+"/?q="+url.QueryEscape(hostileText), "-c", "1", "-d", "1s", "-q", "--expect-body", hostileName)
	cmd(t, "text", "load", srv.URL+"/?q="+hostileName, "-c", "1", "-d", "1s", "-q") // refused: the URL is named escaped
	cmd(t, "text", "load", srv.URL+"/?fail=1", "-c", "1", "-d", "1s", "-q", "--lang", "zh")
}
