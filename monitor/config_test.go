package monitor

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int64
	}{{"8MiB", 8 << 20}, {"100", 100}, {"1 KiB", 1024}, {"2GB", 2e9}} {
		if n, err := ParseSize(tt.s); n != tt.want || err != nil {
			t.Errorf("ParseSize(%q) = %d, %v", tt.s, n, err)
		}
	}
	for _, s := range []string{"", "0", "-1MiB", "MiB", "8 MiBs", "9999999999GiB"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) succeeded", s)
		}
	}
}

func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	file, empty := filepath.Join(dir, "token"), filepath.Join(dir, "empty")
	if err := os.WriteFile(file, []byte(" secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(TokenEnv, "from-env")
	for _, tt := range []struct{ file, want string }{{file, "secret"}, {"", "from-env"}} {
		if tok, err := ReadToken(tt.file); tok != tt.want || err != nil {
			t.Errorf("ReadToken(%q) = %q, %v; want %q", tt.file, tok, err, tt.want)
		}
	}
	if _, err := ReadToken(empty); err == nil {
		t.Error("an empty token file was accepted")
	}
	binary := filepath.Join(dir, "binary")
	if err := os.WriteFile(binary, []byte("sec\x00ret\xff"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadToken(binary); err == nil || !strings.Contains(err.Error(), binary+": the token holds byte 0x00 at offset 3") {
		t.Errorf("ReadToken of a binary file = %v, want an error naming the file and the byte", err)
	}
	t.Setenv(TokenEnv, "")
	if _, err := ReadToken(""); err == nil {
		t.Error("no token was accepted")
	}
	// A named pipe no one writes to is an empty token at once (it
	// blocked augur monitor in open, SIGINT or not), and /dev/zero too
	// long a token.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{fifo: "empty token", "/dev/zero": "not a token"} {
		err := within(t, 5*time.Second, fifo, func() error { _, err := ReadToken(file); return err })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadToken(%s) = %v, want an error saying %q", file, err, want)
		}
	}
}

// within runs f, and fails t if it has not returned after d; it then
// unblocks f by opening the named pipe fifo for writing, and closing it,
// until f returns.
func within(t *testing.T, d time.Duration, fifo string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Errorf("still blocked after %v", d)
	}
	for {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestLoadTLS(t *testing.T) {
	if c, err := LoadTLS("", ""); c != nil || err != nil {
		t.Errorf("LoadTLS without files = %v, %v", c, err)
	}
	if _, err := LoadTLS("cert.pem", ""); err == nil {
		t.Error("a certificate without a key was accepted")
	}
	if _, err := LoadTLS(filepath.Join(t.TempDir(), "no.pem"), "no.pem"); err == nil {
		t.Error("missing files were accepted")
	}
	// What is not a regular file, or is larger than a PEM file can be, is
	// refused before it is read: a named pipe blocked the monitor, and
	// /dev/zero or a sparse file of 8 GiB were read until memory ran out.
	dir := t.TempDir()
	fifo, big := filepath.Join(dir, "fifo.pem"), filepath.Join(dir, "big.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 8<<30); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{fifo: "is a named pipe", "/dev/zero": "is a device", big: "more than"} {
		err := within(t, 5*time.Second, fifo, func() error { _, err := LoadTLS(file, file); return err })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadTLS(%s) = %v, want an error saying %q", file, err, want)
		}
	}
}

func TestListen(t *testing.T) {
	ln, url, warning, err := Listen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if url != "http://"+ln.Addr().String() || warning != "" {
		t.Errorf("Listen on loopback = %q, warning %q", url, warning)
	}
	if _, _, _, err := Listen("127.0.0.1:-1", nil); err == nil {
		t.Error("a bad address was accepted")
	}
	// Beyond loopback, plain HTTP is warned of, HTTPS not.
	for _, tt := range []struct {
		tls     *tls.Config
		scheme  string
		warning bool
	}{{nil, "http://", true}, {&tls.Config{}, "https://", false}} {
		ln, url, warning, err := Listen("0.0.0.0:0", tt.tls)
		if err != nil {
			t.Skip("cannot listen beyond loopback:", err)
		}
		ln.Close()
		if !strings.HasPrefix(url, tt.scheme) || (warning != "") != tt.warning {
			t.Errorf("Listen(0.0.0.0:0, tls %v) = %q, warning %q", tt.tls != nil, url, warning)
		}
	}
}
