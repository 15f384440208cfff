//go:build race

package sample

// raceEnabled: the race detector multiplies CPU and memory, so budgets are
// not checked under it.
const raceEnabled = true
