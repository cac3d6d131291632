package smb2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestReadFrameIsBounded: a message larger than the limit is refused before
// its bytes are read or allocated.
func TestReadFrameIsBounded(t *testing.T) {
	big := []byte{0, 0x10, 0, 0} // 1 MiB announced, nothing follows
	if _, err := readFrame(bytes.NewReader(big), 1<<16); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("got %v, want the limit refusal", err)
	}
	if _, err := readFrame(bytes.NewReader([]byte{1, 0, 0, 8}), 1<<16); err == nil {
		t.Fatal("a NetBIOS session message type other than 0 was accepted")
	}
	msg, err := readFrame(bytes.NewReader([]byte{0, 0, 0, 4, 1, 2, 3, 4}), 1<<16)
	if err != nil || !bytes.Equal(msg, []byte{1, 2, 3, 4}) {
		t.Fatalf("got %x, %v", msg, err)
	}
}

// TestCancelledContextAbandonsTheWait: a call whose server never answers
// returns the context's error when the context ends, and the connection
// stays usable for other calls' bookkeeping.
func TestCancelledContextAbandonsTheWait(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	go io.Copy(io.Discard, server) // a server that reads and never answers
	c := &Conn{nc: client, opts: Options{}, credits: 10, creditsCh: make(chan struct{}),
		pending: map[uint64]*call{}, breakCh: make(chan struct{}, 1), done: make(chan struct{})}
	c.maxFrame.Store(1 << 16)
	go c.readLoop()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := c.roundTrip(ctx, EchoRequest, sendParams{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline", err)
	}
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d calls still pending after the wait was abandoned", n)
	}
}

// TestStatusErrors: statuses match with errors.Is and print their names.
func TestStatusErrors(t *testing.T) {
	var err error = &Error{Command: CmdCreate, Status: StatusSharingViolation}
	if !errors.Is(err, StatusSharingViolation) || errors.Is(err, StatusDeletePending) || !IsStatus(err, StatusSharingViolation) {
		t.Fatal("errors.Is does not match the carried status")
	}
	if got := err.Error(); got != "smb2: CREATE: STATUS_SHARING_VIOLATION" {
		t.Fatalf("text %q", got)
	}
	if _, ok := StatusOf(context.Canceled); ok {
		t.Fatal("a context error was taken for a server status")
	}
	if Status(0xC0001234).String() != "NTSTATUS(0xC0001234)" {
		t.Fatal(Status(0xC0001234).String())
	}
}
