package batch

import (
	"testing"
	"time"
)

// TestPolicyBoundaries checks the flush policy at the boundary of each
// option: zero takes the default, a count of 1 flushes every record, and
// a negative interval starts no timer (by count and Flush only).
func TestPolicyBoundaries(t *testing.T) {
	for _, tt := range []struct {
		p       Policy
		want    Policy
		flushAt int  // the record whose Add flushes
		timer   bool // whether the first record starts the timer
	}{
		{Policy{}, Policy{Records: 64, Interval: 100 * time.Millisecond}, 64, true},
		{Policy{Records: -3}, Policy{Records: 64, Interval: 100 * time.Millisecond}, 64, true},
		{Policy{Records: 1}, Policy{Records: 1, Interval: 100 * time.Millisecond}, 1, false},
		{Policy{Records: 3, Interval: -1}, Policy{Records: 3, Interval: -1}, 3, false},
		{Policy{Records: 3, Interval: time.Hour, Sync: true}, Policy{Records: 3, Interval: time.Hour, Sync: true}, 3, true},
	} {
		var b Batcher
		flushes := 0
		b.Init(tt.p, func() error { flushes++; return nil })
		if b.policy != tt.want {
			t.Errorf("Init(%+v): policy %+v, want %+v", tt.p, b.policy, tt.want)
		}
		b.Lock()
		for i := 1; i <= tt.flushAt; i++ {
			if err := b.Add(1); err != nil {
				t.Fatal(err)
			}
			if i == 1 && (b.timer != nil) != tt.timer {
				t.Errorf("%+v: timer after the first record %v, want %v", tt.p, b.timer != nil, tt.timer)
			}
			if want := i / tt.flushAt; flushes != want {
				t.Errorf("%+v: %d flushes after %d records, want %d", tt.p, flushes, i, want)
			}
		}
		if b.timer != nil {
			b.timer.Stop()
		}
		b.Unlock()
	}
}
