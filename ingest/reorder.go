package ingest

import "container/heap"

// A reorder buffer holds the records read from a source and not yet
// applied, and gives them back in order of ts, then of reading. While the
// source arrives in order, as one written by a single node does, it is a
// FIFO; it becomes a heap when a record arrives out of order, until it
// drains.
type reorder struct {
	recs recordHeap
	head int  // FIFO: the first record
	heap bool // recs is a heap
}

func (q *reorder) len() int { return len(q.recs) - q.head }

// min returns the next record without removing it.
func (q *reorder) min() *localRecord { return q.recs[q.head] }

func (q *reorder) push(r *localRecord) {
	if !q.heap {
		n := len(q.recs)
		if n == q.head || !q.recs.before(r, q.recs[n-1]) {
			if n == cap(q.recs) && q.head > 0 {
				m := copy(q.recs, q.recs[q.head:])
				clear(q.recs[m:])
				q.recs, q.head = q.recs[:m], 0
			}
			q.recs = append(q.recs, r)
			return
		}
		m := copy(q.recs, q.recs[q.head:])
		clear(q.recs[m:])
		q.recs, q.head, q.heap = q.recs[:m], 0, true
		heap.Init(&q.recs)
	}
	heap.Push(&q.recs, r)
}

func (q *reorder) pop() *localRecord {
	if q.heap {
		r := heap.Pop(&q.recs).(*localRecord)
		q.heap = len(q.recs) > 0
		return r
	}
	r := q.recs[q.head]
	q.recs[q.head] = nil
	q.head++
	if q.head == len(q.recs) {
		q.recs, q.head = q.recs[:0], 0
	}
	return r
}

// recordHeap orders the buffered records of a source by ts, then by read
// order.
type recordHeap []*localRecord

func (h recordHeap) before(a, b *localRecord) bool {
	return a.ts < b.ts || a.ts == b.ts && a.seq < b.seq
}

func (h recordHeap) Len() int           { return len(h) }
func (h recordHeap) Less(i, j int) bool { return h.before(h[i], h[j]) }
func (h recordHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *recordHeap) Push(x any)        { *h = append(*h, x.(*localRecord)) }
func (h *recordHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return r
}
