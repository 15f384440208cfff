package threaddump

// IdleJudge says whether threads seen outside a dump (a JFR event's thread
// and stack) wait for work, by the same rules a dump's analysis uses. Not
// safe for concurrent use: it caches what it learnt of each method.
type IdleJudge struct{ m *matcher }

// NewIdleJudge returns a judge with an empty cache.
func NewIdleJudge() *IdleJudge { return &IdleJudge{m: newMatcher()} }

// Idle: a thread named name in state s with stack methods (leaf first) is
// a pool or loop thread waiting for its next task.
func (j *IdleJudge) Idle(name string, s State, methods []string) bool {
	t := &Thread{Name: name, State: s, Frames: make([]Frame, len(methods))}
	for i, m := range methods {
		t.Frames[i] = Frame{Method: m}
	}
	return j.m.isIdle(t)
}
