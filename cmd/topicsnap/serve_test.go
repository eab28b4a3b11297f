package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeTLSFlags: the TLS flags go together, and a server off loopback
// without TLS warns on stderr that the token travels in clear.
func TestServeTLSFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	cases := []struct {
		name string
		args []string
		code int
		text string
	}{
		{"cert without key", []string{"serve", "--dir", missing, "--tls-cert", "c.pem"}, exitError, "--tls-cert and --tls-key go together"},
		{"key without cert", []string{"serve", "--dir", missing, "--tls-key", "k.pem"}, exitError, "--tls-cert and --tls-key go together"},
		{"unreadable certificate", []string{"serve", "--dir", missing, "--tls-cert", "c.pem", "--tls-key", "k.pem"}, -1, "load TLS certificate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := cli(t, c.args...)
			if code == 0 || (c.code >= 0 && code != c.code) || !strings.Contains(errs, c.text) {
				t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.text)
			}
		})
	}
	// With TLS off loopback there is no warning (the certificate is
	// unreadable here, so the server does not start).
	_, _, errs := cli(t, "serve", "--dir", missing, "--addr", "0.0.0.0:0", "--token", "t", "--tls-cert", "c.pem", "--tls-key", "k.pem")
	if strings.Contains(errs, "in clear") {
		t.Errorf("a warning with TLS: %q", errs)
	}
	// Without TLS there is one; the context is done before the server
	// starts, so serve returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	run(ctx, []string{"serve", "--dir", t.TempDir(), "--addr", "0.0.0.0:0", "--token", "t"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), "Warning:") || !strings.Contains(errb.String(), "travel in clear") {
		t.Errorf("off loopback without TLS: stderr %q", errb.String())
	}
}
