//go:build race

package specs

// raceEnabled reports whether the race detector is on. It makes sync.Pool
// drop items on purpose, so allocation counts are meaningless.
const raceEnabled = true
