//go:build race

package compare

// raceOn: the race detector slows the simulated gate trials tenfold.
const raceOn = true
