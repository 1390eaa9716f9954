// Package pipeline takes a spec and a trace to a report: it generates the
// property pool of the spec (with the constants mined from the trace),
// evaluates it over the trace, whole or one shard of it, and builds the
// ranked report, with a baseline run and the HTML report's timeline when
// asked.
//
// It is the library behind augur infer, report, bench and demo; the
// commands only turn flags into [Options] and write what it returns.
// [CheckFiles], behind augur check, checks every snapshot of a trace
// against a checks file.
//
//	rep, err := pipeline.Infer(ctx, "spec.yaml", "run.trace", pipeline.Options{})
//	if err != nil {
//		return err
//	}
//	return rep.Write(os.Stdout, "text")
package pipeline
