package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestOnTerminalOff checks that OnTerminal reports nothing to what is not a
// terminal, a file or a buffer, even long after the start.
func TestOnTerminalOff(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	for _, w := range []io.Writer{f, &b} {
		pr := OnTerminal(w)
		if pr != nil {
			t.Fatalf("OnTerminal(%T) = %v, want nil", w, pr)
		}
		if pr.Terminal() {
			t.Errorf("a nil Progress says it is on a terminal")
		}
		pr.Start("runs", 0)
		time.Sleep(10 * time.Millisecond)
		pr.Update(1, 2)
		pr.Stop()
	}
	if info, err := f.Stat(); err != nil || info.Size() != 0 || b.Len() != 0 {
		t.Errorf("wrote %v bytes to a file (%v) and %q to a buffer, want nothing", info.Size(), err, b.String())
	}
}

// TestOnTerminalBar checks that on a terminal, a pseudo-terminal here,
// OnTerminal draws a bar whose total comes from Update when Start had none.
func TestOnTerminalBar(t *testing.T) {
	ptm, pts := openPTY(t)
	out := make(chan string)
	go func() {
		data, _ := io.ReadAll(ptm) // EIO once pts is closed
		out <- string(data)
	}()
	pr := OnTerminal(pts)
	if !pr.Terminal() {
		t.Fatal("OnTerminal of a pseudo-terminal does not draw a bar")
	}
	pr.Start("runs", 0)
	pr.Update(3, 4)
	pr.Stop()
	pts.Close()
	if got := <-out; !strings.Contains(got, "runs 3/4") {
		t.Errorf("the terminal shows %q, want the bar at runs 3/4", got)
	}
}

// openPTY opens a pseudo-terminal and returns its master and slave ends,
// closed when t ends.
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	var unlock, n int32
	for _, c := range []struct {
		req uintptr
		arg *int32
	}{{syscall.TIOCSPTLCK, &unlock}, {syscall.TIOCGPTN, &n}} {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), c.req, uintptr(unsafe.Pointer(c.arg))); errno != 0 {
			t.Fatalf("ioctl %#x on /dev/ptmx: %v", c.req, errno)
		}
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	// A new terminal is 0 columns wide, in which mpb draws nothing.
	size := [4]uint16{24, 80} // rows, columns, and pixels unused
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, pts.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&size))); errno != 0 {
		t.Fatalf("ioctl TIOCSWINSZ: %v", errno)
	}
	return ptm, pts
}
