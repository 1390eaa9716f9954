package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/specs"
)

// generateOptions are augur generate's arguments and flags.
type generateOptions struct {
	spec, trace string // trace is optional
	list        bool
	format      string
	stdout      io.Writer
}

// newGenerateCmd returns augur generate; runF, if not nil, runs instead
// of runGenerate.
func newGenerateCmd(runF func(*generateOptions) error) *cobra.Command {
	o := &generateOptions{}
	cmd := &cobra.Command{
		Use:   "generate SPEC [TRACE]",
		Short: "Count (and list) the properties a spec generates",
		Long: `Generate prints how many properties the spec generates per class (node
variables, iterator variables, literals). With a trace, constants are mined
from it for x == c literals. The output is deterministic.`,
		Example: `  augur generate spec.yaml
  augur generate spec.yaml run.trace --list`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.spec, o.stdout = args[0], cmd.OutOrStdout()
			if len(args) == 2 {
				o.trace = args[1]
			}
			if runF != nil {
				return runF(o)
			}
			return runGenerate(o)
		},
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list the properties")
	cmd.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	return cmd
}

// runGenerate prints the classes of the pool of o.spec, and with o.list
// its properties.
func runGenerate(o *generateOptions) error {
	pool, err := generatePool(o.spec, o.trace)
	if err != nil {
		return err
	}
	switch o.format {
	case "json":
		return writePoolJSON(o.stdout, pool, o.list)
	case "text":
		return writePoolText(o.stdout, pool, o.list)
	}
	return fmt.Errorf("unknown format %q (want text or json)", o.format)
}

// generatePool generates the pool of the spec at specPath, with the
// constants mined from the trace at tracePath unless it is "".
func generatePool(specPath, tracePath string) (*generator.Pool, error) {
	if tracePath == "" {
		spec, err := specs.Load(specPath)
		if err != nil {
			return nil, err
		}
		return generator.Generate(spec, generator.Constants{})
	}
	spec, tr, err := pipeline.OpenFitting(specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	consts, err := generator.MineConstants(tr, spec)
	if err != nil {
		return nil, err
	}
	return generator.Generate(spec, consts)
}

func writePoolJSON(w io.Writer, pool *generator.Pool, list bool) error {
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

func writePoolText(w io.Writer, pool *generator.Pool, list bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\titers\tliterals\tgenerated\tkept\t")
	for _, c := range pool.Classes {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t\n", c.Class.Nodes, c.Class.Iters, c.Class.Literals, c.Generated, c.Kept)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "total: %d properties\n", len(pool.Props))
	if list {
		for _, p := range pool.Props {
			fmt.Fprintln(w, p)
		}
	}
	return nil
}
