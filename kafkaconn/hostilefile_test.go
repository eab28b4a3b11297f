package kafkaconn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/safefile"
)

// TestConfigFileIsBounded: --config naming /dev/zero or a file past the
// bound is refused at once, a folder is not read, and a pipe (as a shell's
// <(...) hands one over) is read. Before, /dev/zero was read without end
// (4 GB of memory in 4 s).
func TestConfigFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		pw.WriteString("bootstrap.servers=h:9092\n")
		pw.Close()
	}()
	pipe := fmt.Sprintf("/proc/self/fd/%d", pr.Fd())
	if props, err := readProperties(t.Context(), pipe); err != nil || props["bootstrap.servers"] != "h:9092" {
		t.Errorf("read a pipe: %v %v", props, err)
	}
	pr.Close()
	big := filepath.Join(dir, "big.properties")
	if err := os.WriteFile(big, []byte("bootstrap.servers=h:9092\n#"+strings.Repeat("x", 2<<20)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want error
	}{
		{"/dev/zero", safefile.ErrTooLarge},
		{dir, safefile.ErrNotRegular},
		{big, safefile.ErrTooLarge},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := readProperties(t.Context(), tc.path); done <- err }()
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
