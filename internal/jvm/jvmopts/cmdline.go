package jvmopts

// ParseCommandLine splits pasted shell text into arguments. Sample inputs:
//
//	nohup /opt/jdk/bin/java -Xms4g -Xmx4g -Dapp.name="core bank" -jar app.jar > /logs/out.log 2>&1 &
//	JAVA_OPTS="-Xms2g -Xmx2g -XX:+UseG1GC"; java $JAVA_OPTS -cp 'lib/*' com.example.Main
//	export JAVA_OPTS='-server -Xmx8g -XX:+UseParallelGC'
//	java \
//	  -Xmx1g \
//	  -jar x.jar

import "strings"

// quoting of one rune of a word.
const (
	unquoted = iota
	single
	double
)

type word struct {
	text []byte
	q    []uint8 // quoting of each byte
	op   string  // non-empty for an operator token: ; & | && || newline
}

func (w *word) add(r byte, q uint8) { w.text = append(w.text, r); w.q = append(w.q, q) }

func (w *word) allUnquoted() bool {
	for _, q := range w.q {
		if q != unquoted {
			return false
		}
	}
	return true
}

// ParseCommandLine splits s as a POSIX shell would split one simple command
// (single and double quotes, backslash escapes, backslash-newline
// continuations, # comments), without running anything, and then picks the
// java command out of it:
//
//   - The text is cut into commands at unquoted ; & | && || and newlines;
//     redirections (> file, 2>&1, < in) are dropped.
//   - The command whose program is a java launcher is chosen, else the first
//     command with words. Unquoted leading nohup/exec/env/command/time and
//     NAME=value assignments are skipped.
//   - Variables assigned anywhere before it on the line (JAVA_OPTS="-Xmx2g"
//     ... or export JAVA_OPTS=...) are expanded when a word is exactly
//     $NAME or ${NAME}: split on blanks when unquoted, one word in double
//     quotes. Other $ text is kept literally.
//   - A line holding only assignments (a pasted JAVA_OPTS setting) yields the
//     assigned values split on blanks, in order.
//
// Quoted text is always literal: 'nohup' or "A=b" are ordinary words. The
// result is nil for blank input. It never fails: an unterminated quote ends
// at the end of the text.
func ParseCommandLine(s string) []string {
	cmds := splitCommands(tokenize(s))
	vars := map[string]string{}
	var assigned []string
	for _, cmd := range cmds {
		words, assigns := stripPrefix(cmd)
		if len(words) > 0 && IsLauncher(string(words[0].text)) {
			for _, as := range assigns {
				vars[as[0]] = as[1]
			}
			return expand(words, vars)
		}
		for _, as := range assigns {
			vars[as[0]] = as[1]
			assigned = append(assigned, as[1])
		}
	}
	for _, cmd := range cmds {
		words, _ := stripPrefix(cmd)
		if len(words) > 0 {
			return expand(words, vars)
		}
	}
	var out []string
	for _, v := range assigned {
		out = append(out, strings.Fields(v)...)
	}
	return out
}

// tokenize turns s into words and operators, dropping redirections and
// comments.
func tokenize(s string) []word {
	var (
		toks     []word
		cur      word
		inWord   bool
		dropNext bool // the next word is a redirection target
	)
	flush := func() {
		if inWord {
			if dropNext {
				dropNext = false
			} else {
				toks = append(toks, cur)
			}
		}
		cur, inWord = word{}, false
	}
	rs := s
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\':
			if i+1 < len(rs) {
				i++
				if rs[i] == '\n' {
					continue // line continuation
				}
				if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
					i++
					continue
				}
				cur.add(rs[i], single)
				inWord = true
			}
		case r == '\'':
			inWord = true
			for i++; i < len(rs) && rs[i] != '\''; i++ {
				cur.add(rs[i], single)
			}
		case r == '"':
			inWord = true
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) {
					switch rs[i+1] {
					case '$', '`', '"', '\\':
						i++
					case '\n':
						i++
						continue
					}
				}
				cur.add(rs[i], double)
			}
		case r == ' ' || r == '\t' || r == '\r':
			flush()
		case r == '#' && !inWord:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			i--
		case r == '\n' || r == ';' || r == '&' || r == '|':
			if (r == '&') && i+1 < len(rs) && rs[i+1] == '>' {
				// &> file: redirect both streams.
				flush()
				i++
				for i+1 < len(rs) && rs[i+1] == '>' {
					i++
				}
				dropNext = true
				continue
			}
			flush()
			op := string(r)
			if (r == '&' || r == '|') && i+1 < len(rs) && rs[i+1] == r {
				op += string(r)
				i++
			}
			dropNext = false
			toks = append(toks, word{op: op})
		case r == '>' || r == '<':
			// An all-digit unquoted word right before is the fd number.
			if inWord && cur.allUnquoted() && isDigits(cur.text) {
				cur, inWord = word{}, false
			} else {
				flush()
			}
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '<' || rs[i+1] == '&' || rs[i+1] == '|') {
				i++
			}
			dropNext = true
		default:
			cur.add(r, unquoted)
			inWord = true
		}
	}
	flush()
	return toks
}

func isDigits(rs []byte) bool {
	if len(rs) == 0 {
		return false
	}
	for _, r := range rs {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func splitCommands(toks []word) [][]word {
	var cmds [][]word
	var cur []word
	for _, t := range toks {
		if t.op != "" {
			if len(cur) > 0 {
				cmds = append(cmds, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

var prefixCmds = map[string]bool{
	"nohup": true, "exec": true, "env": true, "command": true, "time": true,
	"export": true, "sudo": true,
}

// stripPrefix drops unquoted prefix commands and NAME=value assignments,
// returning the rest and the assignments.
func stripPrefix(cmd []word) ([]word, [][2]string) {
	var assigns [][2]string
	for len(cmd) > 0 {
		w := cmd[0]
		if w.allUnquoted() && prefixCmds[string(w.text)] {
			cmd = cmd[1:]
			continue
		}
		if name, val, ok := assignment(w); ok {
			assigns = append(assigns, [2]string{name, val})
			cmd = cmd[1:]
			continue
		}
		break
	}
	return cmd, assigns
}

// assignment recognises NAME=value with NAME and = unquoted.
func assignment(w word) (name, val string, ok bool) {
	for i, r := range w.text {
		if w.q[i] != unquoted {
			return "", "", false
		}
		if r == '=' {
			if i == 0 {
				return "", "", false
			}
			return string(w.text[:i]), string(w.text[i+1:]), true
		}
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "", "", false
		}
	}
	return "", "", false
}

// expand replaces words that are exactly $NAME / ${NAME} of a known variable.
func expand(words []word, vars map[string]string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		name, q, ok := varRef(w)
		val, known := vars[name]
		switch {
		case ok && known && q == unquoted:
			out = append(out, strings.Fields(val)...)
		case ok && known:
			out = append(out, val)
		default:
			out = append(out, string(w.text))
		}
	}
	return out
}

// varRef recognises a word that is exactly $NAME or ${NAME}, all with the
// same quoting (none or double).
func varRef(w word) (string, uint8, bool) {
	t := string(w.text)
	if len(t) < 2 || t[0] != '$' {
		return "", 0, false
	}
	q := w.q[0]
	if q == single {
		return "", 0, false
	}
	for _, x := range w.q {
		if x != q {
			return "", 0, false
		}
	}
	name := t[1:]
	if strings.HasPrefix(name, "{") && strings.HasSuffix(name, "}") {
		name = name[1 : len(name)-1]
	}
	if name == "" {
		return "", 0, false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "", 0, false
		}
	}
	return name, q, true
}

// QuoteCommandLine joins args into shell text that ParseCommandLine (and a
// POSIX shell) splits back into the same args: words that need it are put in
// single quotes.
func QuoteCommandLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteWord(a))
	}
	return b.String()
}

func quoteWord(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("-_./:,+@%^", r))
	}) < 0 && !prefixCmds[a] && !strings.Contains(a, "=") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
