package memtest

import "testing"

var sink []byte

func TestAllocated(t *testing.T) {
	const size = 1 << 20
	if n := Allocated(func() { sink = make([]byte, size) }); n < size {
		t.Errorf("Allocated of a %d-byte slice = %d", size, n)
	}
	runs := 0
	if n := Least(3, func(run int) {
		runs++
		sink = make([]byte, size*(run+1))
	}); n < size || n >= 2*size || runs != 3 {
		t.Errorf("Least over slices of 1, 2 and 3 MiB = %d in %d runs, want about 1 MiB in 3", n, runs)
	}
}
