package ipcfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// A Stream checks the record batch messages of an Arrow IPC stream before
// the Arrow library reads them, as [Open] checks those of a file.
type Stream struct {
	ra     io.ReaderAt
	size   int64
	layout []nodeKind
}

// A StreamMessage is a record batch message of a Stream, as its checked
// metadata describes it.
type StreamMessage struct {
	Size int64 // bytes of the whole message: prefix, metadata and body
	Rows int64 // rows of its record batch
}

var (
	// ErrNoMessage is returned by Stream.Message where no message
	// starts: at the end of the stream, at an end-of-stream marker, or
	// where there is no continuation marker.
	ErrNoMessage = errors.New("no message")
	// ErrPastEnd is returned by Stream.Message for a message that runs
	// past the end of the stream.
	ErrPastEnd = errors.New("message runs past the end of the stream")
)

// NewStream returns a Stream of size bytes, read through ra, whose
// record batches are of the given schema.
func NewStream(ra io.ReaderAt, size int64, schema *arrow.Schema) (*Stream, error) {
	layout, err := layoutOf(schema)
	if err != nil {
		return nil, err
	}
	return &Stream{ra: ra, size: size, layout: layout}, nil
}

// Message reads the metadata of the message at byte off and checks that
// it is a record batch whose metadata is sound, whose arrays and buffers
// are those the schema calls for, and whose body ends by byte end (at
// most the stream's size). The body is not read. A message must start
// with a continuation marker (Arrow 0.15 and later).
func (s *Stream) Message(off, end int64) (StreamMessage, error) {
	var prefix [8]byte
	left := min(end, s.size) - off
	if off < 0 || left <= 0 {
		return StreamMessage{}, ErrNoMessage
	}
	if _, err := s.ra.ReadAt(prefix[:min(left, 8)], off); err != nil && err != io.EOF {
		return StreamMessage{}, err
	}
	if binary.LittleEndian.Uint32(prefix[:]) != 0xFFFFFFFF {
		return StreamMessage{}, ErrNoMessage
	}
	n := int64(int32(binary.LittleEndian.Uint32(prefix[4:])))
	switch {
	case left < 8:
		return StreamMessage{}, ErrPastEnd
	case n == 0:
		return StreamMessage{}, ErrNoMessage
	case n < 0:
		return StreamMessage{}, fmt.Errorf("metadata length %d", n)
	case n > left-8:
		return StreamMessage{}, fmt.Errorf("%w: metadata of %d bytes, %d left", ErrPastEnd, n, left-8)
	}
	meta := make([]byte, n)
	if _, err := s.ra.ReadAt(meta, off+8); err != nil {
		return StreamMessage{}, err
	}
	m, err := checkMessage(meta, -1)
	if err != nil {
		return StreamMessage{}, err
	}
	if err := checkLayout(s.layout, m); err != nil {
		return StreamMessage{}, err
	}
	if m.body > left-8-n {
		return StreamMessage{}, fmt.Errorf("%w: body of %d bytes, %d left", ErrPastEnd, m.body, left-8-n)
	}
	return StreamMessage{Size: 8 + n + m.body, Rows: m.length}, nil
}
