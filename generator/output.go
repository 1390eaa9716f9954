package generator

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteJSON writes the classes of pool, and with list its properties, as
// JSON: {"total": N, "classes": [...], "properties": [...]}.
func (pool *Pool) WriteJSON(w io.Writer, list bool) error {
	type class struct {
		Nodes, Iters, Literals, Generated, Kept int
	}
	v := struct {
		Total      int      `json:"total"`
		Classes    []class  `json:"classes"`
		Properties []string `json:"properties,omitempty"`
	}{Total: len(pool.Props)}
	for _, c := range pool.Classes {
		v.Classes = append(v.Classes, class{c.Class.Nodes, c.Class.Iters, c.Class.Literals, c.Generated, c.Kept})
	}
	if list {
		for _, p := range pool.Props {
			v.Properties = append(v.Properties, p.String())
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteText writes the classes of pool as a table and the totals, and
// with list its properties, one per line.
func (pool *Pool) WriteText(w io.Writer, list bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\titers\tliterals\tgenerated\tkept\t")
	for _, c := range pool.Classes {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t\n", c.Class.Nodes, c.Class.Iters, c.Class.Literals, c.Generated, c.Kept)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The words of augur infer's first line, whose "evaluated" is kept.
	generated := 0
	for _, c := range pool.Classes {
		generated += c.Generated
	}
	fmt.Fprintf(w, "total: %d properties generated, %d kept (augur infer evaluates those)\n", generated, len(pool.Props))
	if list {
		for _, p := range pool.Props {
			fmt.Fprintln(w, p)
		}
	}
	return nil
}
