//go:build !race

package specs

const raceEnabled = false
