package loadgen

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Header is one request header, kept in the order given.
type Header struct {
	Name, Value string
}

// Request describes one kind of request a run sends. URL, header values and
// Body may contain ${name} references to the columns of Config.Vars.
type Request struct {
	Label   string // statistics key; defaults to METHOD + path
	Method  string // default GET, or POST when there is a body
	URL     string // absolute http:// or https:// URL
	Headers []Header
	Body    []byte
	Weight  int // relative frequency; default 1

	// Assertions: ExpectStatus lists the accepted codes (empty: any code
	// below 400, JMeter's default); ExpectBody must occur in the body.
	ExpectStatus []int
	ExpectBody   string
}

// target is one scheme://host:port a run connects to.
type target struct {
	addr       string // host:port to dial
	host       string // Host header and TLS server name
	serverName string
	tls        bool
}

// compiled is a Request turned into wire bytes or a template for them.
type compiled struct {
	label      string
	url        string
	target     int
	head       bool
	static     []byte // the whole request when it uses no variables
	reqLine    tmpl   // request line and headers, without Content-Length and the blank line
	body       tmpl
	sendLength bool // write Content-Length (a body, or a method that expects one)
	expStatus  []int
	expBody    []byte
	failMsg    string // JTL failureMessage for a failed body assertion
	statusMsg  string // and for an unexpected status
	index      int    // position in Config.Requests
	weight     int
}

// tmpl is text with ${var} holes: literal pieces interleaved with column
// indexes, rendered without allocation into a caller's buffer.
type tmpl struct {
	lits [][]byte
	vars []int // vars[i] follows lits[i]; len(vars) == len(lits)-1
	// lines: values are inserted in a request head, where a space would
	// break the request line and a line break would inject a header.
	lines bool
}

func (t *tmpl) hasVars() bool { return len(t.vars) > 0 }

func (t *tmpl) appendTo(dst []byte, row []string) []byte {
	inFirstLine := true
	for i, l := range t.lits {
		dst = append(dst, l...)
		if inFirstLine && bytes.IndexByte(l, '\n') >= 0 {
			inFirstLine = false
		}
		if i >= len(t.vars) || t.vars[i] >= len(row) {
			continue
		}
		v := row[t.vars[i]]
		switch {
		case !t.lines:
			dst = append(dst, v...)
		case inFirstLine:
			dst = appendTargetEscaped(dst, v)
		default:
			for j := 0; j < len(v); j++ {
				if c := v[j]; c == '\r' || c == '\n' {
					dst = append(dst, ' ')
				} else {
					dst = append(dst, c)
				}
			}
		}
	}
	return dst
}

// appendTargetEscaped percent-encodes what may not appear in a request
// target (RFC 9112 3.2), leaving URL syntax such as / ? & = alone, so CSV
// values with spaces or non-ASCII text make valid requests.
func appendTargetEscaped(dst []byte, v string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"#<>\\^`{|}", c) >= 0 {
			dst = append(dst, '%', hex[c>>4], hex[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// parseTmpl splits s at ${name} references; names must be columns.
func parseTmpl(s string, cols map[string]int) (tmpl, error) {
	var t tmpl
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		name := s[i+2 : i+j]
		col, ok := cols[name]
		if !ok {
			if cols == nil {
				// No variables file: leave the text alone.
				t.lits = append(t.lits, []byte(s[:i+j+1]))
				t.vars = append(t.vars, -1)
				s = s[i+j+1:]
				continue
			}
			return t, fmt.Errorf("variable ${%s} is not a column of the variables file", name)
		}
		t.lits = append(t.lits, []byte(s[:i]))
		t.vars = append(t.vars, col)
		s = s[i+j+1:]
	}
	t.lits = append(t.lits, []byte(s))
	// Merge the placeholders kept verbatim (-1) into their neighbours.
	var m tmpl
	cur := []byte(nil)
	for i, l := range t.lits {
		cur = append(cur, l...)
		if i < len(t.vars) {
			if t.vars[i] < 0 {
				continue
			}
			m.lits = append(m.lits, cur)
			m.vars = append(m.vars, t.vars[i])
			cur = nil
		}
	}
	m.lits = append(m.lits, cur)
	return m, nil
}

// compile validates r and pre-serialises it. targets collects the distinct
// hosts so each worker keeps one connection per host.
func compile(r Request, cols map[string]int, targets *[]target, keepAlive bool) (*compiled, error) {
	raw := r.URL
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	// Variables may sit in the URL; parse with them masked.
	u, err := url.Parse(maskVars(raw))
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %v", r.URL, err)
	}
	var isTLS bool
	switch u.Scheme {
	case "http":
	case "https":
		isTLS = true
	default:
		return nil, fmt.Errorf("bad URL %q: scheme %q is not http or https", r.URL, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("bad URL %q: no host", r.URL)
	}
	if auth, _, _ := strings.Cut(raw[strings.Index(raw, "://")+3:], "/"); strings.Contains(auth, "${") {
		return nil, fmt.Errorf("bad URL %q: variables are not allowed in the host", r.URL)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if isTLS {
			port = "443"
		}
	}
	t := target{addr: net.JoinHostPort(host, port), host: u.Host, serverName: host, tls: isTLS}
	ti := -1
	for i, x := range *targets {
		if x == t {
			ti = i
		}
	}
	if ti < 0 {
		*targets = append(*targets, t)
		ti = len(*targets) - 1
	}
	// The request target is everything after the authority, taken from the
	// raw text so ${vars} and the user's escaping survive.
	rest := raw[strings.Index(raw, "://")+3:]
	path := "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		path = rest[i:]
		if path[0] == '?' {
			path = "/" + path
		}
	}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = "GET"
		if len(r.Body) > 0 {
			method = "POST"
		}
	}
	if !validToken(method) {
		return nil, fmt.Errorf("bad method %q", r.Method)
	}
	label := r.Label
	if label == "" {
		label = method + " " + strings.SplitN(path, "?", 2)[0]
	}
	var head strings.Builder
	head.WriteString(method + " " + path + " HTTP/1.1\r\n")
	hasHost, hasUA, hasAccept := false, false, false
	for _, h := range r.Headers {
		if !validToken(h.Name) || strings.ContainsAny(h.Value, "\r\n") {
			return nil, fmt.Errorf("bad header %q", h.Name)
		}
		switch strings.ToLower(h.Name) {
		case "host":
			hasHost = true
		case "user-agent":
			hasUA = true
		case "accept":
			hasAccept = true
		case "content-length", "transfer-encoding", "connection":
			continue // the client owns framing and connection reuse
		}
		head.WriteString(h.Name + ": " + h.Value + "\r\n")
	}
	if !hasHost {
		head.WriteString("Host: " + t.host + "\r\n")
	}
	if !hasUA {
		head.WriteString("User-Agent: tuneloop\r\n")
	}
	if !hasAccept {
		head.WriteString("Accept: */*\r\n")
	}
	if !keepAlive {
		head.WriteString("Connection: close\r\n")
	}
	c := &compiled{label: label, url: raw, target: ti, head: method == "HEAD", weight: r.Weight,
		expStatus: r.ExpectStatus}
	if c.weight <= 0 {
		c.weight = 1
	}
	if len(r.ExpectStatus) > 0 {
		c.statusMsg = fmt.Sprintf("status not in %v", r.ExpectStatus)
	}
	if r.ExpectBody != "" {
		c.expBody = []byte(r.ExpectBody)
		c.failMsg = "body does not contain " + strconv.Quote(r.ExpectBody)
	}
	if c.reqLine, err = parseTmpl(head.String(), cols); err != nil {
		return nil, err
	}
	c.reqLine.lines = true
	if c.body, err = parseTmpl(string(r.Body), cols); err != nil {
		return nil, err
	}
	c.sendLength = len(r.Body) > 0 || method == "POST" || method == "PUT" || method == "PATCH"
	if !c.reqLine.hasVars() && !c.body.hasVars() {
		c.static = c.render(nil, nil, nil)
	}
	return c, nil
}

// render appends the wire form of the request; scratch holds the rendered
// body so Content-Length can precede it.
func (c *compiled) render(dst []byte, scratch *[]byte, row []string) []byte {
	if c.static != nil {
		return append(dst, c.static...)
	}
	var body []byte
	if scratch != nil {
		body = c.body.appendTo((*scratch)[:0], row)
		*scratch = body
	} else {
		body = c.body.appendTo(nil, row)
	}
	dst = c.reqLine.appendTo(dst, row)
	if c.sendLength {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(body)), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, body...)
}

// check applies the assertions; it returns the failure kind or kindNone.
func (c *compiled) check(status int, body []byte) ErrorKind {
	if len(c.expStatus) > 0 {
		ok := false
		for _, s := range c.expStatus {
			ok = ok || s == status
		}
		if !ok {
			return KindStatus
		}
	} else if status >= 400 {
		return KindStatus
	}
	if c.expBody != nil && !bytes.Contains(body, c.expBody) {
		return KindAssertion
	}
	return KindNone
}

func maskVars(s string) string {
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return s
		}
		s = s[:i] + "x" + s[i+j+1:]
	}
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
