package monitor

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/augur-dev/augur/internal/infile"
)

// TokenEnv is the environment variable that holds the bearer token when
// no token file is given, to the monitor and to its clients alike.
const TokenEnv = "AUGUR_MONITOR_TOKEN"

// maxTokenFile bounds the token file read.
const maxTokenFile = 64 << 10

// maxPEMFile bounds a certificate or key file read: a chain of a few
// certificates takes kilobytes.
const maxPEMFile = 1 << 20

// ReadToken returns the bearer token in file, else in $AUGUR_MONITOR_TOKEN
// if file is "". An empty token is an error: the monitor does not serve
// without one.
func ReadToken(file string) (string, error) {
	if file == "" {
		if tok := strings.TrimSpace(os.Getenv(TokenEnv)); tok != "" {
			return tok, checkToken("$"+TokenEnv, tok)
		}
		return "", fmt.Errorf("no token: give --token-file F or set $%s (requests must carry it as a bearer token)", TokenEnv)
	}
	// A pipe is allowed (--token-file <(pass show augur)); the size is
	// bounded, since a token is a line. It is opened without blocking, as
	// opening a named pipe would until a writer comes: without one it
	// reads as empty.
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", file, err)
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("%s: more than %d bytes: not a token", file, maxTokenFile)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%s: empty token", file)
	}
	return tok, checkToken(file, tok)
}

// checkToken returns an error, naming where the token came from, if tok
// holds a byte that a bearer token in an HTTP header cannot carry
// (printable ASCII but the space): a binary file given as the token
// failed only at the first request, with net/http's words.
func checkToken(from, tok string) error {
	for i := range len(tok) {
		if c := tok[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%s: the token holds byte 0x%02x at offset %d: a bearer token is printable ASCII without spaces", from, c, i)
		}
	}
	return nil
}

// ParseSize parses a positive size in bytes such as 8MiB, 512KiB, 100kB
// or 4096.
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"KB", 1e3}, {"B", 1}}
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q (want a positive number of bytes, e.g. 8MiB)", s)
	}
	return n * mult, nil
}

// LoadTLS returns the configuration that serves HTTPS with the PEM
// certificate and key files cert and key, or nil if both are "".
func LoadTLS(cert, key string) (*tls.Config, error) {
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if cert == "" {
		return nil, nil
	}
	var pem [2][]byte
	for i, file := range []string{cert, key} {
		var err error
		if pem[i], err = infile.ReadFile(file, maxPEMFile); err != nil {
			return nil, fmt.Errorf("TLS: %w", err)
		}
	}
	c, err := tls.X509KeyPair(pem[0], pem[1])
	if err != nil {
		return nil, fmt.Errorf("TLS: %s and %s: %w", cert, key, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{c}, MinVersion: tls.VersionTLS12}, nil
}

// Listen listens on the TCP address addr for [Serve]. It returns the
// listener, the URL served there (https when tlsConfig is not nil) and,
// for plain HTTP beyond loopback, a warning that the token and the records
// travel in clear.
func Listen(addr string, tlsConfig *tls.Config) (ln net.Listener, url, warning string, err error) {
	if ln, err = net.Listen("tcp", addr); err != nil {
		return nil, "", "", err
	}
	addr = ln.Addr().String()
	if tlsConfig != nil {
		return ln, "https://" + addr, "", nil
	}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			warning = fmt.Sprintf("plain HTTP on %s, beyond loopback: the token and the records travel in clear (use --tls-cert and --tls-key)", addr)
		}
	}
	return ln, "http://" + addr, warning, nil
}
