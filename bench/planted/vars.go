package planted

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// varKind is a state variable a generated system may expose.
type varKind uint8

const (
	varID      varKind = iota // the node's own id
	varRole                   // leader, follower, learner or candidate
	varTerm                   // election term: a monotone counter
	varLead                   // the leader the node follows, "" when none
	varCommit                 // commit index
	varApplied                // applied index
	varLast                   // index of the last log entry
	varLog                    // the last few log entries, {index, term}
	varMembers                // the membership as the node knows it
	varConfig                 // version of that membership: a counter
	varAcked                  // a leader's caught-up followers, a candidate's voters
	varSent                   // messages sent: a counter
	varRecv                   // messages received: a counter
	numVarKinds
)

// category is the semantic category of a variable; a system has
// variables of at least four.
type category uint8

const (
	catCounter category = iota
	catIndex
	catID
	catEnum
	catSet
	catList
)

// varInfo describes a variable kind: its category, its semantic type (N,
// T, I, C or V, which the system names, or a container of them) and the
// names a system may give it, grouped here by category.
var varInfo = [numVarKinds]struct {
	cat        category
	typ, names string
}{
	varTerm: {catCounter, "T", "term epoch ballot"}, varConfig: {catCounter, "V", "config conf_version cfg"},
	varSent: {catCounter, "C", "sent msgs_out tx"}, varRecv: {catCounter, "C", "recv msgs_in rx"},
	varCommit:  {catIndex, "I", "commit commit_index committed"},
	varApplied: {catIndex, "I", "applied applied_index executed"}, varLast: {catIndex, "I", "last last_index log_end"},
	varID: {catID, "N", "id self name"}, varLead: {catID, "N", "lead leader primary"},
	varRole:    {catEnum, "", "role state mode"},
	varMembers: {catSet, "set<N>", "members membership peers"},
	varLog:     {catList, "list<Entry>", "log entries tail"}, varAcked: {catList, "list<N>", "acked caught_up acks"},
}

// Names of the semantic types, and of the roles, a system picks from.
var (
	typeNames = map[string][]string{
		"N": {"NodeID", "Addr", "Host"},
		"T": {"Term", "Epoch", "Ballot"},
		"I": {"Index", "Seq", "Offset"},
		"C": {"Count", "Counter", "Total"},
		"V": {"Version", "ConfID", "Generation"},
	}
	roleNames = [][4]string{
		{"leader", "follower", "learner", "candidate"},
		{"primary", "backup", "observer", "candidate"},
		{"leader", "replica", "witness", "contender"},
	}
)

// entry is a log entry.
type entry struct{ index, term int64 }

// view is a node's state as the trace shows it.
type view struct {
	id                                  string
	role                                role
	term, commit, applied, last, config int64
	sent, recv                          int64
	lead                                string
	log                                 []entry
	members, acked                      []string
}

// design is what a system is made of: which variables it has and what
// they, their types and its roles are called.
type design struct {
	has      [numVarKinds]bool
	forbid   [numVarKinds]bool
	name     [numVarKinds]string
	types    map[string]string // T, I, … → the system's name
	roles    [4]string
	window   int  // log entries shown
	lean     bool // a planted property needs a small pool: few variables, one index, no iterators
	iterator bool // a planted property has an iterator
	learners bool // a planted property needs learners
	style    int  // styleAny, stylePartition or styleCrash
}

// Election styles a template may need.
const (
	styleAny = iota
	stylePartition
	styleCrash
)

// newDesign names everything; which variables the system has is decided
// later.
func newDesign(rng *rand.Rand) *design {
	d := &design{types: map[string]string{}, roles: roleNames[rng.IntN(len(roleNames))], window: 2 + rng.IntN(2)}
	for k := range numVarKinds {
		names := strings.Fields(varInfo[k].names)
		d.name[k] = names[rng.IntN(len(names))]
	}
	for _, k := range slices.Sorted(maps.Keys(typeNames)) {
		d.types[k] = typeNames[k][rng.IntN(len(typeNames[k]))]
	}
	return d
}

// vars returns the variables of the system, in spec order.
func (d *design) vars() []varKind {
	var vs []varKind
	for k := range numVarKinds {
		if d.has[k] {
			vs = append(vs, k)
		}
	}
	return vs
}

// categories counts the semantic categories of the system's variables.
func (d *design) categories() int {
	var seen [catList + 1]bool
	n := 0
	for _, k := range d.vars() {
		if c := varInfo[k].cat; !seen[c] {
			seen[c], n = true, n+1
		}
	}
	return n
}

// semType returns the semantic type of variable k as the spec writes it.
func (d *design) semType(k varKind, learners bool) string {
	if k == varRole {
		vals := []string{d.roles[roleLeader], d.roles[roleFollower], d.roles[roleCandidate]}
		if learners {
			vals = append(vals, d.roles[roleLearner])
		}
		return "{enum: [" + strings.Join(vals, ", ") + "]}"
	}
	t := varInfo[k].typ
	if name, ok := d.types[t]; ok {
		return name
	}
	return `"` + strings.ReplaceAll(t, "N", d.types["N"]) + `"` // list<N>, set<N> or list<Entry>
}

// arrowType returns the trace column type of variable k.
func arrowType(k varKind) arrow.DataType {
	switch k {
	case varID, varRole, varLead:
		return arrow.BinaryTypes.String
	case varLog:
		return arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "index", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "term", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))
	case varMembers, varAcked:
		return arrow.ListOf(arrow.BinaryTypes.String)
	}
	return arrow.PrimitiveTypes.Int64
}

// value returns variable k of v in the trace representation.
func (d *design) value(k varKind, v *view) any {
	switch k {
	case varID:
		return v.id
	case varRole:
		return d.roles[v.role]
	case varTerm:
		return v.term
	case varLead:
		return v.lead
	case varCommit:
		return v.commit
	case varApplied:
		return v.applied
	case varLast:
		return v.last
	case varLog:
		l := make([]any, len(v.log))
		for i, e := range v.log {
			l[i] = map[string]any{"index": e.index, "term": e.term}
		}
		return l
	case varMembers:
		return strs(v.members)
	case varConfig:
		return v.config
	case varAcked:
		return strs(v.acked)
	case varSent:
		return v.sent
	case varRecv:
		return v.recv
	}
	panic(fmt.Sprintf("planted: no variable kind %d", k))
}

func strs(ss []string) []any {
	l := make([]any, len(ss))
	for i, s := range ss {
		l[i] = s
	}
	return l
}

// spec returns the spec of the system: its variables and types, the
// predicates, and generation settings under which every planted property
// can be generated.
func (d *design) spec(system string, learners bool, g generateSettings) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# A system of augur bench quality: a replicated log with leader election,\n")
	fmt.Fprintf(&b, "# membership changes and crashes (package bench/planted).\n")
	fmt.Fprintf(&b, "system: %s\ntypes:\n", system)
	// The types the variables use: the log's entries use T and I.
	used := map[string]bool{}
	for _, k := range d.vars() {
		t := varInfo[k].typ
		if i := strings.IndexByte(t, '<'); i >= 0 {
			t = t[i+1 : len(t)-1] // the element type of a container
		}
		used[t] = true
	}
	if used["Entry"] {
		used["T"], used["I"] = true, true
	}
	for _, short := range []string{"N", "T", "I", "C", "V"} {
		repr := "int64"
		if short == "N" {
			repr = "string"
		}
		if used[short] {
			fmt.Fprintf(&b, "  %s: %s\n", d.types[short], repr)
		}
	}
	if used["Entry"] {
		fmt.Fprintf(&b, "  Entry: \"{index: %s, term: %s}\"\n", d.types["I"], d.types["T"])
	}
	b.WriteString("variables:\n")
	for _, k := range d.vars() {
		fmt.Fprintf(&b, "  %s: %s\n", d.name[k], d.semType(k, learners))
	}
	if d.has[varLog] {
		b.WriteString("predicates:\n")
		b.WriteString("  - name: ordered       # indices strictly increase\n    params: [{l: \"list<Entry>\"}]\n    expr: \"all(1..len(l)-1, {l[# - 1].index < l[#].index})\"\n")
		b.WriteString("  - name: monotone      # terms never decrease\n    params: [{l: \"list<Entry>\"}]\n    expr: \"all(1..len(l)-1, {l[# - 1].term <= l[#].term})\"\n")
	}
	var iterate []string
	for _, k := range g.iterate {
		iterate = append(iterate, d.name[k])
	}
	fmt.Fprintf(&b, "generate:\n  max_nodes: 2\n  max_literals: %d\n  max_per_class: %d   # no cap: every planted property is in the pool\n  iterate: [%s]\n  constants: {max_distinct: 2}\n",
		g.maxLiterals, noCap, strings.Join(iterate, ", "))
	b.WriteString("filter: {hold_ratio: 0.95, every: 500}\nreport: {size: 10, min_support: 30}\n")
	return b.String()
}

// generateSettings are the generate section of a system's spec.
type generateSettings struct {
	maxLiterals int
	iterate     []varKind
}

// noCap is the max_per_class of every spec: no class is capped.
const noCap = 1_000_000

// views turns the history of a run into what the trace shows, sharing
// one view between the steps where a node's state did not change.
func (d *design) views(s *sim, names []string) [][]*view {
	cache := map[*state]*view{}
	out := make([][]*view, len(s.hist))
	for t, row := range s.hist {
		out[t] = make([]*view, len(row))
		for i, st := range row {
			if st == nil {
				continue
			}
			v, ok := cache[st]
			if !ok {
				v = d.view(s, names, i, st)
				cache[st] = v
			}
			out[t][i] = v
		}
	}
	return out
}

func (d *design) view(s *sim, names []string, i int, st *state) *view {
	v := &view{
		id: names[i], role: st.role, term: st.term, commit: st.commit, applied: st.applied, last: st.last,
		config: st.config, sent: st.sent, recv: st.recv,
	}
	if st.lead >= 0 {
		v.lead = names[st.lead]
	}
	base := st.last - int64(len(st.extra))
	for x := max(1, st.last-int64(d.window)+1); x <= st.last; x++ {
		if x <= base {
			v.log = append(v.log, entry{x, s.log[x-1]})
		} else {
			v.log = append(v.log, entry{x, st.extra[x-base-1]})
		}
	}
	v.members = nameList(names, st.members)
	v.acked = nameList(names, st.acked)
	return v
}

// nameList returns the names of nodes, sorted.
func nameList(names []string, nodes []int) []string {
	l := make([]string, len(nodes))
	for i, n := range nodes {
		l[i] = names[n]
	}
	slices.Sort(l)
	return l
}
