// Package cliflag holds flag values that refuse a bad value when the
// flag is parsed, naming the flag: an int with a least value, a duration
// that is not negative.
package cliflag

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// intAtLeast is an int flag whose value may not be below min: a bad value
// is refused when the flag is parsed, naming the flag.
type intAtLeast struct {
	p   *int
	min int
}

func (v *intAtLeast) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if n < v.min {
		return fmt.Errorf("must be at least %d", v.min)
	}
	*v.p = n
	return nil
}

func (v *intAtLeast) String() string { return strconv.Itoa(*v.p) }
func (v *intAtLeast) Type() string   { return "int" }

// IntP defines an int flag, with a shorthand unless it is "", that
// may not be set below min.
func IntP(f *pflag.FlagSet, p *int, name, shorthand string, value, min int, usage string) {
	*p = value
	f.VarP(&intAtLeast{p, min}, name, shorthand, usage)
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
