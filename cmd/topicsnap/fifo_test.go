package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestSilentFIFOInterrupted: a file the user names (sql -f, --config, a
// PEM path) that is a FIFO whose writer is open and never writes held the
// command without end, and Ctrl-C did not reach it (two SIGINTs left it
// running). Now the read ends with the context: exit 130, promptly.
func TestSilentFIFOInterrupted(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "snap")
	if _, err := catalog.Create(dir); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer, open and silent
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sslProps := filepath.Join(root, "ssl.properties")
	os.WriteFile(sslProps, []byte("bootstrap.servers=127.0.0.1:1\nsecurity.protocol=SSL\nssl.ca.location="+fifo+"\n"), 0o600)
	certProps := filepath.Join(root, "cert.properties")
	os.WriteFile(certProps, []byte("bootstrap.servers=127.0.0.1:1\nsecurity.protocol=SSL\nssl.certificate.location="+fifo+"\nssl.key.location="+fifo+"\n"), 0o600)
	dumpArgs := []string{"dump", "--topic", "t", "--dir", filepath.Join(root, "out")}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"sql", "--dir", dir, "-f", fifo}, exitInterrupted},
		{append(dumpArgs, "--config", fifo), exitInterrupted},
		{append(dumpArgs, "--config", sslProps), exitInterrupted},
		{append(dumpArgs, "--config", certProps), exitInterrupted},
		{append(dumpArgs, "--brokers", "127.0.0.1:1", "--schema-registry", "https://127.0.0.1:1", "--schema-registry-ca", fifo), exitInterrupted},
		// serve's Ctrl-C is its normal stop (0), as it is once serving
		{[]string{"serve", "--dir", dir, "--addr", "127.0.0.1:0", "--tls-cert", fifo, "--tls-key", fifo}, 0},
	} {
		args := tc.args
		t.Run(strings.Join(args[:1], " ")+" "+strings.Join(args[len(args)-2:], " "), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var out, errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, args, strings.NewReader(""), &out, &errb) }()
			time.Sleep(300 * time.Millisecond)
			cancel() // Ctrl-C
			select {
			case code := <-done:
				if code != tc.want {
					t.Fatalf("%v: exit %d, stderr %q; want %d", args, code, errb.String(), tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%v: still reading the FIFO 10 s after Ctrl-C", args)
			}
		})
	}
}

// TestConfigFromAPipe: dump --config <(…) read its config for the
// registry (the memory limit), then again for the client, and the second
// read found the pipe empty: 'no brokers: pass --brokers HOST:PORT …',
// exit 2. The pipe's bytes are read once and kept.
func TestConfigFromAPipe(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() { pw.WriteString("bootstrap.servers=" + c.ListenAddrs()[0] + "\n"); pw.Close() }()
	dir := filepath.Join(t.TempDir(), "snap")
	code, out, errs := cli(t, "dump", "--config", fmt.Sprintf("/dev/fd/%d", pr.Fd()), "--topic", "t", "--dir", dir)
	if code != 0 || !strings.Contains(out, "dumped 0 records") {
		t.Fatalf("dump --config of a pipe: exit %d, %q %q", code, out, errs)
	}
}
