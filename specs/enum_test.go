package specs

import (
	"errors"
	"testing"
)

const enumSpec = `
types:
  Role: {enum: [primary, backup]}
variables:
  role: Role
  roles: list<Role>
  byNode: map<string, Role>
  member: {role: Role, id: string}
  name: string
  epoch: int64
`

func TestCheckEnum(t *testing.T) {
	spec, err := Parse("enum.yaml", []byte(enumSpec))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, v string
		x       any
		want    string // "" for no error
	}{
		{"value", "role", "backup", ""},
		{"null", "role", nil, ""},
		{"outside", "role", "boss", `role: "boss" is not a value of the enum Role (primary, backup)`},
		{"case matters", "role", "Primary", `role: "Primary" is not a value of the enum Role (primary, backup)`},
		{"list", "roles", []any{"primary", nil, "boss"}, `roles[2]: "boss" is not a value of the enum Role (primary, backup)`},
		{"map", "byNode", map[string]any{"n1": "primary", "n2": "bakup"}, `byNode["n2"]: "bakup" is not a value of the enum Role (primary, backup)`},
		{"struct", "member", map[string]any{"id": "x", "role": "boss"}, `member.role: "boss" is not a value of the enum Role (primary, backup)`},
		{"struct without the field", "member", map[string]any{"id": "x"}, ""},
		{"plain string", "name", "boss", ""},
		{"not an enum", "epoch", int64(3), ""},
		{"wrong shape", "roles", "boss", ""}, // left to the physical type checks
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := varNamed(t, spec, tt.v).CheckEnum(tt.x)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckEnum(%v) = %v, want nil", tt.x, err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("CheckEnum(%v) = %v, want %s", tt.x, err, tt.want)
			case tt.want != "" && !errors.As(err, new(*EnumError)):
				t.Errorf("CheckEnum(%v) = %T, want an *EnumError", tt.x, err)
			}
		})
	}
}

// varNamed returns the named variable of s.
func varNamed(t *testing.T, s *Spec, name string) *Var {
	t.Helper()
	for _, v := range s.Vars {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variable %s", name)
	return nil
}

func TestEnumCheck(t *testing.T) {
	spec, err := Parse("enum.yaml", []byte("variables:\n  node: string\n  epoch: int64\n  role: {enum: [a, b]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	check := spec.EnumCheck()
	if check == nil {
		t.Fatal("EnumCheck() = nil for a spec with an enum")
	}
	// Columns follow Schema, which leaves the variable node out.
	for _, tt := range []struct {
		col  int
		x    any
		want string
	}{
		{0, int64(1), ""},
		{1, "b", ""},
		{1, "c", `"c" is not a value of the enum role (a, b)`},
		{2, "c", ""}, // no such column
	} {
		err := check(tt.col, tt.x)
		if got := errString(err); got != tt.want {
			t.Errorf("check(%d, %v) = %q, want %q", tt.col, tt.x, got, tt.want)
		}
	}
	plain, err := Parse("plain.yaml", []byte("variables:\n  epoch: int64\n"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.EnumCheck() != nil {
		t.Error("EnumCheck() is not nil for a spec without enums")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
