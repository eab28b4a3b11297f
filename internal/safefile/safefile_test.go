package safefile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileIn(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(name string, n int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.json", 10)
	write("big.json", 101)
	if err := os.WriteFile(filepath.Join(outside, "x.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.json"), filepath.Join(dir, "escape.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("sub/in.json", 3)
	for _, c := range []struct {
		name string
		want error // nil: read
		n    int
	}{
		{"small.json", nil, 10},
		{"sub/in.json", nil, 3},
		{"big.json", ErrTooLarge, 0},
		{"zero.json", nil, -1}, // a link out of the folder: refused by os.Root
		{"fifo.json", ErrNotRegular, 0},
		{"sub", ErrNotRegular, 0},
		{"escape.json", nil, -1}, // refused by os.Root, with its own error
		{"../x.json", nil, -1},
		{"missing.json", os.ErrNotExist, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan struct{})
			var b []byte
			var err error
			go func() { b, err = ReadFileIn(dir, c.name, 100); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFileIn(%s) blocked", c.name)
			}
			switch {
			case c.n == -1:
				if err == nil {
					t.Fatalf("ReadFileIn(%s) read a file outside the folder", c.name)
				}
			case c.want == nil:
				if err != nil || len(b) != c.n {
					t.Fatalf("ReadFileIn(%s) = %d bytes, %v; want %d bytes", c.name, len(b), err, c.n)
				}
			case !errors.Is(err, c.want):
				t.Fatalf("ReadFileIn(%s) = %v; want %v", c.name, err, c.want)
			}
		})
	}
}

func TestReadFileRefusesDevice(t *testing.T) {
	if _, err := ReadFile("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadFile(/dev/zero) = %v; want ErrNotRegular", err)
	}
}

// TestFolderThatIsNotAFolder: a FIFO, a device, a file or a link to one
// given as the folder is refused at once. os.OpenRoot opened a FIFO as a
// file and waited for a writer: `topicsnap ls --dir FIFO` hung, deaf to
// Ctrl-C.
func TestFolderThatIsNotAFolder(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, folder := range []string{fifo, link, file, "/dev/zero"} {
		t.Run(filepath.Base(folder), func(t *testing.T) {
			done := make(chan error, 2)
			go func() {
				r, err := OpenRoot(folder)
				if err == nil {
					r.Close()
				}
				done <- err
			}()
			go func() { _, err := ReadFileIn(folder, "topicsnap.json", 100); done <- err }()
			for range 2 {
				select {
				case err := <-done:
					if !errors.Is(err, syscall.ENOTDIR) {
						t.Fatalf("open %s as a folder: %v; want ENOTDIR", folder, err)
					}
					if !strings.Contains(err.Error(), folder+":") {
						t.Fatalf("error %q does not name %s as given", err, folder)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("opening %s as a folder blocked", folder)
				}
			}
		})
	}
	// A folder still opens, given with or without a trailing separator.
	for _, d := range []string{dir, dir + "/"} {
		r, err := OpenRoot(d)
		if err != nil {
			t.Fatalf("OpenRoot(%s): %v", d, err)
		}
		if _, err := r.Stat("file"); err != nil {
			t.Fatalf("Stat(file) in %s: %v", d, err)
		}
		r.Close()
	}
}

// TestReadNamedSilentFIFO: a FIFO whose writer is open and never writes
// held ReadNamed without end, and a Ctrl-C (ctx) did not reach it.
func TestReadNamedSilentFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer, open and silent
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct {
		name  string
		early bool // ctx ended before the read begins
	}{{"cancelled while waiting", false}, {"cancelled before", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			if tc.early {
				cancel()
			} else {
				time.AfterFunc(200*time.Millisecond, cancel)
			}
			defer cancel()
			done := make(chan error, 1)
			go func() { _, err := ReadNamed(ctx, fifo, MaxText); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "fifo") {
					t.Fatalf("ReadNamed: %v, want context.Canceled naming the file", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("ReadNamed of a silent FIFO did not end with its context")
			}
		})
	}
	// A FIFO that does send its end is still read whole (the writer
	// closes once the read has begun: its bytes wait in the pipe).
	w.WriteString("SELECT 1")
	time.AfterFunc(200*time.Millisecond, func() { w.Close() })
	b, err := ReadNamed(t.Context(), fifo, MaxText)
	if err != nil || string(b) != "SELECT 1" {
		t.Fatalf("ReadNamed of a FIFO that writes: %q %v", b, err)
	}
}

// TestReadNamedInheritedTwice: a descriptor the shell hands over
// (--config <(…), /dev/fd/N) gives its bytes once; a command reads its
// config several times (the registry, the bucket, each client), and the
// second read found it empty ('no brokers'). It reads the same bytes each
// time now; a FIFO of the file system is read afresh.
func TestReadNamedInheritedTwice(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() { pw.WriteString("bootstrap.servers=h:9092\n"); pw.Close() }()
	path := fmt.Sprintf("/proc/self/fd/%d", pr.Fd())
	for i := range 3 {
		b, err := ReadNamed(t.Context(), path, MaxText)
		if err != nil || string(b) != "bootstrap.servers=h:9092\n" {
			t.Fatalf("read %d of %s: %q %v", i+1, path, b, err)
		}
	}
	if _, err := ReadNamed(t.Context(), path, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("kept bytes past a smaller bound: %v", err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"one", "two"} {
		// A reader held open keeps what was written once the writer is
		// gone, so ReadNamed finds the bytes and then the end.
		keep, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(want)
		w.Close()
		b, err := ReadNamed(t.Context(), fifo, MaxText)
		keep.Close()
		if err != nil || string(b) != want {
			t.Fatalf("read the FIFO: %q %v, want %q", b, err, want)
		}
	}
}
