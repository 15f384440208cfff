package logconf

import "strings"

// Route is one way events get from a logger to an appender.
type Route struct {
	// Logger is the logger whose appender reference starts the route.
	Logger *Logger
	// Ref is that reference.
	Ref Ref
	// Async is true when a queue (an async appender on the way, or a log4j2
	// AsyncLogger/AsyncRoot) separates the logging thread from the appender.
	Async bool
	// Via names the wrapper appenders passed through, outermost first.
	Via []string
}

// Routes returns, for every appender reached by some logger, the routes that
// reach it. Loggers at level OFF reach nothing. asyncLoggers makes every
// log4j2 logger asynchronous (AsyncLoggerContextSelector).
func (c *Config) Routes(asyncLoggers bool) map[*Appender][]Route {
	w := &walker{c: c, out: map[*Appender][]Route{}, seen: map[*Appender]bool{}, budget: maxRoutes, byName: map[string][]*Appender{}, children: map[string][]*Appender{}}
	for _, a := range c.Appenders {
		if a.Parent == "" {
			w.byName[a.Name] = append(w.byName[a.Name], a)
		} else {
			w.children[a.Parent] = append(w.children[a.Parent], a)
		}
	}
	for _, l := range c.Loggers {
		if strings.EqualFold(strings.TrimSpace(l.Level.Raw), "off") {
			continue
		}
		async := l.Async || (asyncLoggers && c.Kind.Library() == Log4j2)
		for _, ref := range l.Refs {
			w.ref(ref.Name, Route{Logger: l, Ref: ref, Async: async})
		}
	}
	return w.out
}

// maxRoutes bounds the work on a hostile file (wrappers referring to each
// other in a wide lattice).
const maxRoutes = 20000

type walker struct {
	c      *Config
	out    map[*Appender][]Route
	seen   map[*Appender]bool
	budget int
	// byName indexes top-level appenders; children the nested ones by parent.
	byName, children map[string][]*Appender
}

func (w *walker) ref(name string, r Route) {
	for _, a := range w.byName[name] {
		if !w.seen[a] {
			w.walk(a, r)
		}
	}
}

func (w *walker) walk(a *Appender, r Route) {
	if len(w.seen) > 64 || w.budget <= 0 {
		return
	}
	w.budget--
	w.seen[a] = true
	defer delete(w.seen, a)
	w.out[a] = append(w.out[a], r)
	next := r
	next.Via = append(append([]string(nil), r.Via...), a.Name)
	if a.Type == TypeAsync {
		next.Async = true
	}
	for _, ref := range a.Refs {
		w.ref(ref.Name, next)
	}
	for _, ch := range w.children[a.Name] {
		if !w.seen[ch] {
			w.walk(ch, next)
		}
	}
}

// Reached lists the appenders an event logged through l is written to:
// l's own references and, while additivity holds, its ancestors'.
func (c *Config) Reached(l *Logger, asyncLoggers bool) []*Appender {
	return c.reached(l, c.Routes(asyncLoggers))
}

func (c *Config) reached(l *Logger, routes map[*Appender][]Route) []*Appender {
	var out []*Appender
	have := map[*Appender]bool{}
	for cur, n := l, 0; cur != nil && n < 1000; n++ {
		for _, a := range c.Appenders {
			for _, r := range routes[a] {
				if r.Logger == cur && !have[a] {
					have[a] = true
					out = append(out, a)
				}
			}
		}
		if !cur.Additivity.Bool(true) {
			break
		}
		cur = c.parent(cur)
	}
	return out
}

// Unresolved lists appender references that name no appender in the file
// (defined in an <include>d file, or a typo).
func (c *Config) Unresolved() []Ref {
	var out []Ref
	check := func(refs []Ref) {
		for _, r := range refs {
			if c.Appender(r.Name) == nil {
				out = append(out, r)
			}
		}
	}
	for _, l := range c.Loggers {
		check(l.Refs)
	}
	for _, a := range c.Appenders {
		check(a.Refs)
	}
	return out
}
