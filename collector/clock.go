package collector

import "sync/atomic"

// A Clock is a Lamport clock. Its zero value reads 0 and is ready to use;
// it is safe for concurrent use and must not be copied after first use.
//
// Every event a node wants ordered advances the clock: [Clock.Tick] for a
// local event, [Clock.Stamp] for a message about to be sent (the result
// travels with the message) and [Clock.Receive] for a message received.
// [Node.Expose], [Node.Heartbeat] and [Node.Leave] tick the clock of their
// node themselves.
type Clock struct {
	t atomic.Uint64
}

// Now returns the current time without advancing it.
func (c *Clock) Now() uint64 { return c.t.Load() }

// Tick advances the clock for a local event and returns the new time.
func (c *Clock) Tick() uint64 { return c.t.Add(1) }

// Stamp advances the clock for a message about to be sent and returns the
// time to send with it.
func (c *Clock) Stamp() uint64 { return c.t.Add(1) }

// Receive merges the time ts carried by a received message: the clock
// becomes one past the larger of its own time and ts. It returns the new
// time.
func (c *Clock) Receive(ts uint64) uint64 {
	for {
		old := c.t.Load()
		next := max(old, ts) + 1
		if c.t.CompareAndSwap(old, next) {
			return next
		}
	}
}
