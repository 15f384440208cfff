package threaddump

// JDK 21+ `jcmd <pid> Thread.dump_to_file -format=json <file>`: every thread,
// virtual ones included, grouped by container. Numbers are JSON strings; lock
// objects are Class@identityHash (JDK 25+; JDK 21 has no state or locks).
//
//	{"threadDump": {"processId": "18060", "time": "2026-11-21T23:57:16.016Z", "runtimeVersion": "25.0.3+9-LTS",
//	  "threadContainers": [{"container": "<root>", "parent": null, "owner": null,
//	    "threads": [{"tid": "3", "name": "main", "state": "TIMED_WAITING",
//	      "stack": ["java.base\/java.lang.Thread.sleepNanos0(Native Method)", "Contention.main(Contention.java:59)"]}],
//	    "threadCount": "9"}]}}

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tuneloop/tuneloop/internal/finding"
	"io"
	"strconv"
	"strings"
)

// jsonNum accepts "12" and 12: the JDK writes numbers as strings.
type jsonNum int64

func (n *jsonNum) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("number %q: %w", s, err)
	}
	*n = jsonNum(v)
	return nil
}

type jsonThread struct {
	Tid         jsonNum  `json:"tid"`
	Name        string   `json:"name"`
	State       string   `json:"state"`
	Virtual     bool     `json:"virtual"`
	Carrier     jsonNum  `json:"carrier"`
	Stack       []string `json:"stack"`
	BlockedOn   string   `json:"blockedOn"`
	WaitingOn   string   `json:"waitingOn"`
	ParkBlocker *struct {
		Object string  `json:"object"`
		Owner  jsonNum `json:"owner"`
	} `json:"parkBlocker"`
	MonitorsOwned []struct {
		Depth int      `json:"depth"`
		Locks []string `json:"locks"`
	} `json:"monitorsOwned"`
}

// maxJSONThreads bounds the threads one JSON dump keeps (as javacores').
const maxJSONThreads = maxJavacoreThreads

// readErr remembers a reader's error other than EOF: a JSON dump that
// stops there was not cut short, its reading failed.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// ParseJSON reads one JSON thread dump, streaming thread by thread. A dump
// cut short (a file cut, an input cut at --max-input) keeps the threads
// read whole before the cut and says where it was cut in Truncated; a
// reader's error does the same and is returned with the dump, as the text
// reader does. One cut before the first whole thread, or bad JSON, is
// refused.
func ParseJSON(r io.Reader) (*Dump, error) {
	re := &readErr{r: r}
	dec := json.NewDecoder(re)
	d := &Dump{Format: FormatJSON, Line: 1}
	fail := func(err error) (*Dump, error) {
		return nil, fmt.Errorf("%w: JSON thread dump: byte %d: %v", ErrNotThreadDump, dec.InputOffset(), err)
	}
	found, actuator := false, false
	err := walkObject(dec, func(key string) error {
		if key == "threads" {
			actuator = true // Spring Boot /actuator/threaddump: {"threads": [{"threadName": ...}]}
		}
		if key != "threadDump" {
			return skipValue(dec)
		}
		found = true
		return walkObject(dec, func(key string) error {
			switch key {
			case "processId":
				var n jsonNum
				err := dec.Decode(&n)
				d.PID = int64(n)
				return err
			case "time":
				return dec.Decode(&d.Time)
			case "runtimeVersion":
				var v string
				err := dec.Decode(&v)
				d.VM = "(" + v + ")"
				return err
			case "threadContainers":
				return walkArray(dec, func() error {
					return walkObject(dec, func(key string) error {
						if key != "threads" {
							return skipValue(dec)
						}
						return walkArray(dec, func() error {
							if len(d.Threads) >= maxJSONThreads {
								// A JDK 21+ dump lists every virtual thread:
								// millions are possible; past the bound they
								// are counted, not kept.
								d.Dropped++
								if d.DroppedWhy.EN == "" {
									d.DroppedWhy = finding.Tf(finding.T("more than %d threads", "线程多于 %d 个"), maxJSONThreads)
								}
								return skipValue(dec)
							}
							var jt jsonThread
							if err := dec.Decode(&jt); err != nil {
								return err
							}
							d.Threads = append(d.Threads, jt.thread())
							return nil
						})
					})
				})
			}
			return skipValue(dec)
		})
	})
	var readFail error
	if err != nil {
		cut := errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
		if !found || len(d.Threads) == 0 || (!cut && re.err == nil) {
			return fail(err)
		}
		last := d.Threads[len(d.Threads)-1].Name
		if re.err != nil {
			readFail = fmt.Errorf("%w: JSON thread dump: byte %d: %v", ErrNotThreadDump, dec.InputOffset(), re.err)
			d.Truncated = finding.Tf(finding.T("reading stopped at byte %d: %v: threads after %q are missing", "读取在第 %d 字节停止：%v：%q 之后的线程缺失"),
				dec.InputOffset(), finding.Localize(re.err, finding.EN), last)
		} else {
			d.Truncated = finding.Tf(finding.T("the JSON dump is cut short at byte %d: %d threads read whole, up to %q; the threads after the cut are missing",
				"JSON 转储在第 %d 字节处被截断：完整读取 %d 个线程，至 %q；截断之后的线程缺失"), dec.InputOffset(), len(d.Threads), last)
		}
	}
	if !found && actuator {
		return fail(errors.New(`looks like a Spring Boot actuator thread dump, which is not supported yet: take one with jcmd <pid> Thread.print -l`))
	}
	if !found {
		return fail(errors.New(`no "threadDump" object (want jcmd Thread.dump_to_file -format=json)`))
	}
	// A carrier's JSON entry does not say which virtual thread it carries; the VT does.
	byID := make(map[int64]*Thread, len(d.Threads))
	for _, t := range d.Threads {
		byID[t.ID] = t
	}
	for _, t := range d.Threads {
		if t.Carrier != 0 {
			if c := byID[t.Carrier]; c != nil {
				c.Carrying = t.ID
			}
		}
		// JDK 26 names the owner of a parked-on lock (parkBlocker.owner): the
		// JSON counterpart of "Locked ownable synchronizers".
		if t.parkOwner != 0 && len(t.Parking) > 0 {
			if o := byID[t.parkOwner]; o != nil && !containsKey(o.OwnableSynchronizers, t.Parking[0].Key()) {
				o.OwnableSynchronizers = append(o.OwnableSynchronizers, LockRef{Addr: t.Parking[0].Addr, Class: t.Parking[0].Class, Frame: -1})
			}
		}
	}
	return d, readFail
}

func (jt *jsonThread) thread() *Thread {
	t := &Thread{
		Name: jt.Name, ID: int64(jt.Tid), State: parseState(jt.State), Virtual: jt.Virtual,
		Carrier: int64(jt.Carrier), CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1,
	}
	t.Frames = make([]Frame, 0, len(jt.Stack))
	for _, s := range jt.Stack {
		t.Frames = append(t.Frames, parseJSONFrame(s))
	}
	if jt.BlockedOn != "" {
		t.WaitingToLock = append(t.WaitingToLock, identityRef(jt.BlockedOn, 0))
		t.StateDetail = "on object monitor"
	}
	if jt.WaitingOn != "" {
		t.WaitingOn = append(t.WaitingOn, identityRef(jt.WaitingOn, 0))
		t.StateDetail = "on object monitor"
	}
	if jt.ParkBlocker != nil && jt.ParkBlocker.Object != "" {
		t.Parking = append(t.Parking, identityRef(jt.ParkBlocker.Object, 0))
		t.StateDetail = "parking"
		t.parkOwner = int64(jt.ParkBlocker.Owner)
	}
	for _, m := range jt.MonitorsOwned {
		for _, l := range m.Locks {
			t.Locked = append(t.Locked, identityRef(l, m.Depth))
		}
	}
	return t
}

// identityRef reads "java.lang.Object@670e6b45".
func identityRef(s string, frame int) LockRef {
	ref := LockRef{Addr: s, Frame: frame}
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		ref.Class = s[:i]
	}
	return ref
}

// parseJSONFrame reads "java.base/java.lang.Thread.sleep(Thread.java:540)":
// the module comes first, separated by '/', unlike the text format.
func parseJSONFrame(s string) Frame {
	mod := ""
	paren := strings.IndexByte(s, '(')
	head := s
	if paren >= 0 {
		head = s[:paren]
	}
	// A '/' followed by 0x is a hidden class (Foo$$Lambda/0x...), not a module.
	if i := strings.IndexByte(head, '/'); i >= 0 && !strings.HasPrefix(head[i+1:], "0x") {
		mod = s[:i]
		s = strings.TrimLeft(s[i+1:], "/") // "app//com.Foo.run": loader, empty module
	}
	f := parseFrame(s)
	f.Module = mod
	return f
}

func walkObject(dec *json.Decoder, fn func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want an object, got %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("want a key, got %v", tok)
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

func walkArray(dec *json.Decoder, fn func() error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("want an array, got %v", tok)
	}
	for dec.More() {
		if err := fn(); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// Parse reads a thread dump file of any supported format: the JSON dump when
// the first non-blank byte is '{', else HotSpot text. name is used in errors.
func Parse(name string, r io.Reader) ([]*Dump, error) {
	var ds []*Dump
	err := ParseFunc(name, r, func(d *Dump) error { ds = append(ds, d); return nil })
	return ds, err
}

// ParseFunc is Parse calling fn with each dump as soon as it ends (a long
// log of many dumps in flat memory); an error from fn stops it and is
// returned as it is.
func ParseFunc(name string, r io.Reader, fn func(*Dump) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first := byte(0)
	for i := 0; ; i++ {
		b, err := br.Peek(i + 1)
		if err != nil || i >= 4096 {
			break
		}
		if c := b[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != 0xEF && c != 0xBB && c != 0xBF {
			first = c
			break
		}
	}
	if first == '{' {
		d, err := ParseJSON(br)
		if d == nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(d.Threads) == 0 {
			return fmt.Errorf("%s: %w: JSON thread dump with no threads", name, ErrNotThreadDump)
		}
		d.Source = name
		if ferr := fn(d); ferr != nil {
			return ferr
		}
		if err != nil { // a read error: the threads before it were kept
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	var fnErr error
	err := ParseTextFunc(br, func(d *Dump) error {
		d.Source = name
		fnErr = fn(d)
		return fnErr
	})
	if err != nil && fnErr == nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}
