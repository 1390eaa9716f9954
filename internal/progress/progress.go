// Package progress shows how far a long run is: a bar when the output is a
// terminal, and nothing otherwise, so that a log keeps a command's result
// alone.
package progress

import (
	"io"
	"os"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// A Progress reports how far a long run is; it is a pipeline.Progress. A
// nil *Progress reports nothing.
type Progress struct {
	w     io.Writer
	p     *mpb.Progress
	bar   *mpb.Bar
	total int // the bar's
}

// OnTerminal returns a Progress that draws a bar when w is a terminal, and
// nil, which reports nothing, when it is not.
func OnTerminal(w io.Writer) *Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &Progress{w: w}
	}
	return nil
}

// Terminal reports whether pr draws a bar, its output being a terminal.
func (pr *Progress) Terminal() bool { return pr != nil }

// Start begins reporting total units of what; a total of 0 is taken from
// the first Update.
func (pr *Progress) Start(what string, total int) {
	if pr == nil {
		return
	}
	pr.total = total
	pr.p = mpb.New(mpb.WithOutput(pr.w), mpb.WithWidth(40))
	pr.bar = pr.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name(what), decor.CountersNoUnit(" %d/%d")),
		mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)),
	)
}

// Update records that done of total units are finished.
func (pr *Progress) Update(done, total int) {
	if pr == nil || pr.bar == nil {
		return
	}
	if total != pr.total {
		pr.total = total
		pr.bar.SetTotal(int64(total), false)
	}
	pr.bar.SetCurrent(int64(done))
}

// Stop ends the bar.
func (pr *Progress) Stop() {
	if pr == nil || pr.p == nil {
		return
	}
	pr.bar.Abort(false)
	pr.p.Wait()
	pr.p, pr.bar = nil, nil
}
