package main

import (
	"fmt"
	"strconv"

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

// intFlagP defines an int flag, with a shorthand unless it is "", that
// may not be set below min.
func intFlagP(f *pflag.FlagSet, p *int, name, shorthand string, value, min int, usage string) {
	*p = value
	f.VarP(&intAtLeast{p, min}, name, shorthand, usage)
}
