package finding

import (
	"errors"
	"strings"
)

// Error is an error a user reads, in English and Chinese. Error() is the
// English text; Localize picks the language at the point it is printed.
type Error struct {
	Msg Text
	Err error // the cause, for errors.Is/As; its text is already in Msg
}

func (e *Error) Error() string { return e.Msg.EN }
func (e *Error) Unwrap() error { return e.Err }

// Localize returns the message in l.
func (e *Error) Localize(l Lang) string { return e.Msg.In(l) }

// Errorf formats both languages with the same arguments; an argument that
// is itself a bilingual error is said in each language. The last argument,
// when it is an error, becomes the cause (write it with %v, not %w).
func Errorf(t Text, args ...any) *Error {
	// A bilingual error argument is a Text to Tf.
	targs, copied := args, false
	for i, a := range args {
		if loc, ok := a.(Localizer); ok {
			if !copied {
				targs, copied = append([]any(nil), args...), true
			}
			targs[i] = Text{EN: loc.Error(), ZH: Localize(loc, ZH)}
		}
	}
	e := &Error{Msg: Tf(t, targs...)}
	if n := len(args); n > 0 {
		if err, ok := args[n-1].(error); ok {
			e.Err = err
		}
	}
	return e
}

// Localizer is an error that can say itself in either language.
type Localizer interface {
	error
	Localize(Lang) string
}

// Localize renders err for a reader of l: the outermost error in the chain
// that can say itself in l does, inside whatever context wraps it (a file
// name, a flag); everything else stays as Error() has it.
func Localize(err error, l Lang) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	var loc Localizer
	if l == EN || !errors.As(err, &loc) {
		return msg
	}
	en := loc.Error()
	if en == "" || !strings.Contains(msg, en) {
		return msg
	}
	return strings.Replace(msg, en, loc.Localize(l), 1)
}

var _ Localizer = (*Error)(nil)
