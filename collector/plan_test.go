package collector

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

type role int

func (r role) String() string { return [...]string{"follower", "candidate", "leader"}[r] }

type entry struct {
	Term  uint64 `augur:"term"`
	Cmd   string `augur:"cmd"`
	local int    // unexported: left out
}

type Meta struct {
	Epoch int32 `augur:"epoch"`
}

type richState struct {
	Meta                      // promoted: epoch
	Term     uint64           `augur:"term"`
	Role     role             `augur:"role,string"`
	Applied  int              `augur:"applied"`
	Small    uint16           `augur:"small"`
	Load     float32          `augur:"load"`
	Up       bool             `augur:"up"`
	Log      []entry          `augur:"log"`
	Peers    [2]string        `augur:"peers"`
	Match    map[uint64]int64 `augur:"match"`
	Labels   map[string]bool  `augur:"labels"`
	Lead     *string          `augur:"lead"`
	Last     *entry           `augur:"last"`
	Hash     [4]byte          `augur:"hash"`
	Raw      []byte           `augur:"raw"`
	Since    time.Time        `augur:"since"`
	Never    time.Time        `augur:"never"`
	Skipped  chan int         `augur:"-"`
	Untagged string
	secret   string
}

func newRichState() *richState {
	lead := "n2"
	return &richState{
		Meta:    Meta{Epoch: 3},
		Term:    7,
		Role:    2,
		Applied: -1,
		Small:   65535,
		Load:    0.5,
		Up:      true,
		Log:     []entry{{Term: 1, Cmd: "x=\"1\"\n"}, {Term: 7, Cmd: "bad\xffutf8"}},
		Peers:   [2]string{"n2", "n3"},
		Match:   map[uint64]int64{10: 5, 2: 4},
		Labels:  nil,
		Lead:    &lead,
		Hash:    [4]byte{0xde, 0xad, 0xbe, 0xef},
		Raw:     []byte{1, 2},
		Since:   time.Unix(5, 6),
		secret:  "s",
	}
}

func TestExposeTypes(t *testing.T) {
	v, p, err := stateValue(newRichState())
	if err != nil {
		t.Fatal(err)
	}
	const wantSchema = "epoch:int64 term:uint64 role:utf8 applied:int64 small:int64 load:float64 up:bool " +
		"log:list<struct<term:uint64 cmd:utf8>> peers:list<utf8> match:map<utf8,int64> labels:map<utf8,bool> " +
		"lead:utf8 last:struct<term:uint64 cmd:utf8> hash:utf8 raw:utf8 since:int64 never:int64 Untagged:utf8"
	var schema trace.Schema
	for _, c := range p.schema {
		schema = append(schema, trace.Column{Name: c.Name, Type: trace.ArrowType(c.Type)})
	}
	if got := tracetest.SchemaString(schema); got != wantSchema {
		t.Errorf("schema\n%s\nwant\n%s", got, wantSchema)
	}
	st := State{p, v}
	const wantValues = `[3 7 leader -1 65535 0.5 true [map[cmd:x="1"` + "\n" + ` term:1] map[cmd:bad` + "\uFFFD" + `utf8 term:7]] [n2 n3] map[10:5 2:4] map[] n2 <nil> deadbeef 0102 5000000006 <nil> ]`
	if got := fmt.Sprint(st.Values()); got != wantValues {
		t.Errorf("values\n%s\nwant\n%s", got, wantValues)
	}
	const wantJSON = `{"epoch":3,"term":7,"role":"leader","applied":-1,"small":65535,"load":0.5,"up":true,` +
		`"log":[{"term":1,"cmd":"x=\"1\"\n"},{"term":7,"cmd":"bad` + "\uFFFD" + `utf8"}],"peers":["n2","n3"],` +
		`"match":{"10":5,"2":4},"labels":{},"lead":"n2","last":null,"hash":"deadbeef","raw":"0102",` +
		`"since":5000000006,"never":null,"Untagged":""}`
	b, err := st.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != wantJSON {
		t.Errorf("JSON\n%s\nwant\n%s", b, wantJSON)
	}
}

// JSON floats keep a fraction, so that JSONL reads them back as floats;
// NaN is an error naming the field.
func TestExposeFloats(t *testing.T) {
	type inner struct{ F float64 }
	type s struct {
		A  float64
		B  float64
		In inner
	}
	v, p, err := stateValue(s{A: 3, B: 1e21, In: inner{F: math.NaN()}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = State{p, v}.AppendJSON(nil)
	if err == nil || err.Error() != "collector: field In.F: NaN cannot be written as JSON" {
		t.Errorf("error = %v", err)
	}
	v, _, _ = stateValue(s{A: 3, B: 1e21, In: inner{F: -0.25}})
	b, err := State{p, v}.AppendJSON(nil)
	if string(b) != `{"A":3.0,"B":1e+21,"In":{"F":-0.25}}` || err != nil {
		t.Errorf("JSON %s, %v", b, err)
	}
	key := State{p, reflect.ValueOf(s{A: math.Inf(1)})}.AppendKey(nil)
	if string(key) != `{"A":"+Inf","B":0.0,"In":{"F":0.0}}` {
		t.Errorf("key %s", key)
	}
}

func TestExposeTypeErrors(t *testing.T) {
	type rec struct {
		Next *rec
	}
	type empty struct{ x int }
	type dup struct {
		A int `augur:"b"`
		B int `augur:"b"`
	}
	type embedded struct {
		Meta
		Epoch string `augur:"epoch"`
	}
	tests := []struct {
		state any
		want  string
	}{
		{42, "collector: cannot expose int: a state must be a struct or a pointer to one (its fields are the state variables)"},
		{time.Now(), "collector: cannot expose time.Time: a state must be a struct or a pointer to one (its fields are the state variables)"},
		{struct{ C chan int }{}, "collector: cannot expose struct { C chan int }: field C: unsupported type chan int"},
		{struct{ L []struct{ E error } }{}, "collector: cannot expose struct { L []struct { E error } }: field L[].E: interface type error: a state needs static types (use a concrete type, or tag the field augur:\"-\")"},
		{struct{ M map[float64]int }{}, "collector: cannot expose struct { M map[float64]int }: field M: map key type float64 is not a string or an integer"},
		{rec{}, "collector: cannot expose collector.rec: field Next: recursive type collector.rec"},
		{struct{ E empty }{}, "collector: cannot expose struct { E collector.empty }: field E: struct collector.empty has no exported fields"},
		{dup{}, `collector: cannot expose collector.dup: field B: name "b" is also the name of field A`},
		{embedded{}, `collector: cannot expose collector.embedded: field Epoch: name "epoch" is also the name of field Epoch`},
		{struct {
			TS int `augur:"ts"`
		}{}, `collector: cannot expose struct { TS int "augur:\"ts\"" }: field TS: name "ts" is reserved for the columns node, ts and @event (rename it with an augur:"name" tag)`},
		{struct {
			R int `augur:",string"`
		}{}, `collector: cannot expose struct { R int "augur:\",string\"" }: field R: tagged augur:",string" but int has no String method`},
		{struct {
			R int `augur:"r,omitempty"`
		}{}, `collector: cannot expose struct { R int "augur:\"r,omitempty\"" }: field R: unknown augur tag option "omitempty" (want "string")`},
		{struct{ P **int }{}, "collector: cannot expose struct { P **int }: field P: pointer to pointer **int is not supported"},
	}
	for _, tt := range tests {
		n := NewNode("n1", NewJSONLSink(&bytes.Buffer{}, SinkOptions{}))
		err := n.Expose(tt.state)
		var te *TypeError
		if !errors.As(err, &te) || err.Error() != tt.want {
			t.Errorf("Expose(%T):\n%v\nwant\n%s", tt.state, err, tt.want)
		}
		// The error is cached and returned again.
		if err2 := n.Expose(tt.state); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("second Expose(%T) = %v", tt.state, err2)
		}
	}
	var nilState *richState
	if err := NewNode("n1", NewJSONLSink(&bytes.Buffer{}, SinkOptions{})).Expose(nilState); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("Expose(nil pointer) = %v", err)
	}
}

func TestNodeRules(t *testing.T) {
	var buf bytes.Buffer
	n := NewNode("n1", NewJSONLSink(&buf, SinkOptions{}))
	if err := n.Expose(struct{ A int }{1}); err != nil {
		t.Fatal(err)
	}
	if err := n.Expose(struct{ B int }{1}); err == nil || !strings.Contains(err.Error(), "state type changed") {
		t.Errorf("Expose of another type = %v", err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Expose(struct{ A int }{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("Expose after Close = %v", err)
	}
	if err := n.Heartbeat(); !errors.Is(err, ErrClosed) {
		t.Errorf("Heartbeat after Close = %v", err)
	}
	// A nil node does nothing.
	var none *Node
	if none.Expose(struct{ A int }{1}) != nil || none.Heartbeat() != nil || none.Leave() != nil ||
		none.Flush() != nil || none.Close() != nil || none.Stamp() != 0 || none.Receive(5) != 0 || none.Name() != "" {
		t.Error("a nil *Node does something")
	}
}

func TestPlanCached(t *testing.T) {
	p1, err := planFor(reflect.TypeFor[richState]())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p2, _ := planFor(reflect.TypeFor[richState]()); p2 != p1 {
				t.Error("plan built twice")
			}
		}()
	}
	wg.Wait()
}

func TestClock(t *testing.T) {
	var c Clock
	if c.Tick() != 1 || c.Stamp() != 2 || c.Receive(10) != 11 || c.Receive(3) != 12 || c.Now() != 12 {
		t.Fatal("clock arithmetic")
	}
	// Concurrent ticks and receives: every result is distinct and the
	// clock ends past all of them.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[uint64]bool{}
	)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []uint64
			for i := range 1000 {
				if i%3 == 0 {
					local = append(local, c.Receive(uint64(g*1000+i)))
				} else {
					local = append(local, c.Tick())
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, ts := range local {
				if seen[ts] {
					t.Errorf("time %d returned twice", ts)
				}
				seen[ts] = true
			}
		}()
	}
	wg.Wait()
	for ts := range seen {
		if ts > c.Now() {
			t.Errorf("time %d after the clock's %d", ts, c.Now())
		}
	}
}
