package collector

import (
	"bytes"
	"testing"
)

type counter struct {
	N    int64             `augur:"n"`
	Name string            `augur:"name"`
	Tags map[string]string `augur:"tags"`
}

func TestJSONLSink(t *testing.T) {
	var buf bytes.Buffer
	n := NewNode("n\"1", NewJSONLSink(&buf, SinkOptions{}))
	n.Heartbeat()
	n.Expose(counter{N: 1, Name: "a\tb", Tags: map[string]string{"z": "1", "a": "2"}})
	n.Receive(10)
	n.Expose(&counter{N: 2})
	n.Leave()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	const want = `{"node":"n\"1","ts":1,"heartbeat":true}
{"node":"n\"1","ts":2,"state":{"n":1,"name":"a\tb","tags":{"a":"2","z":"1"}}}
{"node":"n\"1","ts":12,"state":{"n":2,"name":"","tags":{}}}
{"node":"n\"1","ts":13,"leave":true}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
