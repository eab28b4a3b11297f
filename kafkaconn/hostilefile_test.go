package kafkaconn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/safefile"
)

// TestConfigFileIsBounded: --config naming a device, a FIFO or a file past
// the bound is refused at once. Before, /dev/zero was read without end (4 GB
// of memory in 4 s) and a FIFO waited for a writer.
func TestConfigFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.properties")
	if err := os.WriteFile(big, []byte("bootstrap.servers=h:9092\n#"+strings.Repeat("x", 2<<20)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want error
	}{
		{"/dev/zero", safefile.ErrNotRegular},
		{fifo, safefile.ErrNotRegular},
		{big, safefile.ErrTooLarge},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := readProperties(tc.path); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) {
					t.Errorf("read %s: %v, want %v naming the file", tc.path, err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("read %s did not return within 10 s", tc.path)
			}
		})
	}
}
