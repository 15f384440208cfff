package jmx

import "strings"

// expander resolves what JMeter resolves before a test starts: user-defined
// variables and the __P / __property functions (properties from -J). Other
// references stay as written: CSV columns are substituted per request by the
// load generator, and functions it cannot evaluate are reported.
type expander struct {
	props map[string]string
	vars  map[string]string
	keep  map[string]bool // names left for the generator (CSV columns)
	// funcs collects the functions left unevaluated, as written.
	funcs []string
}

// expand resolves s.
func (x *expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := closing(s, i+2)
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(x.ref(s[i:end+1], s[i+2:end]))
		s = s[end+1:]
	}
}

// closing finds the } that closes a ${ whose content starts at from, with
// nested ${...} inside (e.g. ${__P(host,${default})}).
func closing(s string, from int) int {
	depth := 0
	for j := from; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

func (x *expander) ref(whole, inner string) string {
	if !strings.HasPrefix(inner, "__") {
		if x.keep[inner] {
			return whole
		}
		if v, ok := x.vars[inner]; ok {
			return v
		}
		return whole // undefined: JMeter sends the reference as written
	}
	name, args, ok := strings.Cut(inner[2:], "(")
	if ok {
		args = strings.TrimSuffix(args, ")")
	}
	switch name {
	case "P", "property":
		a := splitArgs(args)
		for i := range a {
			a[i] = x.expand(a[i])
		}
		key := strings.TrimSpace(first(a, 0))
		if v, ok := x.props[key]; ok {
			return v
		}
		if name == "P" {
			if len(a) > 1 {
				return a[1]
			}
			return "1" // JMeter's default for __P
		}
		if len(a) > 2 {
			return a[2]
		}
		return key
	}
	x.funcs = append(x.funcs, whole)
	return whole
}

// splitArgs splits function arguments at commas not escaped with \ and not
// inside a nested ${...}.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == ',':
			cur.WriteByte(',')
			i++
			continue
		case c == '{':
			depth++
		case c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	return append(out, cur.String())
}

func first(a []string, i int) string {
	if i < len(a) {
		return a[i]
	}
	return ""
}
