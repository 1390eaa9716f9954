package monitor

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	t.Setenv(TokenEnv, "")
	if _, err := ReadToken(""); err == nil {
		t.Error("no token was accepted")
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
