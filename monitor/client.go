package monitor

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A Client talks to a monitor's HTTP API with its bearer token: augur
// monitor push and watch, and the load generator.
type Client struct {
	URL   string       // the monitor's base URL, such as http://127.0.0.1:7070
	Token string       // sent as "Authorization: Bearer Token"
	HTTP  *http.Client // nil means http.DefaultClient
}

// do sends a request with the token and returns the response when its
// status is 200; otherwise it returns an error with the monitor's reason.
func (c *Client) do(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.URL, "/")+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-ndjson")
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(msg))
	}
	return resp, nil
}

// Push posts node-local JSON lines to POST /v1/records.
func (c *Client) Push(ctx context.Context, lines []byte) (PushResult, error) {
	var res PushResult
	resp, err := c.do(ctx, http.MethodPost, "/v1/records", bytes.NewReader(lines))
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&res); err != nil {
		return res, fmt.Errorf("POST /v1/records: reading the answer: %w", err)
	}
	return res, nil
}

// PushBatches pushes lines, one record each, in requests of at most
// batch lines, in order, and returns the records dropped as late and the
// number of requests. An error names the records of the request that
// failed; those before it were taken.
func (c *Client) PushBatches(ctx context.Context, lines [][]byte, batch int) (late, requests int, err error) {
	for start := 0; start < len(lines); start += batch {
		end := min(start+batch, len(lines))
		res, err := c.Push(ctx, append(bytes.Join(lines[start:end], []byte("\n")), '\n'))
		if err != nil {
			return late, requests, fmt.Errorf("records %d-%d: %w", start+1, end, err)
		}
		late += res.Late
		requests++
	}
	return late, requests, nil
}

// Violations opens GET /v1/violations: a stream of violation lines that
// ends when ctx does or the monitor stops. The caller closes it.
func (c *Client) Violations(ctx context.Context) (io.ReadCloser, error) {
	resp, err := c.do(ctx, http.MethodGet, "/v1/violations", nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Watch writes each line of the violation stream to w as it comes,
// until the monitor ends the stream or ctx is done, which is not an
// error: augur monitor watch. An error of the stream starts with
// "watch: ".
func (c *Client) Watch(ctx context.Context, w io.Writer) error {
	stream, err := c.Violations(ctx)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer stream.Close()
	sc := bufio.NewScanner(stream)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if _, err := fmt.Fprintf(w, "%s\n", sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// Metrics reads GET /metrics: the value of each sample, by its name with
// labels.
func (c *Client) Metrics(ctx context.Context) (map[string]float64, error) {
	resp, err := c.do(ctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for l := range strings.Lines(string(body)) {
		if strings.HasPrefix(l, "#") {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(l[i+1:]), 64); err == nil {
			m[l[:i]] = v
		}
	}
	return m, nil
}

// ReadLines reads the node-local records of JSONL files (any number of
// nodes per file) and returns their lines in timestamp order, as augur
// collect merges them; a node's lines, in one file, keep their order.
func ReadLines(names ...string) ([][]byte, error) {
	type line struct {
		ts   uint64
		text []byte
	}
	var lines []line
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		for i, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			var head struct {
				TS *uint64 `json:"ts"`
			}
			if err := json.Unmarshal(l, &head); err != nil || head.TS == nil {
				return nil, fmt.Errorf("%s:%d: not a node-local record with a ts", name, i+1)
			}
			lines = append(lines, line{*head.TS, l})
		}
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(a.ts, b.ts) })
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out, nil
}

// PushFiles pushes the node-local records of JSONL files, merged in
// timestamp order (see [ReadLines]), in requests of at most batch
// records (see [Client.PushBatches]): augur monitor push. It returns the
// records read, those dropped as late and the requests made.
func (c *Client) PushFiles(ctx context.Context, batch int, files ...string) (records, late, requests int, err error) {
	lines, err := ReadLines(files...)
	if err != nil {
		return 0, 0, 0, err
	}
	late, requests, err = c.PushBatches(ctx, lines, batch)
	if err != nil {
		return len(lines), late, requests, fmt.Errorf("push: %w", err)
	}
	return len(lines), late, requests, nil
}
