package monitor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// metrics are the monitor's counters, exposed in the Prometheus text
// format by GET /metrics. They are written by hand: a few counters, gauges
// and one histogram do not justify the client library's dependencies.
type metrics struct {
	records    atomic.Int64 // records accepted
	late       atomic.Int64 // of which dropped as late
	cuts       atomic.Int64 // complete cuts checked
	incomplete atomic.Int64
	collapsed  atomic.Int64
	buffered   atomic.Int64
	heldBytes  atomic.Int64
	nodes      atomic.Int64
	frontier   atomic.Int64
	subs       atomic.Int64

	recordErrors atomic.Int64

	mu         sync.Mutex
	checks     []string
	violations map[string]int64 // by check
	reqErrors  map[string]int64 // by reason
	nodeFails  map[string]int64 // by reason
	sheds      map[string]int64 // by reason
	dropped    map[string]int64 // violation lines not delivered, by reason
	latency    *histogram
}

func newMetrics(checks []string) *metrics {
	return &metrics{
		checks:     checks,
		violations: map[string]int64{},
		reqErrors:  map[string]int64{},
		nodeFails:  map[string]int64{},
		sheds:      map[string]int64{},
		dropped:    map[string]int64{},
		latency:    newHistogram([]float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
	}
}

func (m *metrics) count(into map[string]int64, key string) {
	m.mu.Lock()
	into[key]++
	m.mu.Unlock()
}

func (m *metrics) requestError(reason string) { m.count(m.reqErrors, reason) }
func (m *metrics) violation(check string)     { m.count(m.violations, check) }
func (m *metrics) failed(reason string)       { m.count(m.nodeFails, reason) }
func (m *metrics) shed(reason string)         { m.count(m.sheds, reason) }
func (m *metrics) drop(reason string)         { m.count(m.dropped, reason) }

// A histogram counts observations in cumulative buckets.
type histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []int64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      int64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]int64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v)
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.n++
	h.mu.Unlock()
}

// write writes the metrics in the Prometheus text format, version 0.0.4.
func (m *metrics) write(w io.Writer) error {
	var b bytes.Buffer
	counter := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	gauge := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	labelled := func(name, help, label string, keys []string, vals map[string]int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
		if keys == nil {
			for k := range vals {
				keys = append(keys, k)
			}
			slices.Sort(keys)
		}
		for _, k := range keys {
			fmt.Fprintf(&b, "%s{%s=\"%s\"} %d\n", name, label, escapeLabel(k), vals[k])
		}
	}
	counter("augur_monitor_records_received_total", "Node-local records accepted by POST /v1/records.", m.records.Load())
	counter("augur_monitor_records_late_total", "Records dropped because the cuts had passed their time (a node that joined, rejoined or came back late).", m.late.Load())
	counter("augur_monitor_cuts_total", "Complete consistent cuts built and checked.", m.cuts.Load())
	counter("augur_monitor_cuts_incomplete_total", "Cuts dropped because a live node had no record at or after them.", m.incomplete.Load())
	counter("augur_monitor_cuts_collapsed_total", "Cuts dropped by --collapse.", m.collapsed.Load())
	counter("augur_monitor_recording_errors_total", "Errors that stopped the recording.", m.recordErrors.Load())
	gauge("augur_monitor_records_buffered", "Records held back until every node the cuts wait for has pushed past them.", m.buffered.Load())
	gauge("augur_monitor_records_held_bytes", "Bytes of the lines of the records held back (--max-held).", m.heldBytes.Load())
	gauge("augur_monitor_nodes", "Nodes that have pushed a record.", m.nodes.Load())
	gauge("augur_monitor_frontier_ts", "Timestamp of the last record applied to the cuts.", m.frontier.Load())
	gauge("augur_monitor_subscribers", "Open GET /v1/violations streams.", m.subs.Load())
	m.mu.Lock()
	labelled("augur_monitor_violations_total", "Violations found, one per check and snapshot.", "check", m.checks, m.violations)
	labelled("augur_monitor_request_errors_total", "Requests refused, by reason.", "reason", nil, m.reqErrors)
	labelled("augur_monitor_nodes_failed_total", "Nodes declared failed, by reason: silent (--fail-after), buffer (--max-buffered) or held (--max-held).", "reason", nil, m.nodeFails)
	labelled("augur_monitor_sheds_total", "Waits given up, by reason: start (--nodes not reached before --max-buffered or --max-held).", "reason", nil, m.sheds)
	labelled("augur_monitor_violation_lines_dropped_total", "Violation lines not delivered, by reason: slow_subscriber (disconnected), stdout (its writer fell behind).", "reason", nil, m.dropped)
	m.mu.Unlock()
	h := m.latency
	h.mu.Lock()
	name := "augur_monitor_push_to_check_seconds"
	fmt.Fprintf(&b, "# HELP %s From the arrival of the exposure that a cut is made at to the end of its check.\n# TYPE %s histogram\n", name, name)
	var cum int64
	for i, c := range h.counts {
		cum += c
		le := "+Inf"
		if i < len(h.bounds) {
			le = strconv.FormatFloat(h.bounds[i], 'g', -1, 64)
		}
		fmt.Fprintf(&b, "%s_bucket{le=\"%s\"} %d\n", name, le, cum)
	}
	fmt.Fprintf(&b, "%s_sum %s\n%s_count %d\n", name, strconv.FormatFloat(h.sum, 'g', -1, 64), name, h.n)
	h.mu.Unlock()
	if rss, peak, ok := readRSS(); ok {
		fmt.Fprintf(&b, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %d\n", rss)
		fmt.Fprintf(&b, "# HELP augur_monitor_peak_rss_bytes Peak resident memory size in bytes (VmHWM).\n# TYPE augur_monitor_peak_rss_bytes gauge\naugur_monitor_peak_rss_bytes %d\n", peak)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// readRSS reads the resident and peak resident memory of the process
// from /proc (Linux only).
func readRSS() (rss, peak int64, ok bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), ":")
		if !found || k != "VmRSS" && k != "VmHWM" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		if k == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak, rss > 0 && peak > 0
}
