package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/exit"
)

// TestCompactUnreadableTopicCostsItsTopic: a topic compact cannot read
// costs that topic: it is named (warned in Skipped, and in the error at
// the end, with its exit code), and the other topics are compacted. Before,
// a topic folder that is a FIFO named with --topic stopped the whole run
// ("list DIR/topic=aaa: open …: not a directory", exit 2, nothing
// compacted); without --topic it, or a link, was left out silently (exit
// 0); and a --topic the folder does not hold compacted nothing, exit 0.
func TestCompactUnreadableTopicCostsItsTopic(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, topicDir string)
		topics []string
		want   error
		code   exit.Code
		says   string
	}{
		{"FIFO, every topic", func(t *testing.T, p string) { mustNil(t, syscall.Mkfifo(p, 0o644)) }, nil, ErrNotFolder, exit.BadFolder, "topic=aaa: not a folder, so topic aaa is left out"},
		{"FIFO, named", func(t *testing.T, p string) { mustNil(t, syscall.Mkfifo(p, 0o644)) }, []string{"aaa", "events"}, ErrNotFolder, exit.BadFolder, "topic=aaa: not a folder, so topic aaa is left out"},
		{"file, named", func(t *testing.T, p string) { mustNil(t, os.WriteFile(p, []byte("x"), 0o644)) }, []string{"aaa", "events"}, ErrNotFolder, exit.BadFolder, "topic=aaa: not a folder, so topic aaa is left out"},
		{"link, every topic", func(t *testing.T, p string) { mustNil(t, os.Symlink(t.TempDir(), p)) }, nil, ErrNotFolder, exit.BadFolder, "topic=aaa: not a folder but a symbolic link"},
		{"not in the folder", func(t *testing.T, p string) {}, []string{"event", "events"}, ErrNoTopic, exit.UnknownTopic, `the folder holds no topic "event" (did you mean "events"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for p := range int32(2) {
				writeSmallFiles(t, d, TopicPartition{"events", p}, 4, 10, false, false)
			}
			tc.make(t, filepath.Join(d.Path, "topic=aaa"))
			st, err := d.Compact(t.Context(), CompactOptions{Topics: tc.topics, MinAge: time.Hour})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v; want %v", err, tc.want)
			}
			if code, _ := exit.Of(err); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), "1 topic not compacted, the others were") {
				t.Errorf("err = %v; want it to say %q", err, tc.says)
			}
			if len(st.Skipped) != 1 || !strings.Contains(st.Skipped[0], tc.says) {
				t.Errorf("skipped %q; want the topic named", st.Skipped)
			}
			if st.Written != 2 || st.Merged != 8 {
				t.Fatalf("stats %+v; want the other topic's 2 partitions merged (2 written from 8)", st)
			}
		})
	}
}
