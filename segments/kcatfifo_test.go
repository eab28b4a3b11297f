package segments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKcatFileFIFOWithoutWriter: import --kcat naming a FIFO no one writes
// to waited in open(2) for a writer, for ever, and no Ctrl-C reached it
// (two SIGINTs left it running). It is refused at once (exit 13), as a FIFO
// with a writer already was, and --dir is left as it was.
func TestKcatFileFIFOWithoutWriter(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "kcat.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "snap")
	done := make(chan error, 1)
	go func() {
		_, err := ImportKcat(t.Context(), KcatOptions{Dir: dir, File: fifo, Topic: "t"})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("import --kcat FIFO: %v, want ErrBadInput naming it", err)
		}
	case <-time.After(10 * time.Second):
		// Let the open go (a writer comes), so the test ends.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("import --kcat of a FIFO without a writer still waited after 10 s")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--dir was made or touched: %v", err)
	}
}
