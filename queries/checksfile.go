package queries

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// A folder remembers the checks people configured for it: checks.json, at
// the folder's top, lists checks with the options they run with on a
// topic. `demo` writes it, `check NAME ... --remember` adds to it, and
// `check`, `check all` and the server's pages and API read it: an option a
// request leaves unset is taken from the entry for that check and topic,
// so the overview shows `missing` and `reset` with their verdicts rather
// than "needs options", and the command line, the pages and the API give
// the same answer. Entries come first on the overview, in the file's order.
//
// The file is read as hostile input: at most MaxChecksFileBytes, one JSON
// document with no unknown fields, at most MaxConfiguredChecks entries,
// each naming a known check and topic, only options that check takes, each
// at most MaxOptionText bytes and valid as the option's own parser reads
// it, and `against` a path inside the folder. A file that breaks any of
// that is an error naming the file and the fix, never half read.

// ChecksFileName is the file, at the folder's top.
const ChecksFileName = "checks.json"

// Bounds of a checks file.
const (
	MaxChecksFileBytes  = 256 << 10
	MaxConfiguredChecks = 200
	MaxOptionText       = 4096
)

// ErrChecksFile marks a checks file that cannot be read or used: a
// damaged file of the folder's, exit 9 as a damaged manifest is.
var ErrChecksFile = exit.New(exit.BadFolder, "bad checks file",
	"fix or remove the folder's checks.json; topicsnap check NAME --topic T ... --remember writes a good one")

// ConfiguredCheck is one entry: a check, its topic, and its options as a
// user would type them, by option name (CheckOptionSet).
type ConfiguredCheck struct {
	Check   string            `json:"check"`
	Topic   string            `json:"topic"`
	Options map[string]string `json:"options"`
}

// checksFile is the file's document.
type checksFile struct {
	FormatVersion int               `json:"format_version"`
	Checks        []ConfiguredCheck `json:"checks"`
}

// checksFileVersion is the format this code writes and reads.
const checksFileVersion = 1

func checksFileErr(dir, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrChecksFile, filepath.Join(dir, ChecksFileName), fmt.Sprintf(format, args...))
}

// ReadChecksFile reads dir's checks file; none is no entries and no error.
func ReadChecksFile(dir string) ([]ConfiguredCheck, error) {
	b, err := safefile.ReadFileIn(dir, ChecksFileName, MaxChecksFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, checksFileErr(dir, "%v", err)
	}
	return parseChecksFile(dir, b)
}

func parseChecksFile(dir string, b []byte) ([]ConfiguredCheck, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f checksFile
	if err := dec.Decode(&f); err != nil {
		return nil, checksFileErr(dir, "not the JSON of a checks file: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, checksFileErr(dir, "more than one JSON document")
	}
	if f.FormatVersion != checksFileVersion {
		return nil, checksFileErr(dir, "format_version %d, this topicsnap reads %d", f.FormatVersion, checksFileVersion)
	}
	if len(f.Checks) > MaxConfiguredChecks {
		return nil, checksFileErr(dir, "%d checks, at most %d", len(f.Checks), MaxConfiguredChecks)
	}
	seen := map[string]bool{}
	for i, c := range f.Checks {
		if err := c.validate(); err != nil {
			return nil, checksFileErr(dir, "entry %d: %v", i+1, err)
		}
		k := c.Check + "\x00" + c.Topic
		if seen[k] {
			return nil, checksFileErr(dir, "entry %d: check %s on topic %.300q is configured twice", i+1, c.Check, c.Topic)
		}
		seen[k] = true
	}
	return f.Checks, nil
}

// validate checks an entry on its own: the check, the topic's name, and
// every option as its parser reads it (the file path only for its shape:
// Apply finds the file).
func (c ConfiguredCheck) validate() error {
	chk, ok := LookupCheck(c.Check)
	if !ok {
		return fmt.Errorf("unknown check %.100q: use one of %s", c.Check, strings.Join(CheckNames, ", "))
	}
	if !catalog.ValidTopicName(c.Topic) {
		return fmt.Errorf("check %s: topic %.300q is not a topic name", c.Check, c.Topic)
	}
	var scratch CheckOptions
	for _, name := range slices.Sorted(maps.Keys(c.Options)) {
		raw := c.Options[name]
		if !chk.Takes(name) {
			return fmt.Errorf("check %s takes no option %.100q: it takes %s", c.Check, name, strings.Join(chk.Options, ", "))
		}
		if len(raw) > MaxOptionText {
			return fmt.Errorf("check %s: option %s is %d bytes, at most %d", c.Check, name, len(raw), MaxOptionText)
		}
		op := CheckOptionSet[name]
		if op.Kind == KindFile {
			if _, err := localPath(raw); err != nil {
				return fmt.Errorf("check %s: option %s: %w", c.Check, name, err)
			}
			continue
		}
		if err := op.Set(&scratch, raw); err != nil {
			return fmt.Errorf("check %s: %w", c.Check, err)
		}
	}
	return nil
}

// localPath is p, a path relative to the folder that stays inside it.
func localPath(p string) (string, error) {
	rel := filepath.Clean(filepath.FromSlash(p))
	if p == "" || filepath.IsAbs(p) || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%.300q: give a file inside the snapshot folder, as a path relative to it", p)
	}
	return rel, nil
}

// FileInside is the path of p, a file named relative to the snapshot
// folder dir, once its links are resolved: a regular file inside dir,
// spelt under dir as the engine is confined to it. An absolute path, one
// with "..", a link that leads out of the folder and anything but a
// regular file are refused: a checks file or a request names a file of
// the folder, and a folder handed over could otherwise name /etc/passwd
// through a link. A file that is not there is an error wrapping
// fs.ErrNotExist.
func FileInside(dir, p string) (string, error) {
	rel, err := localPath(p)
	if err != nil {
		return "", errors.New("give a file inside the snapshot folder, as a path relative to it")
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", errors.New("the snapshot folder cannot be read")
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if err != nil {
		return "", noFileError(rel)
	}
	inside, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(inside) {
		return "", fmt.Errorf("%s leads out of the snapshot folder", rel)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", rel)
	}
	return filepath.Join(dir, inside), nil
}

// noFileError is a file a checks file or a request names that the folder
// does not hold; it is fs.ErrNotExist.
type noFileError string

func (e noFileError) Error() string {
	return fmt.Sprintf("no file %s in the snapshot folder", string(e))
}
func (e noFileError) Is(target error) bool { return target == fs.ErrNotExist }

// Configured returns the entry for check on topic.
func Configured(cs []ConfiguredCheck, check, topic string) (ConfiguredCheck, bool) {
	for _, c := range cs {
		if c.Check == check && c.Topic == topic {
			return c, true
		}
	}
	return ConfiguredCheck{}, false
}

// Differs names the first option o gives that says what the check asks
// (Option.Asks: an id, a filter, a file, a match, a group) with another
// value than c remembers;
// "" when none does. Such an o asks another question than c: filling its
// unset options from c would mix the two (missing against another file
// with the remembered file's --where and --by answered a question nobody
// asked). dir is the folder c's file options are relative to.
func (c ConfiguredCheck) Differs(dir string, o CheckOptions) string {
	chk, ok := LookupCheck(c.Check)
	if !ok {
		return ""
	}
	for _, name := range chk.Options {
		raw, ok := c.Options[name]
		op := CheckOptionSet[name]
		given := op.Text(o)
		if !ok || given == "" || !op.Asks {
			continue
		}
		if op.Kind == KindFile {
			if rel, err := localPath(raw); err == nil && samePath(filepath.Join(dir, rel), given) {
				continue
			}
			return name
		}
		if strings.TrimSpace(raw) != strings.TrimSpace(given) {
			return name
		}
	}
	return ""
}

// samePath reports whether a and b name the same file: by their absolute,
// cleaned paths, or those with their links resolved (the server names a
// file inside the folder by its resolved path).
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 != nil || err2 != nil {
		return false
	}
	if aa == bb {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(aa)
	rb, err2 := filepath.EvalSymlinks(bb)
	return err1 == nil && err2 == nil && ra == rb
}

// FillFrom sets, in o, each option of c that o leaves unset, and returns
// the names it set. A file option becomes the path inside dir. When o asks
// another question than c (Differs), it sets nothing and returns the
// option that differs.
func (c ConfiguredCheck) FillFrom(dir string, o *CheckOptions) (set []string, differs string, err error) {
	chk, ok := LookupCheck(c.Check)
	if !ok {
		return nil, "", fmt.Errorf("%w: unknown check %s", ErrChecksFile, c.Check)
	}
	if d := c.Differs(dir, *o); d != "" {
		return nil, d, nil
	}
	for _, name := range chk.Options {
		raw, ok := c.Options[name]
		op := CheckOptionSet[name]
		if !ok || op.Text(*o) != "" {
			continue
		}
		if op.Kind == KindFile {
			rel, err := localPath(raw)
			if err != nil {
				return nil, "", fmt.Errorf("%w: check %s: option %s: %w", ErrChecksFile, c.Check, name, err)
			}
			// Read as the server reads it: a link out of the folder is
			// refused here too (a missing file is the check's to name).
			in, err := FileInside(dir, rel)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				raw = filepath.Join(dir, rel)
			case err != nil:
				return nil, "", fmt.Errorf("%w: check %s: option %s: %w", ErrChecksFile, c.Check, name, err)
			default:
				raw = in
			}
		}
		if err := op.Set(o, raw); err != nil {
			return nil, "", fmt.Errorf("%w: check %s: %w", ErrChecksFile, c.Check, err)
		}
		set = append(set, name)
	}
	return set, "", nil
}

// ConfiguredFrom is the entry that remembers check with options o in dir:
// every option the check takes that o sets, as a user would type it; a
// file inside dir as its path relative to dir.
func ConfiguredFrom(dir, check string, o CheckOptions) (ConfiguredCheck, error) {
	chk, ok := LookupCheck(check)
	if !ok {
		return ConfiguredCheck{}, fmt.Errorf("%w: unknown check %s", ErrBadCheck, check)
	}
	c := ConfiguredCheck{Check: check, Topic: o.Topic, Options: map[string]string{}}
	for _, name := range chk.Options {
		op := CheckOptionSet[name]
		v := op.Text(o)
		if v == "" {
			continue
		}
		if op.Kind == KindFile {
			rel, err := relInside(dir, v)
			if err != nil {
				return ConfiguredCheck{}, fmt.Errorf("remember %s: %w", name, err)
			}
			v = rel
		}
		c.Options[name] = v
	}
	if err := c.validate(); err != nil {
		return ConfiguredCheck{}, fmt.Errorf("%w: %w", ErrChecksFile, err)
	}
	return c, nil
}

// relInside is path p relative to dir, when p lies inside dir.
func relInside(dir, p string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absP, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absP)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is outside the snapshot folder %s: copy it into the folder to remember it", p, dir)
	}
	return filepath.ToSlash(rel), nil
}

// RememberChecks writes cs into dir's checks file, each replacing the
// entry for the same check and topic (in its place) or added at the end.
// A checks file that cannot be read is an error, never overwritten. The
// file is written atomically: a temp file, fsynced, renamed over it, the
// folder fsynced.
func RememberChecks(dir string, cs ...ConfiguredCheck) error {
	have, err := ReadChecksFile(dir)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if err := c.validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrChecksFile, err)
		}
		i := slices.IndexFunc(have, func(h ConfiguredCheck) bool { return h.Check == c.Check && h.Topic == c.Topic })
		if i >= 0 {
			have[i] = c
		} else {
			have = append(have, c)
		}
	}
	if len(have) > MaxConfiguredChecks {
		return checksFileErr(dir, "%d checks, at most %d", len(have), MaxConfiguredChecks)
	}
	b, err := json.MarshalIndent(checksFile{FormatVersion: checksFileVersion, Checks: have}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", ChecksFileName, err)
	}
	b = append(b, '\n')
	if len(b) > MaxChecksFileBytes {
		return checksFileErr(dir, "it would be %d bytes, at most %d", len(b), MaxChecksFileBytes)
	}
	return catalog.WriteFileAtomic(filepath.Join(dir, ChecksFileName), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
