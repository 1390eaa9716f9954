package spectrace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// maxEnum is the number of distinct values up to which Init declares a
// string column as an enum.
const maxEnum = 8

// maxEnumLen is the longest string Init takes as an enum value, in bytes,
// as generator.MaxConstantLen is the longest mined constant: each
// generated property holds an enum's values as x == c literals, so that
// one value of 15 MB made augur infer take 94 s and 1.7 GB.
const maxEnumLen = 256

// Init writes a starter spec for tr to w: one variable per column, typed
// with its physical type, except that strings whose values name nodes of
// the trace (columns, and fields and elements below them) share the type
// NodeID, other string columns with at most 8 distinct values become
// enums, and integers get semantic types from the values they share (see
// the rule in inittypes.go); and the generate, filter and report
// sections, with limits that give a first report quickly (two literals
// per disjunction), the lists of records as iterator domains (a record's
// fields compare with the node's variables only under an iterator, while
// a list of scalars has its membership literals without one) and
// constants mined only for two-valued variables, since the few values of
// a counter (the epochs of one run) make literals that do not carry over
// to another run.
// Columns that a spec cannot name (a name that is not an identifier or
// is reserved) are left out with a comment. The output parses, checks
// against tr and is deterministic. Init stops with the context's error,
// having written nothing, when ctx is done before it has read every
// state.
func Init(ctx context.Context, tr *trace.Trace, w io.Writer) error {
	typs := make([]string, len(tr.Schema)) // by column; "" for one left out
	whys := make([]error, len(tr.Schema))
	for i, c := range tr.Schema {
		typs[i], whys[i] = typeExpr(c.Type, c.Name, nil)
		if err := specs.CheckName(c.Name); err != nil {
			whys[i] = err
		}
		if len(c.Name) > maxNameLen {
			whys[i] = errLongName(c.Name)
		}
		if whys[i] != nil {
			typs[i] = ""
		}
	}
	leaves := newLeafScan(tr.Schema, func(i int) bool { return typs[i] != "" })
	enums, err := scanStates(ctx, tr, leaves)
	if err != nil {
		return fmt.Errorf("spec init: %w", err)
	}
	taken := map[string]bool{}
	ids := leaves.nodeIDs()
	if len(ids) > 0 {
		taken["NodeID"] = true
	}
	intTypes, names := leaves.types(taken)
	enumCols := map[string]bool{}
	for i, c := range tr.Schema {
		if enums[i] != nil {
			enumCols[c.Name] = true
		}
	}
	strTypes, strNames := leaves.strTypes(func(path string) bool { return !ids[path] && !enumCols[path] }, taken)
	maps.Copy(names, strNames)
	var restated map[int]shift
	if leaves.shifts != nil {
		restated = leaves.shifts.restated()
	}
	for path := range ids {
		names[path] = "NodeID"
	}
	var b strings.Builder
	b.WriteString("# Starter spec for augur, written from the schema of a trace of\n")
	fmt.Fprintf(&b, "# %d snapshots, %d states and %d nodes.\n", tr.Manifest.Snapshots, tr.Manifest.States, tr.Manifest.Nodes)
	b.WriteString("#\n")
	b.WriteString("# Only values of the same semantic type are compared. The types are\n")
	b.WriteString("# guessed from the trace: strings that name nodes are NodeIDs; two\n")
	b.WriteString("# integers share a type when their value ranges, zero left out,\n")
	b.WriteString("# overlap over at least half of their union and they hold a value in\n")
	b.WriteString("# common (indices with indices; a small counter such as an epoch or a\n")
	b.WriteString("# term spans little of an index's range and stays apart); other\n")
	b.WriteString("# strings share a type when they hold a value in common. Merge or\n")
	b.WriteString("# split types where the guess is wrong.\n")
	fmt.Fprintf(&b, "system: %s\n", quote(tr.Manifest.System))
	if len(ids) == 0 && len(intTypes) == 0 && len(strTypes) == 0 {
		b.WriteString("types: {}\n")
	} else {
		b.WriteString("types:\n")
	}
	if len(ids) > 0 {
		b.WriteString("  NodeID: string         # the values name nodes of the trace\n")
	}
	for _, t := range slices.Concat(intTypes, strTypes) {
		fmt.Fprintf(&b, "  %-22s # %s\n", t.name+": "+t.expr, t.why)
	}
	var iterate, containers []string
	if len(tr.Schema) == 0 {
		b.WriteString("variables: {}\n")
	} else {
		b.WriteString("variables:\n")
	}
	if len(ids) > 0 && !leaves.namesSelf() {
		// No column gives a node's own name, which the NodeIDs name.
		b.WriteString("  node: NodeID           # the node's own name (the trace's node column)\n")
	}
	for i, c := range tr.Schema {
		if whys[i] != nil {
			fmt.Fprintf(&b, "  # column %s left out: %v\n", cut(c.Name), whys[i])
			continue
		}
		if enums[i] != nil && !ids[c.Name] {
			fmt.Fprintf(&b, "  %s: {enum: [%s]}\n", c.Name, strings.Join(enums[i], ", "))
			continue
		}
		typ, err := typeExpr(c.Type, c.Name, names)
		if err != nil {
			return fmt.Errorf("spec init: column %s: %w", c.Name, err) // typed above without the names
		}
		if strings.HasPrefix(typ, "{") || strings.Contains(typ, ": ") {
			typ = strconv.Quote(typ)
		}
		line := fmt.Sprintf("  %s: %s", c.Name, typ)
		if r, ok := restated[i]; ok {
			a := tr.Schema[r.a].Name
			line = fmt.Sprintf("%-24s # %s in every state of this trace: each of its relations restates one of %s's", line, restates(a, c.Name, r.by), a)
		}
		b.WriteString(line + "\n")
		switch c.Type.ID() {
		case arrow.LIST:
			if c.Type.(*arrow.ListType).Elem().ID() == arrow.STRUCT {
				iterate = append(iterate, c.Name)
				break
			}
			fallthrough
		case arrow.MAP:
			containers = append(containers, c.Name)
		}
	}
	b.WriteString("derived: {}        # name: {type: T, expr: \"expr-lang expression\"}\n")
	b.WriteString("predicates: []     # - {name: p, params: [{a: T}, {b: T}], expr: \"...\"}\n")
	b.WriteString("generate:\n")
	b.WriteString("  max_nodes: 2           # node quantifiers per property, 1..4\n")
	b.WriteString("  max_literals: 2        # literals per disjunction, 1..4: 3 finds more, at many times the cost, and ranks one-off coincidences high\n")
	b.WriteString("  max_per_class: 50000   # properties kept per (nodes, literals) class; a report says what it cut\n")
	iter := fmt.Sprintf("  iterate: [%s]", strings.Join(iterate, ", "))
	fmt.Fprintf(&b, "%-24s # containers to quantify over: the lists of records, whose fields only an iterator compares", iter)
	if len(containers) > 0 {
		fmt.Fprintf(&b, "; also %s", strings.Join(containers, ", "))
	}
	b.WriteString("\n")
	b.WriteString("  constants:\n")
	b.WriteString("    max_distinct: 2      # x == c literals for variables with at most this many values (enums give theirs); more mines one run's epochs\n")
	b.WriteString("filter:\n")
	b.WriteString("  hold_ratio: 0.95       # prune properties that hold less often\n")
	b.WriteString("  every: 1000            # snapshots between filter passes\n")
	b.WriteString("report:\n")
	b.WriteString("  size: 10               # properties reported\n")
	b.WriteString("  min_support: 30        # non-vacuous snapshots a property needs\n")
	b.WriteString("  alpha: 0.01            # significance of the or-effect tests\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// restates says that column b is column a plus by: "b is a + 1".
func restates(a, b string, by int64) string {
	switch {
	case by == 0:
		return fmt.Sprintf("%s equals %s", b, a)
	case by < 0:
		return fmt.Sprintf("%s is %s - %d", b, a, uint64(-by))
	}
	return fmt.Sprintf("%s is %s + %d", b, a, by)
}

// scanStates scans the states of tr, adding their integers and strings
// to leaves. It returns, by column index, the sorted values of the string
// columns with 1 to maxEnum distinct non-null values, quoted for a YAML
// flow sequence. It looks at ctx every scanEvery states.
func scanStates(ctx context.Context, tr *trace.Trace, leaves *leafScan) (map[int][]string, error) {
	seen := map[int]map[string]bool{} // candidate enums
	for i, c := range tr.Schema {
		if c.Type.ID() == arrow.STRING && leaves.cols[i] != nil {
			seen[i] = map[string]bool{}
		}
	}
	// Only the columns scanned are decoded, and their lists of integers
	// and strings typed, sharing their record batch when huge: their
	// memory is the trace's, not a boxed copy (trace.TypedStates).
	sr := tr.TypedStates()
	defer sr.Close()
	cols := leaves.scanned()
	vals := make([]any, len(cols))
	for row := 0; row < tr.NumStates() && len(seen)+len(leaves.leaves)+len(leaves.strs) > 0; row++ {
		if row%scanEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		node, err := sr.Some(uint32(row), cols, vals)
		if err != nil {
			return nil, err
		}
		leaves.add(node, cols, vals)
		for j, c := range cols {
			enum := seen[c]
			if s, ok := vals[j].(string); ok && enum != nil {
				enum[s] = true
				if len(enum) > maxEnum || len(s) > maxEnumLen {
					delete(seen, c) // not an enum: stop counting
				}
			}
		}
	}
	enums := map[int][]string{}
	for i, vals := range seen {
		for _, v := range slices.Sorted(maps.Keys(vals)) {
			enums[i] = append(enums[i], quote(v))
		}
	}
	return enums, nil
}

// scanEvery is the number of states scanStates reads between two looks at
// its context: a few milliseconds of work.
const scanEvery = 1 << 12

// maxNameLen bounds the names of the variables and fields a starter spec
// declares: every property over one repeats its name (a field named by a
// JSON key of 10 MB ran infer out of memory building the properties'
// text). maxFields bounds the fields of a struct it declares, each
// compared with the others (a JSON object of 50,000 keys, which collect
// takes as a struct, took spec init 56 s and infer out of memory).
const (
	maxNameLen = 256
	maxFields  = 256
)

// errLongName says why a starter spec does not declare name.
func errLongName(name string) error {
	return fmt.Errorf("a name of %d bytes, longer than the %d of a starter spec", len(name), maxNameLen)
}

// cut returns name quoted, cut to its first 64 bytes.
func cut(name string) string {
	if len(name) > 64 {
		return strconv.Quote(name[:64]) + "…"
	}
	return strconv.Quote(name)
}

// typeExpr returns the type expression of a physical type at path (a
// column name, then [] for an element and .f for a field), with the
// integer and string positions named in names given their semantic
// types.
func typeExpr(dt arrow.DataType, path string, names map[string]string) (string, error) {
	switch dt := dt.(type) {
	case *arrow.BooleanType:
		return "bool", nil
	case *arrow.Int64Type, *arrow.Uint64Type:
		if t, ok := names[path]; ok {
			return t, nil
		}
		return dt.Name(), nil
	case *arrow.Float64Type:
		return "float64", nil
	case *arrow.StringType:
		if t, ok := names[path]; ok {
			return t, nil
		}
		return "string", nil
	case *arrow.ListType:
		elem, err := typeExpr(dt.Elem(), path+"[]", names)
		return "list<" + elem + ">", err
	case *arrow.MapType:
		if dt.KeyType().ID() == arrow.STRING {
			elem, err := typeExpr(dt.ItemType(), path+"[]", names)
			return "map<string, " + elem + ">", err
		}
	case *arrow.StructType:
		switch {
		case dt.NumFields() == 0:
			return "", fmt.Errorf("struct without fields")
		case dt.NumFields() > maxFields:
			return "", fmt.Errorf("a struct of %d fields, more than the %d a starter spec compares (declare the fields to compare)", dt.NumFields(), maxFields)
		}
		fields := make([]string, dt.NumFields())
		for i, f := range dt.Fields() {
			if len(f.Name) > maxNameLen {
				return "", fmt.Errorf("field %s: %w", cut(f.Name), errLongName(f.Name))
			}
			if specs.CheckName(f.Name) != nil {
				return "", fmt.Errorf("field %s cannot be named in a spec", strconv.Quote(f.Name))
			}
			t, err := typeExpr(f.Type, path+"."+f.Name, names)
			if err != nil {
				return "", err
			}
			fields[i] = f.Name + ": " + t
		}
		return "{" + strings.Join(fields, ", ") + "}", nil
	}
	return "", fmt.Errorf("unsupported type %s", dt)
}

// quote returns s as a YAML scalar: plain when it is a word that YAML reads
// back as the same string, double-quoted otherwise.
func quote(s string) string {
	// A word: an identifier, maybe with - and . after its first letter.
	plain := s != "" && s[0] != '-' && s[0] != '.' && specs.IsIdent(strings.NewReplacer("-", "_", ".", "_").Replace(s))
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		plain = false
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// InitFile writes a starter spec for the trace at tracePath (see [Init])
// to output, replacing it atomically, or to stdout when output is "":
// augur spec init. When ctx is done first, it returns the context's
// error and leaves output as it was.
func InitFile(ctx context.Context, tracePath, output string, stdout io.Writer) error {
	if err := clobber.Check(output, tracePath); err != nil {
		return err
	}
	tr, err := trace.Open(tracePath)
	if err != nil {
		return err
	}
	defer tr.Close()
	var b bytes.Buffer
	if err := Init(ctx, tr, &b); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if output == "" {
		_, err = stdout.Write(b.Bytes())
		return err
	}
	return safefile.Write(output, 0o644, func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	})
}
