package testbeds

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseFaults(t *testing.T) {
	d := DefaultFaults()
	f, err := ParseFaults(d.String(), Faults{})
	if err != nil || f != d {
		t.Errorf("ParseFaults(%q) = %+v, %v; want %+v", d, f, err, d)
	}
	f, err = ParseFaults("drop=0.5,down=7", d)
	if err != nil || f.Drop != 0.5 || f.Down != 7 || f.Crash != d.Crash {
		t.Errorf("ParseFaults(drop=0.5,down=7) = %+v, %v", f, err)
	}
	if f, err := ParseFaults("none", d); err != nil || f != (Faults{}) {
		t.Errorf("ParseFaults(none) = %+v, %v", f, err)
	}
	for _, bad := range []string{"drop", "drop=2", "bogus=0.1", "down=-1",
		"maxdelay=9223372036854775807", "maxdelay=86400001", "down=9223372036854775807"} {
		if _, err := ParseFaults(bad, d); err == nil {
			t.Errorf("ParseFaults(%q) succeeded", bad)
		}
	}
}

// TestWithDefaults checks each field of Config at its boundary: zero
// takes the default, and none is said explicitly (NoFaults, NoReset,
// ResetAtViolation); the command line of a run says the count
// --reset-after takes.
func TestWithDefaults(t *testing.T) {
	base := Faults{Drop: 0.1}
	for _, tt := range []struct {
		name    string
		cfg     Config
		want    Config
		reset   string // --reset-after in Command
		wantErr bool
	}{
		{name: "zero", cfg: Config{}, want: Config{Nodes: 5, Steps: DefaultSteps, Faults: base, ResetAfter: DefaultResetAfter}, reset: "30"},
		{name: "one each", cfg: Config{Nodes: 1, Steps: 1, ResetAfter: 1, Faults: Faults{Dup: 0.5}}, want: Config{Nodes: 1, Steps: 1, Faults: Faults{Dup: 0.5}, ResetAfter: 1}, reset: "1"},
		{name: "no faults", cfg: Config{NoFaults: true}, want: Config{Nodes: 5, Steps: DefaultSteps, NoFaults: true, ResetAfter: DefaultResetAfter}, reset: "30"},
		{name: "never reset", cfg: Config{ResetAfter: NoReset}, want: Config{Nodes: 5, Steps: DefaultSteps, Faults: base, ResetAfter: NoReset}, reset: "-1"},
		{name: "reset at violation", cfg: Config{ResetAfter: ResetAtViolation}, want: Config{Nodes: 5, Steps: DefaultSteps, Faults: base, ResetAfter: ResetAtViolation}, reset: "0"},
		{name: "faults and no faults", cfg: Config{NoFaults: true, Faults: base}, wantErr: true},
		{name: "most nodes", cfg: Config{Nodes: MaxNodes}, want: Config{Nodes: MaxNodes, Steps: DefaultSteps, Faults: base, ResetAfter: DefaultResetAfter}, reset: "30"},
		{name: "too many nodes", cfg: Config{Nodes: MaxNodes + 1}, wantErr: true},
		{name: "negative nodes", cfg: Config{Nodes: -1}, wantErr: true},
		{name: "negative steps", cfg: Config{Steps: -1}, wantErr: true},
		{name: "reset below the explicit values", cfg: Config{ResetAfter: ResetAtViolation - 1}, wantErr: true},
	} {
		got, err := tt.cfg.WithDefaults(5, base)
		if tt.wantErr {
			if err == nil {
				t.Errorf("%s: WithDefaults(%+v) = %+v, want an error", tt.name, tt.cfg, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: WithDefaults(%+v) = %+v, %v; want %+v", tt.name, tt.cfg, got, err, tt.want)
		}
		if cmd := got.Command("x"); !strings.Contains(cmd, " --reset-after "+tt.reset+" ") && !strings.HasSuffix(cmd, " --reset-after "+tt.reset) {
			t.Errorf("%s: Command = %q, want --reset-after %s", tt.name, cmd, tt.reset)
		}
	}
}

// rejoiner is a Rejoiner whose node n is rejoining when rejoining[n].
type rejoiner []bool

func (r rejoiner) Rejoining(n int) bool { return r[n] }

// TestSteady checks that a snapshot is steady only when no message is in
// flight and no fault is in force: a partition or a down node drops the
// messages a real network would keep in flight, and a restarted node that
// has yet to rejoin answers no more than a down one.
func TestSteady(t *testing.T) {
	for _, tt := range []struct {
		name     string
		inflight int
		split    bool
		live     []bool
		sys      any
		want     bool
	}{
		{"quiet", 0, false, []bool{true, true, true}, nil, true},
		{"message in flight", 1, false, []bool{true, true, true}, nil, false},
		{"split", 0, true, []bool{true, true, true}, nil, false},
		{"node down", 0, false, []bool{true, false, true}, nil, false},
		{"all joined", 0, false, []bool{true, true, true}, rejoiner{false, false, false}, true},
		{"node rejoining", 0, false, []bool{true, true, true}, rejoiner{false, true, false}, false},
	} {
		s := &Sim{inflight: tt.inflight, split: tt.split, live: tt.live}
		if got := s.steady(tt.sys); got != tt.want {
			t.Errorf("%s: steady %v, want %v", tt.name, got, tt.want)
		}
	}
}
