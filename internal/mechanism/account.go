package mechanism

import (
	"slices"
	"sort"
)

// Account splits the threads' time by role and state, once per source
// (JFR's timed events and samples; the dumps' snapshots): the report draws
// a bar per role from it, and Name reads the request roles' largest share.
type Account struct {
	Books []*Book // JFR first when present
}

// Book is the account of one source.
type Book struct {
	Source Source
	// Request is the request roles' time (idle excluded), by state.
	Request map[State]float64
	// RequestTotal is its sum; Events how many slices it rests on.
	RequestTotal  float64
	RequestEvents int
	Roles         []*RoleTime // most time first
}

// RoleTime is one role's (and pool's) time by state.
type RoleTime struct {
	Role, Pool string
	Threads    int
	ByState    map[State]float64
	Total      float64 // idle excluded
	Idle       float64
}

// NewAccount sums the slices.
func NewAccount(ss []Slice) *Account {
	books := map[Source]*Book{}
	threads := map[Source]map[string]map[string]bool{} // source -> role/pool -> thread names
	for i := range ss {
		s := &ss[i]
		b := books[s.Source]
		if b == nil {
			b = &Book{Source: s.Source, Request: map[State]float64{}}
			books[s.Source] = b
			threads[s.Source] = map[string]map[string]bool{}
		}
		key := s.Role + "\x00" + s.Pool
		var rt *RoleTime
		for _, r := range b.Roles {
			if r.Role == s.Role && r.Pool == s.Pool {
				rt = r
				break
			}
		}
		if rt == nil {
			rt = &RoleTime{Role: s.Role, Pool: s.Pool, ByState: map[State]float64{}}
			b.Roles = append(b.Roles, rt)
			threads[s.Source][key] = map[string]bool{}
		}
		threads[s.Source][key][s.Thread] = true
		if s.State == Idle {
			rt.Idle += s.Weight
			continue
		}
		rt.ByState[s.State] += s.Weight
		rt.Total += s.Weight
		if slices.Contains(RequestRoles, s.Role) {
			b.Request[s.State] += s.Weight
			b.RequestTotal += s.Weight
			b.RequestEvents += max(s.Events, 1)
		}
	}
	a := &Account{}
	for _, src := range []Source{FromJFR, FromDumps} {
		b := books[src]
		if b == nil {
			continue
		}
		for _, r := range b.Roles {
			r.Threads = len(threads[src][r.Role+"\x00"+r.Pool])
		}
		sort.SliceStable(b.Roles, func(i, j int) bool { return b.Roles[i].Total > b.Roles[j].Total })
		a.Books = append(a.Books, b)
	}
	return a
}

// Book returns the account of one source (nil: none).
func (a *Account) Book(src Source) *Book {
	for _, b := range a.Books {
		if b.Source == src {
			return b
		}
	}
	return nil
}

// Largest is the request roles' largest state and its share (0-1).
func (b *Book) Largest() (State, float64) {
	var best State
	var v float64
	for _, s := range States {
		if b.Request[s] > v {
			best, v = s, b.Request[s]
		}
	}
	if b.RequestTotal == 0 {
		return "", 0
	}
	return best, v / b.RequestTotal
}

// Share is the request roles' share (0-1) in state s.
func (b *Book) Share(s State) float64 {
	if b.RequestTotal == 0 {
		return 0
	}
	return b.Request[s] / b.RequestTotal
}
