package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

func newGenerateCmd() *cobra.Command {
	var (
		list   bool
		format string
	)
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
			var (
				spec   *specs.Spec
				consts = generator.Constants{}
				err    error
			)
			if len(args) == 2 {
				var tr *trace.Trace
				if spec, tr, err = pipeline.OpenFitting(args[0], args[1]); err != nil {
					return err
				}
				defer tr.Close()
				if consts, err = generator.MineConstants(tr, spec); err != nil {
					return err
				}
			} else if spec, err = specs.Load(args[0]); err != nil {
				return err
			}
			pool, err := generator.Generate(spec, consts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch format {
			case "json":
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
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(v)
			case "text":
				tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
				fmt.Fprintln(tw, "nodes\titers\tliterals\tgenerated\tkept\t")
				for _, c := range pool.Classes {
					fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t\n", c.Class.Nodes, c.Class.Iters, c.Class.Literals, c.Generated, c.Kept)
				}
				tw.Flush()
				fmt.Fprintf(out, "total: %d properties\n", len(pool.Props))
				if list {
					for _, p := range pool.Props {
						fmt.Fprintln(out, p)
					}
				}
				return nil
			}
			return fmt.Errorf("unknown format %q (want text or json)", format)
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the properties")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
