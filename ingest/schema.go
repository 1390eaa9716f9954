package ingest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/trace"
)

// open opens the inputs and settles the schema: the given one, or the
// types inferred from the JSONL inputs (a first pass over them) merged
// with the columns of the Arrow streams.
func (b *builder) open(inputs []string, kinds []inputKind) (trace.Schema, bool, error) {
	var (
		schema   = b.opts.Schema
		inferred = schema == nil
		in       = newInferrer()
		owner    = map[string]string{} // column → the input that fixed its type
	)
	for i, name := range inputs {
		s := &source{idx: i, name: name}
		b.srcs = append(b.srcs, s)
		switch kinds[i] {
		case inputEmpty:
			s.eof = true
		case inputLocal, inputUnknown:
			if inferred {
				if err := b.infer(in, name); err != nil {
					return nil, false, err
				}
			}
			lines, err := openLocalLines(name)
			if err != nil {
				return nil, false, err
			}
			s.jsonl = lines
		case inputArrow:
			r, err := OpenStream(name, b.opts.Allocator)
			if err != nil {
				return nil, false, err
			}
			s.arrow = r
		}
	}
	if inferred {
		schema = in.schema()
		for _, c := range schema {
			owner[c.Name] = "the JSONL inputs"
		}
		releaseFirstPass()
	}
	// Arrow streams carry their types; they must agree with the others.
	for _, s := range b.srcs {
		if s.arrow == nil {
			continue
		}
		for _, c := range s.arrow.Schema() {
			i := schema.Index(c.Name)
			switch {
			case i < 0 && !inferred:
				return nil, false, &Error{Pos: diag.Position{Filename: s.name}, Field: c.Name, Msg: "no such state variable in the schema"}
			case i < 0:
				schema = append(schema, c)
				owner[c.Name] = s.name
			case !sameType(schema[i].Type, c.Type):
				by := owner[c.Name]
				if by == "" {
					by = "the schema"
				}
				return nil, false, &Error{Pos: diag.Position{Filename: s.name}, Field: c.Name,
					Msg: fmt.Sprintf("type conflict: %s here, %s in %s", c.Type, schema[i].Type, by)}
			}
		}
	}
	if inferred {
		slices.SortFunc(schema, func(a, b trace.Column) int { return strings.Compare(a.Name, b.Name) })
	}
	for _, s := range b.srcs {
		if s.arrow == nil {
			continue
		}
		for _, c := range s.arrow.Schema() {
			s.cols = append(s.cols, schema.Index(c.Name))
		}
	}
	return schema, inferred, nil
}

// sameType reports whether a and b are the same type, whatever the
// nullability and the names of list elements.
func sameType(a, b arrow.DataType) bool {
	if a.ID() != b.ID() {
		return false
	}
	switch a := a.(type) {
	case *arrow.ListType:
		return sameType(a.Elem(), b.(*arrow.ListType).Elem())
	case *arrow.MapType:
		bm := b.(*arrow.MapType)
		return sameType(a.KeyType(), bm.KeyType()) && sameType(a.ItemType(), bm.ItemType())
	case *arrow.StructType:
		bs := b.(*arrow.StructType)
		if a.NumFields() != bs.NumFields() {
			return false
		}
		for i := range a.NumFields() {
			if a.Field(i).Name != bs.Field(i).Name || !sameType(a.Field(i).Type, bs.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// infer is the first pass over a node-local JSONL input: it merges the
// types of its states into in. Under Lenient a bad line is skipped,
// counted and remembered, so the second pass skips it silently.
func (b *builder) infer(in *inferrer, name string) error {
	lines, err := openLocalLines(name)
	if err != nil {
		return err
	}
	defer lines.close()
	for {
		if err := interrupted(b.ctx, b.out); err != nil {
			return err
		}
		r, err := lines.next()
		if err == io.EOF || errors.Is(err, errTorn) {
			return nil // the second pass warns of a torn line
		}
		if lines.broken {
			return err
		}
		if err == nil && r.event == collector.EventState {
			err = in.recordLocal(r.at, r.state, b.opts.Lenient)
			if e := (*Error)(nil); errors.As(err, &e) {
				e.Node = r.name
			}
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Pos.Line == 0 {
				return err // not about one line
			}
			if err := b.skipped(err); err != nil {
				return err
			}
			b.skip[pos{e.Pos.Filename, e.Pos.Line}] = true
		}
	}
}

// close releases the inputs.
func (b *builder) close() {
	for _, s := range b.srcs {
		if s.jsonl != nil {
			s.jsonl.close()
		}
		if s.arrow != nil {
			s.arrow.Close()
		}
	}
}

// run merges the records of all inputs in timestamp order and makes a cut
