// Package memtest measures what code allocates, for the tests that bound
// memory. The runtime counts the allocations of every goroutine, so a
// bound is checked on the fewest bytes of a few runs: those of another
// test or of the runtime that fall in one run are unlikely to fall in
// all.
package memtest

import (
	"math"
	"runtime"
)

// Allocated returns the bytes f allocates.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Least returns the fewest bytes f allocates in runs calls, each passed
// its index.
func Least(runs int, f func(run int)) uint64 {
	least := uint64(math.MaxUint64)
	for i := range runs {
		least = min(least, Allocated(func() { f(i) }))
	}
	return least
}
