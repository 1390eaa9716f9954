package pipeline

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/augur-dev/augur/evaluator"
)

// Timing is how long one evaluator took over a pipeline's pool with a
// number of workers.
type Timing struct {
	Kind    evaluator.Kind
	Workers int
	Time    time.Duration
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
