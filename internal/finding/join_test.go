package finding

import "testing"

// Join keeps each language on its own, in order; nothing joined is the zero Text.
func TestJoin(t *testing.T) {
	got := Join(T("Pauses 4", "停顿 4 次"), T(", max 20 ms", "，最长 20 ms"), Text{}, T(".", "。"))
	if got.EN != "Pauses 4, max 20 ms." || got.ZH != "停顿 4 次，最长 20 ms。" {
		t.Errorf("Join = %+v", got)
	}
	if !Join().IsZero() {
		t.Error("Join() is not zero")
	}
}
