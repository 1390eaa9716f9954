package monitor

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned returns a certificate for 127.0.0.1 and a pool that trusts
// it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "augur monitor test"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// TestServeTLS serves over TLS, takes a push, and shuts down when its
// context ends: the last cut is checked, the stream ends and the
// recording is in place.
func TestServeTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	rec := filepath.Join(t.TempDir(), "live.trace")
	var out syncBuffer
	m := newTest(t, Options{Record: rec, Violations: &out})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, ln, m, ServeOptions{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	}()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	base := "https://" + ln.Addr().String()

	stream, _ := http.NewRequest("GET", base+"/v1/violations", nil)
	stream.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(stream)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(resp.Body)
		lines <- string(b)
	}()

	// The cut at 3 is complete once n1 pushed past it, and is checked
	// at once.
	req, _ := http.NewRequest("POST", base+"/v1/records", strings.NewReader(twoLeaders))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	pr, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(pr.Body)
	pr.Body.Close()
	if pr.StatusCode != 200 || string(body) != `{"records":4,"late":0,"cuts":3}`+"\n" {
		t.Fatalf("push: %s %s", pr.Status, body)
	}
	if r, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		r.Body.Close()
		if r.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP on the TLS listener: %s", r.Status)
		}
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return")
	}
	if s := <-lines; strings.Count(s, "\n") != 1 || !strings.Contains(s, `"snapshot":2,"ts":3`) {
		t.Errorf("stream: %q", s)
	}
	if !strings.Contains(out.String(), `"snapshot":2,"ts":3`) {
		t.Errorf("output: %q", out.String())
	}
	if _, err := m.Push([]byte(twoLeaders)); err == nil || err.(*PushError).Status != 503 {
		t.Errorf("push after shutdown: %v", err)
	}
}
