package logconf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Limits on input: a logging configuration is a few kilobytes.
const (
	maxInput = 8 << 20
	maxDepth = 256
)

// ParseError is a configuration that could not be read, with where.
type ParseError struct {
	File string
	Line int
	Msg  string
	// ZH is Msg in Chinese, "" when only the English is known (an XML
	// decoder's own message).
	ZH string
}

// Localize says the error in l (finding.Localizer), with the file and line.
func (e *ParseError) Localize(l finding.Lang) string {
	if l != finding.ZH || e.ZH == "" {
		return e.Error()
	}
	c := *e
	c.Msg = e.ZH
	return c.Error()
}

func (e *ParseError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

type attr struct{ Name, Value string }

// node is a minimal DOM element with positions, enough to quote the file
// back in fixes.
type node struct {
	Prefix   string
	Name     string // local name
	Attrs    []attr
	Children []*node
	Text     string // character data directly inside, trimmed
	Line     int
	Start    int // offset of '<'
	TagEnd   int // offset after the start tag's '>'
	End      int // offset after the end tag
	TextLine int
}

// attr returns the attribute named name, case-insensitively.
func (n *node) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if strings.EqualFold(a.Name, name) {
			return a.Value, true
		}
	}
	return "", false
}

func (n *node) attrOr(name string) string { v, _ := n.attr(name); return v }

// child returns the first child element named name (case-insensitive).
func (n *node) child(name string) *node {
	for _, c := range n.Children {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// doc is a parsed XML document: the root element and the source.
type doc struct {
	Root      *node
	Src       []byte
	Directive string // <!DOCTYPE ...> text, if any
	lineStart []int
}

func (d *doc) lineOf(off int) int {
	return sort.SearchInts(d.lineStart, off+1)
}

func (d *doc) text(from, to int) string {
	if from < 0 || to > len(d.Src) || from > to {
		return ""
	}
	return string(d.Src[from:to])
}

// readAll reads r up to maxInput bytes.
func readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, &ParseError{Msg: err.Error()}
	}
	if len(b) > maxInput {
		return nil, &ParseError{Msg: fmt.Sprintf("larger than %d MiB: not a logging configuration", maxInput>>20), ZH: fmt.Sprintf("大于 %d MiB：不是日志配置", maxInput>>20)}
	}
	return b, nil
}

// parseXML builds the element tree of src. Errors carry the line.
func parseXML(src []byte) (*doc, error) {
	src = toUTF8(src)
	d := &doc{Src: src, lineStart: []int{0}}
	for i, c := range src {
		if c == '\n' {
			d.lineStart = append(d.lineStart, i+1)
		}
	}
	dec := xml.NewDecoder(bytes.NewReader(src))
	dec.Strict = true
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = charsetReader
	var stack []*node
	var text []*strings.Builder
	for {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := 0
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				line = se.Line
			} else {
				line, _ = dec.InputPos()
			}
			msg := err.Error()
			if se != nil {
				msg = "malformed XML: " + se.Msg
			}
			return nil, &ParseError{Line: line, Msg: msg}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, &ParseError{Line: d.lineOf(off), Msg: fmt.Sprintf("elements nested deeper than %d", maxDepth)}
			}
			n := &node{Prefix: t.Name.Space, Name: t.Name.Local, Line: d.lineOf(off), Start: off, TagEnd: int(dec.InputOffset())}
			for _, a := range t.Attr {
				n.Attrs = append(n.Attrs, attr{a.Name.Local, a.Value})
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if d.Root == nil {
				d.Root = n
			}
			stack = append(stack, n)
			text = append(text, &strings.Builder{})
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			n := stack[len(stack)-1]
			n.End = int(dec.InputOffset())
			n.Text = strings.TrimSpace(text[len(text)-1].String())
			stack, text = stack[:len(stack)-1], text[:len(text)-1]
		case xml.CharData:
			if len(text) > 0 {
				tb := text[len(text)-1]
				if tb.Len() == 0 && len(bytes.TrimSpace(t)) > 0 {
					stack[len(stack)-1].TextLine = d.lineOf(off + len(t) - len(bytes.TrimLeft(t, " \t\r\n")))
				}
				if tb.Len() < 1<<16 {
					tb.Write(t)
				}
			}
		case xml.Directive:
			if d.Root == nil && d.Directive == "" {
				d.Directive = string(t)
			}
		}
	}
	if d.Root == nil {
		return nil, &ParseError{Msg: "no XML element found", ZH: "没有找到 XML 元素"}
	}
	return d, nil
}

// charsetReader accepts any declared encoding: the source was already made
// UTF-8 by toUTF8, so offsets into it stay true.
func charsetReader(_ string, in io.Reader) (io.Reader, error) { return in, nil }

var encodingDecl = regexp.MustCompile(`^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']`)

// toUTF8 converts a Latin-1 family file to UTF-8 and replaces invalid UTF-8
// in anything else (GBK, GB18030, Big5): the ASCII structure of a
// configuration stays readable and only non-ASCII text is lost.
func toUTF8(src []byte) []byte {
	if utf8.Valid(src) {
		return src
	}
	if m := encodingDecl.FindSubmatch(src); m != nil {
		switch strings.ToLower(string(m[1])) {
		case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "windows-1252", "cp1252", "iso-8859-15":
			out := make([]byte, 0, len(src)+len(src)/8)
			for _, c := range src {
				out = utf8.AppendRune(out, rune(c))
			}
			return out
		}
	}
	return bytes.ToValidUTF8(src, []byte("\uFFFD"))
}

// startTag re-renders n's start tag with attributes set (replaced in place
// or appended), keeping the attribute order and the element name as written.
func startTag(n *node, set ...attr) string {
	return renderTag(qname(n), n.Attrs, set...)
}

func qname(n *node) string {
	if n.Prefix != "" && !strings.Contains(n.Prefix, "/") {
		return n.Prefix + ":" + n.Name
	}
	return n.Name
}

func renderTag(name string, attrs []attr, set ...attr) string {
	var b strings.Builder
	b.WriteString("<" + name)
	done := make([]bool, len(set))
	for _, a := range attrs {
		v := a.Value
		for i, s := range set {
			if strings.EqualFold(s.Name, a.Name) {
				v, done[i] = s.Value, true
			}
		}
		fmt.Fprintf(&b, " %s=\"%s\"", a.Name, xmlEscape(v))
	}
	for i, s := range set {
		if !done[i] {
			fmt.Fprintf(&b, " %s=\"%s\"", s.Name, xmlEscape(s.Value))
		}
	}
	b.WriteString(">")
	return b.String()
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// walk calls f on n and every element below it, depth first.
func (n *node) walk(f func(*node, int), depth int) {
	f(n, depth)
	for _, c := range n.Children {
		c.walk(f, depth+1)
	}
}

// block is the text of src[from:to] as a block: the indentation of its
// first line restored, then the common indentation removed.
func (d *doc) block(from, to int) string {
	t := d.text(from, to)
	if t == "" {
		return ""
	}
	ls := bytes.LastIndexByte(d.Src[:from], '\n') + 1
	if lead := d.Src[ls:from]; len(bytes.TrimLeft(lead, " \t")) == 0 {
		t = string(lead) + t
	}
	return dedent(t)
}

func dedent(t string) string {
	lines := strings.Split(t, "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 {
		return t
	}
	for i, l := range lines {
		if len(l) >= common && strings.TrimSpace(l[:common]) == "" {
			lines[i] = l[common:]
		} else {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// parseXMLWith reads r, parses it as XML and builds the configuration with
// from: the common front of the three XML formats.
func parseXMLWith(r io.Reader, from func(*doc) (*Config, error)) (*Config, error) {
	src, err := readAll(r)
	if err != nil {
		return nil, err
	}
	d, err := parseXML(src)
	if err != nil {
		return nil, err
	}
	return from(d)
}
