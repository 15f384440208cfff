package cli

import (
	"fmt"
	"io"
)

// liveStatus is the one line of status a command redraws while it works:
// on a terminal only (a pipe, a file or --quiet get nothing).
type liveStatus struct {
	w  io.Writer
	on bool
}

// newLiveStatus is the status line on w when env is a terminal and the
// user did not ask for quiet.
func newLiveStatus(env *Env, w io.Writer, quiet bool) liveStatus {
	return liveStatus{w: w, on: env.Terminal && !quiet}
}

// show redraws the line.
func (s liveStatus) show(line string) {
	if s.on {
		fmt.Fprint(s.w, "\r\033[K"+line)
	}
}

// clear wipes the line before other output.
func (s liveStatus) clear() {
	if s.on {
		fmt.Fprint(s.w, "\r\033[K")
	}
}
