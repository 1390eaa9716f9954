// Package cliflag holds flag values that refuse a bad value when the
// flag is parsed, naming the flag: an int with a least value (and a
// greatest), a duration that is not negative.
package cliflag

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// intIn is an int flag whose value may not be below min nor above max:
// a bad value is refused when the flag is parsed, naming the flag, and
// saying why for the maximum.
type intIn struct {
	p        *int
	min, max int
	why      string // why max bounds it
}

func (v *intIn) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if n < v.min {
		return fmt.Errorf("must be at least %d", v.min)
	}
	if n > v.max {
		return fmt.Errorf("must be at most %d (%s)", v.max, v.why)
	}
	*v.p = n
	return nil
}

func (v *intIn) String() string { return strconv.Itoa(*v.p) }
func (v *intIn) Type() string   { return "int" }

// IntP defines an int flag, with a shorthand unless it is "", that
// may not be set below min.
func IntP(f *pflag.FlagSet, p *int, name, shorthand string, value, min int, usage string) {
	*p = value
	f.VarP(&intIn{p: p, min: min, max: math.MaxInt}, name, shorthand, usage)
}

// IntIn defines an int flag that may not be set below min nor above max,
// for why: what a larger value would cost, say.
func IntIn(f *pflag.FlagSet, p *int, name string, value, min, max int, why, usage string) {
	*p = value
	f.Var(&intIn{p: p, min: min, max: max, why: why}, name, usage)
}

// Workers defines --workers, the goroutines evaluating snapshots: 0, the
// default, means one per CPU.
func Workers(f *pflag.FlagSet, p *int) {
	IntP(f, p, "workers", "", 0, 0, "goroutines evaluating snapshots (default: number of CPUs)")
}

// durationAtLeast is a duration flag that may not be negative, nor zero if
// positive is set: a bad value is refused when the flag is parsed.
type durationAtLeast struct {
	p        *time.Duration
	positive bool
}

func (v *durationAtLeast) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("not a duration (such as 1.5s or 200ms)")
	case d < 0:
		return fmt.Errorf("must not be negative")
	case d == 0 && v.positive:
		return fmt.Errorf("must be positive")
	}
	*v.p = d
	return nil
}

// String returns "0" for zero, as pflag's help hides such defaults.
func (v *durationAtLeast) String() string {
	if *v.p == 0 {
		return "0"
	}
	return v.p.String()
}
func (v *durationAtLeast) Type() string { return "duration" }

// Duration defines a duration flag that may not be negative, nor zero
// if positive is set.
func Duration(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, positive bool, usage string) {
	*p = value
	f.Var(&durationAtLeast{p, positive}, name, usage)
}
