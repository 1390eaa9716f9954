package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/augur-dev/augur/evaluator"
)

// Timing is how long one evaluator took over a pool with a number of
// workers.
type Timing struct {
	Kind    evaluator.Kind
	Workers int
	Time    time.Duration // evaluating the pool
	// EndToEnd, if set, is the whole run: loading the spec and the trace,
	// generating and compiling the pool, evaluating it, and building and
	// printing the report.
	EndToEnd time.Duration
}

// Time evaluates p's pool once with each evaluator and worker count, in
// that order, and fails unless every run's result is identical: a speed
// benchmark that is also a differential test.
func (p *Pipeline) Time(ctx context.Context, kinds []evaluator.Kind, workers []int) ([]Timing, error) {
	var (
		out   []Timing
		first *evaluator.Result
	)
	for _, kind := range kinds {
		for _, w := range workers {
			start := time.Now()
			res, err := evaluator.Run(ctx, p.Trace, p.Program, evaluator.Options{Kind: kind, Workers: w, NoPatterns: true})
			if err != nil {
				return nil, err
			}
			t := Timing{Kind: kind, Workers: w, Time: time.Since(start)}
			if first == nil {
				first = res
			} else if !reflect.DeepEqual(res, first) {
				return nil, fmt.Errorf("%s with %d workers disagrees with %s with %d workers", kind, w, out[0].Kind, out[0].Workers)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

// TimeEndToEnd runs the pipeline over the spec and the trace once with
// each evaluator and worker count, in that order, as augur infer
// --no-filter does, its pool sampled to props properties (0: all):
// loading, generation and compilation, evaluation, the report's second
// passes, and the report printed as JSON. It fails unless every run's
// result and report are identical.
func TimeEndToEnd(ctx context.Context, specPath, tracePath string, props int, kinds []evaluator.Kind, workers []int) ([]Timing, error) {
	var (
		out         []Timing
		first       *evaluator.Result
		firstReport []byte
	)
	for _, kind := range kinds {
		for _, w := range workers {
			t := Timing{Kind: kind, Workers: w}
			res, report, err := timeRun(ctx, specPath, tracePath, props, &t)
			if err != nil {
				return nil, err
			}
			if first == nil {
				first, firstReport = res, report
			} else if !reflect.DeepEqual(res, first) || !bytes.Equal(report, firstReport) {
				return nil, fmt.Errorf("%s with %d workers disagrees with %s with %d workers", kind, w, out[0].Kind, out[0].Workers)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

// timeRun runs the pipeline once with t's evaluator and workers, sets t's
// times, and returns the result, with the patterns the report counted,
// and the report printed as JSON.
func timeRun(ctx context.Context, specPath, tracePath string, props int, t *Timing) (*evaluator.Result, []byte, error) {
	start := time.Now()
	p, err := Open(specPath, tracePath)
	if err != nil {
		return nil, nil, err
	}
	defer p.Close()
	if err := p.Sample(props); err != nil {
		return nil, nil, err
	}
	evalStart := time.Now()
	res, err := evaluator.Run(ctx, p.Trace, p.Program, evaluator.Options{Kind: t.Kind, Workers: t.Workers, NoPatterns: true})
	if err != nil {
		return nil, nil, err
	}
	t.Time = time.Since(evalStart)
	rep, err := p.Report(ctx, res, Options{Evaluator: t.Kind, Workers: t.Workers, NoFilter: true})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		return nil, nil, err
	}
	t.EndToEnd = time.Since(start)
	return res, b.Bytes(), nil
}
