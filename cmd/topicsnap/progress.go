package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/topicsnap/topicsnap/catalog"
)

// progressUI draws a bar per partition and one for the total on a terminal.
type progressUI struct {
	p     *mpb.Progress
	mu    sync.Mutex
	bars  map[catalog.TopicPartition]*mpb.Bar
	total *mpb.Bar
	sum   int64
	w     io.Writer
}

func newProgress(ctx context.Context, w io.Writer) *progressUI {
	return &progressUI{p: mpb.NewWithContext(ctx, mpb.WithOutput(w), mpb.WithWidth(40)), bars: map[catalog.TopicPartition]*mpb.Bar{}, w: w}
}

func (u *progressUI) Start(tp catalog.TopicPartition, from, until int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := max(until-from, 0)
	u.sum += n
	u.bars[tp] = u.p.AddBar(n,
		mpb.PrependDecorators(decor.Name(tp.String(), decor.WCSyncSpaceR), decor.CountersNoUnit("%d / %d", decor.WCSyncWidth)),
		mpb.AppendDecorators(decor.AverageSpeed(0, "%.0f rec/s", decor.WCSyncWidth), decor.Percentage(decor.WCSyncSpace)))
}

func (u *progressUI) Advance(tp catalog.TopicPartition, records, _ int64) {
	u.mu.Lock()
	b := u.bars[tp]
	if u.total == nil {
		// Every partition has started before the first record arrives, so
		// the total is known here.
		u.total = u.p.AddBar(u.sum, mpb.BarPriority(1<<30),
			mpb.PrependDecorators(decor.Name("total", decor.WCSyncSpaceR), decor.CountersNoUnit("%d / %d", decor.WCSyncWidth)),
			mpb.AppendDecorators(decor.AverageSpeed(0, "%.0f rec/s", decor.WCSyncWidth), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
	}
	u.mu.Unlock()
	if b != nil {
		b.IncrInt64(records)
		u.total.IncrInt64(records)
	}
}

func (u *progressUI) Done(tp catalog.TopicPartition) {
	u.mu.Lock()
	b := u.bars[tp]
	u.mu.Unlock()
	if b != nil {
		b.SetTotal(-1, true)
	}
}

func (u *progressUI) Waiting(what string) {
	fmt.Fprintf(u.p, "waiting: %s\n", what)
}

func (u *progressUI) Warn(what string) {
	fmt.Fprintf(u.p, "warning: %s\n", what)
}

// Wait completes every bar and stops drawing.
func (u *progressUI) Wait() {
	u.mu.Lock()
	for _, b := range u.bars {
		b.SetTotal(-1, true)
	}
	if u.total != nil {
		u.total.SetTotal(-1, true)
	}
	u.mu.Unlock()
	u.p.Wait()
}

// quietProgress is the progress off a terminal: silent, except for what
// the dump is waiting for.
type quietProgress struct{ w io.Writer }

func (quietProgress) Start(catalog.TopicPartition, int64, int64)   {}
func (quietProgress) Advance(catalog.TopicPartition, int64, int64) {}
func (quietProgress) Done(catalog.TopicPartition)                  {}
func (q quietProgress) Waiting(what string)                        { fmt.Fprintf(q.w, "waiting: %s\n", what) }
func (q quietProgress) Warn(what string)                           { fmt.Fprintf(q.w, "warning: %s\n", what) }
