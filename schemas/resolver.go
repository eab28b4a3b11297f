package schemas

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// Options configures a Resolver.
type Options struct {
	Folder    *catalog.Dir // where schemas are stored and looked up first
	Registry  *Registry    // nil: no registry
	SchemaDir string       // --schema: files named ID.avsc, ID.proto, ID.json
	// Warn is told once of a registry that cannot be reached or refuses the
	// credentials; the dump goes on.
	Warn func(string)
}

// Failure says why a value was not decoded. Reason is the text of the
// value_decode_error column; Err, when set, is the cause for errors.Is and
// errors.As (ErrSchemaTooLarge, ErrSchemaTooDeep, ErrBadAnswer,
// ErrBadSchema, ErrUnreadableSchema, ErrRegistryUnreachable,
// ErrRegistryRefused, an *sr.ResponseError, ...).
type Failure struct {
	ID     int
	Reason string
	Err    error
}

func (f *Failure) Error() string { return f.Reason }

// Unwrap returns the cause.
func (f *Failure) Unwrap() error { return f.Err }

// decoder reads one schema's payloads into JSON appended to buf.
type decoder interface {
	decode(payload, buf []byte) ([]byte, error)
}

// fieldsDecoder is a decoder that can say where a value's top-level fields
// lie in its JSON text (Avro records).
type fieldsDecoder interface {
	decodeFields(payload, buf []byte, vf *catalog.ValueFields) ([]byte, error)
}

type entry struct {
	dec decoder
	err *Failure
}

// Resolver finds writer schemas and decodes values with them. It is safe
// for concurrent use.
type Resolver struct {
	o     Options
	cl    *sr.Client
	local map[int]*catalog.Schema
	// localBad: the --schema files that could not be read, by id (each
	// costs its id), and by name the .proto imports that could not.
	localBad   map[int]error
	badImports map[string]error
	bare       map[string]*bareTopic // --schema TOPIC.avsc: the topic's values are bare Avro

	mu      sync.RWMutex
	entries map[int]*entry // every id met, decodable or not
	down    *Failure       // the registry could not be reached, or refused us
	// failed counts the ids the registry answered about with no schema
	// this run (unknown, not a schema, an HTTP error); serverErrs the ids
	// in a row it answered with 5xx (after asking again). Past
	// maxFailedIDs or maxServerErrorIDs the registry is not asked again
	// this run (see fetchFailure).
	failed, serverErrs int
	// failedWait: the time spent waiting for those answers.
	failedWait time.Duration
}

// maxFailedWait bounds the time a run waits for the registry's answers
// about ids it has no schema for: a registry that answers each in 9 s (its
// timeout is 10) would otherwise hold the dump for hours before
// maxFailedIDs. A variable for the tests.
var maxFailedWait = time.Minute

// maxFailedIDs bounds the ids a run asks the registry for in vain: each
// costs a request (4 ms each on Apicurio: 3,000 ids a producer made up
// took 11.6 s, a million would take an hour and a million requests).
// No topic of real schema ids comes near it.
const maxFailedIDs = 1000

// maxServerErrorIDs bounds the ids in a row a run asks for while the
// registry answers 5xx: each is asked three times, 1.25 s apart (20 ids
// took 26.3 s against a registry answering 500 to everything).
const maxServerErrorIDs = 3

// NewResolver reads the --schema folder and makes the registry client.
func NewResolver(ctx context.Context, o Options) (*Resolver, error) {
	r := &Resolver{o: o, entries: map[int]*entry{}}
	if o.Registry != nil {
		cl, err := o.Registry.client(ctx)
		if err != nil {
			return nil, err
		}
		r.cl = cl
	}
	if o.SchemaDir != "" {
		sd, err := readSchemaDir(o.SchemaDir)
		if err != nil {
			return nil, err
		}
		r.local, r.localBad, r.badImports, r.bare = sd.ids, sd.badIDs, sd.badImports, map[string]*bareTopic{}
		for topic, s := range sd.bare {
			if err := checkText("its text", s.Schema, false); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrBadRegistry, s.Source, err)
			}
			dec, err := newAvroDecoder(s.Schema, nil)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %s", ErrBadRegistry, s.Source, shortError(err))
			}
			r.bare[topic] = &bareTopic{schema: s, dec: dec}
		}
	}
	return r, nil
}

// SetWarn sets Options.Warn (a nil resolver ignores it).
func (r *Resolver) SetWarn(warn func(string)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.o.Warn = warn
	r.mu.Unlock()
}

// Active reports whether the resolver has any source of schemas besides the
// folder: without one, a dump leaves values as they are.
func (r *Resolver) Active() bool {
	return r != nil && (r.cl != nil || len(r.local) > 0 || len(r.localBad) > 0 || len(r.bare) > 0)
}

// bareTopic is the one Avro schema of a topic whose values carry no wire
// format header (registry-less Avro), from --schema DIR/TOPIC.avsc.
type bareTopic struct {
	schema *catalog.Schema
	dec    *avroDecoder
	stored sync.Once
	err    error
}

// Bare reports whether topic's values are bare Avro (--schema TOPIC.avsc).
func (r *Resolver) Bare(topic string) bool {
	if r == nil {
		return false
	}
	_, ok := r.bare[topic]
	return ok
}

// DecodeBare decodes a bare Avro value of topic with its one schema, which
// it stores in the folder first (schemas/topic=TOPIC.json).
func (r *Resolver) DecodeBare(ctx context.Context, topic string, value, buf []byte) ([]byte, *Failure) {
	return r.DecodeBareFields(ctx, topic, value, buf, nil)
}

// DecodeBareFields is DecodeBare that fills vf as DecodeFields does.
func (r *Resolver) DecodeBareFields(ctx context.Context, topic string, value, buf []byte, vf *catalog.ValueFields) ([]byte, *Failure) {
	if vf != nil {
		vf.Plan, vf.Spans, vf.Direct, vf.Plain = nil, vf.Spans[:0], 0, 0
	}
	b := r.bare[topic]
	b.stored.Do(func() {
		if r.o.Folder != nil {
			b.err = r.o.Folder.WriteTopicSchema(ctx, topic, b.schema)
		}
	})
	if b.err != nil {
		return buf, &Failure{Reason: fmt.Sprintf("the topic's schema (%s) not stored: %v", b.schema.Source, b.err), Err: b.err}
	}
	out, err := b.dec.decodeFields(value, buf, vf)
	if err != nil {
		return buf, &Failure{Reason: fmt.Sprintf("does not decode with the topic's schema (%s): %s", filepath.Base(b.schema.Source), shortError(err)), Err: err}
	}
	return out, nil
}

// Met returns the schema ids Decode was asked for, in order.
func (r *Resolver) Met() []int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var ids []int
	for id := range r.entries {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// Decode turns a value in the Confluent wire format into JSON text
// appended to buf. ok is false for a value that is not in the wire format
// (no magic byte): nothing to decode. A value that is but cannot be
// decoded returns a Failure saying why.
func (r *Resolver) Decode(ctx context.Context, value, buf []byte) (out []byte, id int, ok bool, fail *Failure) {
	return r.DecodeFields(ctx, value, buf, nil)
}

// DecodeFields is Decode that, given vf, also fills it with the writer
// schema's top-level fields and where each one's JSON value lies in the
// text appended (see catalog.ValueFields): what the dump's typed columns
// are made of. vf.Plan is left nil when the value is not an Avro record,
// or was not decoded.
func (r *Resolver) DecodeFields(ctx context.Context, value, buf []byte, vf *catalog.ValueFields) (out []byte, id int, ok bool, fail *Failure) {
	if vf != nil {
		vf.Plan, vf.Spans, vf.Direct, vf.Plain = nil, vf.Spans[:0], 0, 0
	}
	if len(value) < 5 || value[0] != 0 {
		return buf, 0, false, nil
	}
	id = int(binary.BigEndian.Uint32(value[1:5]))
	e := r.entry(ctx, id)
	if e.err != nil {
		return buf, id, true, e.err
	}
	var err error
	if fd, isFD := e.dec.(fieldsDecoder); isFD && vf != nil {
		out, err = fd.decodeFields(value[5:], buf, vf)
	} else {
		out, err = e.dec.decode(value[5:], buf)
	}
	if err != nil {
		return buf, id, true, &Failure{ID: id, Reason: fmt.Sprintf("does not decode with schema %d: %s", id, shortError(err)), Err: err}
	}
	return out, id, true, nil
}

// entry returns the decoder of id, loading it on first use.
func (r *Resolver) entry(ctx context.Context, id int) *entry {
	r.mu.RLock()
	e, ok := r.entries[id]
	r.mu.RUnlock()
	if ok {
		return e
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[id]; ok {
		return e
	}
	e = &entry{}
	s, fail := r.find(ctx, id)
	if fail != nil {
		e.err = fail
	} else if dec, err := r.compile(ctx, s); err != nil {
		e.err = &Failure{ID: id, Reason: fmt.Sprintf("schema %d does not compile: %s", id, shortError(err)), Err: fmt.Errorf("%w: %w", ErrBadSchema, err)}
	} else {
		e.dec = dec
	}
	// A registry that was down is asked again by the next dump, not by
	// the next record: the failure is kept for this run. So is any other
	// failure of this id, and only of this id.
	r.entries[id] = e
	return e
}

// find returns the stored schema of id, fetching and storing it (with its
// references) when the folder lacks it. r.mu is held.
func (r *Resolver) find(ctx context.Context, id int) (*catalog.Schema, *Failure) {
	if r.o.Folder != nil {
		s, err := r.o.Folder.ReadSchema(ctx, id)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, &Failure{ID: id, Reason: fmt.Sprintf("schema %d: stored copy unreadable: %s", id, shortError(err)), Err: fmt.Errorf("%w: %w", ErrUnreadableSchema, err)}
		}
	}
	if err, ok := r.localBad[id]; ok {
		return nil, &Failure{ID: id, Reason: fmt.Sprintf("schema %d: the --schema file is unreadable: %v", id, err), Err: fmt.Errorf("%w: %w", ErrUnreadableSchema, err)}
	}
	if s, ok := r.local[id]; ok {
		if err := r.store(ctx, s); err != nil {
			return nil, &Failure{ID: id, Reason: fmt.Sprintf("schema %d: %v", id, err), Err: err}
		}
		return s, nil
	}
	if r.cl == nil {
		if len(r.local) > 0 || len(r.localBad) > 0 {
			return nil, &Failure{ID: id, Reason: fmt.Sprintf("schema %d is not in the --schema folder", id)}
		}
		return nil, &Failure{ID: id, Reason: fmt.Sprintf("schema %d is not stored and no schema registry is configured", id)}
	}
	if r.down != nil {
		return nil, &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %s", id, r.down.Reason), Err: r.down.Err}
	}
	start := time.Now()
	s, err := r.fetch(ctx, id, 0)
	if err != nil {
		return nil, r.bounded(r.fetchFailure(ctx, id, err), time.Since(start))
	}
	r.serverErrs = 0
	return s, nil
}

// bounded counts f, an id's failure to be fetched after took, and when it
// is the registry's answer (not a registry that is down, nor an
// interrupted dump), stops asking it for the rest of the run past
// maxFailedIDs such ids, maxServerErrorIDs in a row answered 5xx, or
// maxFailedWait spent waiting for such answers. r.mu is held.
func (r *Resolver) bounded(f *Failure, took time.Duration) *Failure {
	var re *sr.ResponseError
	switch {
	case r.down != nil, errors.Is(f.Err, context.Canceled), errors.Is(f.Err, context.DeadlineExceeded):
		return f
	case errors.As(f.Err, &re) && re.StatusCode >= 500:
		r.serverErrs++
	default:
		r.serverErrs = 0
	}
	r.failed++
	r.failedWait += took
	switch {
	case r.serverErrs >= maxServerErrorIDs:
		r.setDown(fmt.Sprintf("the schema registry answered HTTP %d to %d schema ids in a row, each asked three times", re.StatusCode, r.serverErrs), ErrRegistryUnreachable, "")
	case r.failed >= maxFailedIDs:
		r.setDown(fmt.Sprintf("the schema registry had no schema for %d schema ids of this run (unknown ids, or answers that are not schemas): no more are asked", r.failed), ErrTooManyFailedIDs, "")
	case r.failedWait >= maxFailedWait:
		r.setDown(fmt.Sprintf("the schema registry took %s to answer about %d schema ids it had no schema for: no more are asked", r.failedWait.Round(time.Second), r.failed), ErrTooManyFailedIDs, "")
	}
	return f
}

// fetchFailure classifies a registry error. A registry that got no
// answer through (refused, timed out, TLS) or that refuses the credentials
// fails every id for the rest of the run, and is warned of once. Anything
// the registry answered is this id's failure only, with its cause: an id
// it does not know, an answer past MaxSchemaBytes, an answer that is not a
// schema (not JSON, nested past the JSON decoder's bound), an HTTP error.
func (r *Resolver) fetchFailure(ctx context.Context, id int, err error) *Failure {
	var re *sr.ResponseError
	var se *storeError
	// The reason names the reference that failed, if one did, and the
	// innermost cause: sr's wrapping repeats the URL.
	var ref string
	var rfe *refError
	if errors.As(err, &rfe) {
		ref = "its reference " + rfe.what + ": "
	}
	switch {
	case errors.As(err, &se):
		return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not stored: %v", id, se.err), Err: se.err}
	case errors.Is(err, ErrSchemaTooLarge), errors.Is(err, ErrSchemaTooDeep):
		cause := innermost(err)
		return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %s%v", id, ref, cause), Err: cause}
	case errors.As(err, &re):
		switch re.StatusCode {
		case http.StatusNotFound:
			if ref != "" {
				return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %sunknown to the registry", id, ref), Err: re}
			}
			return &Failure{ID: id, Reason: fmt.Sprintf("schema %d is unknown to the registry", id), Err: re}
		case http.StatusUnauthorized, http.StatusForbidden:
			r.setDown(fmt.Sprintf("the schema registry refused the credentials (HTTP %d)", re.StatusCode), ErrRegistryRefused, "")
			return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %s", id, r.down.Reason), Err: r.down.Err}
		}
		return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %sregistry answered HTTP %d", id, ref, re.StatusCode), Err: re}
	case ctx.Err() != nil:
		// The dump was interrupted: not a registry that is down.
		return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %v", id, ctx.Err()), Err: ctx.Err()}
	case unreachable(err):
		r.setDown(ErrRegistryUnreachable.Error(), ErrRegistryUnreachable, shortError(innermost(err)))
		return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %s", id, r.down.Reason), Err: r.down.Err}
	}
	cause := innermost(err)
	return &Failure{ID: id, Reason: fmt.Sprintf("schema %d not fetched: %s%v: %s", id, ref, ErrBadAnswer, shortError(cause)), Err: fmt.Errorf("%w: %w", ErrBadAnswer, cause)}
}

// setDown remembers that the registry fails every id for the rest of the
// run (why, of kind kind), and warns once, naming the cause when there is
// one.
func (r *Resolver) setDown(why string, kind error, cause string) {
	if r.down != nil {
		return
	}
	r.down = &Failure{Reason: why, Err: kind}
	if cause != "" {
		why += " (" + cause + ")"
	}
	if r.o.Warn != nil {
		r.o.Warn(fmt.Sprintf("%s (%s): values of schemas the folder lacks are kept undecoded, and the next dump fetches them", why, r.o.Registry))
	}
}

// refError is a failure to fetch a schema that the one asked for
// references: the reason names the reference.
type refError struct {
	what string // the reference's name, and its subject and version or id
	err  error
}

func (e *refError) Error() string { return fmt.Sprintf("reference %s: %v", e.what, e.err) }
func (e *refError) Unwrap() error { return e.err }

type storeError struct{ err error }

func (e *storeError) Error() string { return e.err.Error() }

// fetch reads schema id and, first, the schemas it references, and stores
// each in the folder. r.mu is held.
func (r *Resolver) fetch(ctx context.Context, id, depth int) (*catalog.Schema, error) {
	if depth > 32 {
		return nil, fmt.Errorf("references nested deeper than 32")
	}
	if r.o.Folder != nil {
		if s, err := r.o.Folder.ReadSchema(ctx, id); err == nil {
			return s, nil
		}
	}
	got, err := r.schemaByID(ctx, id)
	if err != nil {
		return nil, err
	}
	// Past a bound, not even stored: every later reader would refuse it.
	if err := checkText("the schema in the registry's answer", got.Schema, got.Type == sr.TypeProtobuf); err != nil {
		return nil, err
	}
	s := &catalog.Schema{ID: id, Type: got.Type.String(), Schema: got.Schema, Source: r.o.Registry.String(), FetchedAt: time.Now().UTC()}
	for _, ref := range got.References {
		ss, err := r.cl.SchemaByVersion(ctx, ref.Subject, ref.Version)
		if err != nil {
			return nil, &refError{what: fmt.Sprintf("%s (%s version %d)", ref.Name, ref.Subject, ref.Version), err: err}
		}
		if _, err := r.fetch(ctx, ss.ID, depth+1); err != nil {
			return nil, &refError{what: fmt.Sprintf("%s (schema %d)", ref.Name, ss.ID), err: err}
		}
		s.References = append(s.References, catalog.SchemaReference{Name: ref.Name, Subject: ref.Subject, Version: ref.Version, ID: ss.ID})
	}
	// Where the registry knows it: best effort (a deleted subject lists none).
	if vs, err := r.cl.SchemaVersionsByID(ctx, id); err == nil {
		for _, v := range vs {
			s.Versions = append(s.Versions, catalog.SchemaVersion{Subject: v.Subject, Version: v.Version})
		}
	}
	if err := r.store(ctx, s); err != nil {
		return nil, &storeError{err}
	}
	return s, nil
}

// schemaByID asks the registry for id, and twice more after a failure that
// is not an answer about id (a timeout, a refused connection, a 5xx),
// unless ctx is done: a registry slow under load is not a registry that is
// down, and a failure here leaves the schema's records undecoded for the
// whole run.
func (r *Resolver) schemaByID(ctx context.Context, id int) (sr.Schema, error) {
	var err error
	for i, wait := range []time.Duration{0, 250 * time.Millisecond, time.Second} {
		if i > 0 {
			select {
			case <-ctx.Done():
				return sr.Schema{}, ctx.Err()
			case <-time.After(wait):
			}
		}
		var got sr.Schema
		if got, err = r.cl.SchemaByID(ctx, id); err == nil {
			return got, nil
		}
		if !worthAskingAgain(err) {
			return got, err
		}
	}
	return sr.Schema{}, err
}

// worthAskingAgain reports whether a failed request may succeed if asked
// again: no answer at all, or an answer of 5xx. Any other answer (an
// unknown id, one that is not a schema, one past the cap) will not change.
func worthAskingAgain(err error) bool {
	var re *sr.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode >= 500
	}
	return unreachable(err) && !errors.Is(err, ErrSchemaTooLarge)
}

func (r *Resolver) store(ctx context.Context, s *catalog.Schema) error {
	if r.o.Folder == nil {
		return nil
	}
	return r.o.Folder.WriteSchema(ctx, s)
}

// compile makes the decoder of s, reading its references from the folder
// (or the --schema files). Each text is bounded (checkText) before a
// parser sees it. r.mu is held.
func (r *Resolver) compile(ctx context.Context, s *catalog.Schema) (decoder, error) {
	refs, err := r.references(ctx, s, 0)
	if err != nil {
		return nil, err
	}
	if err := checkText("its text", s.Schema, s.Type == catalog.SchemaProtobuf); err != nil {
		return nil, err
	}
	switch s.Type {
	case catalog.SchemaAvro, "":
		var texts []string
		parsed := map[int]bool{}
		for _, rf := range refs {
			if parsed[rf.id] {
				continue // the same schema under another name
			}
			parsed[rf.id] = true
			if err := checkText("its reference "+strconv.Quote(rf.name), rf.text, false); err != nil {
				return nil, err
			}
			texts = append(texts, rf.text)
		}
		return newAvroDecoder(s.Schema, texts)
	case catalog.SchemaProtobuf:
		files := map[string]string{}
		for name, t := range s.Files {
			files[name] = t
		}
		for _, rf := range refs {
			files[rf.name] = rf.text
		}
		return newProtoDecoder(ctx, s.Schema, files, r.badImports)
	case catalog.SchemaJSON:
		return jsonDecoder{}, nil
	}
	return nil, fmt.Errorf("unknown schema type %q", s.Type)
}

type refText struct {
	name, text string
	id         int // the referenced schema's id
}

// maxReferencedSchemas bounds the distinct schemas one schema references,
// directly and through its references.
const maxReferencedSchemas = 1000

// references lists the texts s references, deepest first (an Avro named
// type must be parsed before the schema that uses it), each under every
// name it is referenced by. Each referenced schema is walked once: a
// schema that references the one below it twice, twenty deep, was walked
// 2^20 times (a dump of two records took 110.6 s and 816 MB; the 32
// levels allowed, forever).
func (r *Resolver) references(ctx context.Context, s *catalog.Schema, depth int) ([]refText, error) {
	return r.referencesOnce(ctx, s, depth, map[int]string{}, map[string]bool{})
}

// referencesOnce is references, skipping the schemas in walked (already
// listed with their references; by id, their text) and the names in named
// (already listed).
func (r *Resolver) referencesOnce(ctx context.Context, s *catalog.Schema, depth int, walked map[int]string, named map[string]bool) ([]refText, error) {
	if depth > 32 {
		return nil, fmt.Errorf("references nested deeper than 32")
	}
	var out []refText
	for _, ref := range s.References {
		if text, ok := walked[ref.ID]; ok {
			if !named[ref.Name] {
				named[ref.Name] = true
				out = append(out, refText{name: ref.Name, id: ref.ID, text: text})
			}
			continue
		}
		if len(walked) >= maxReferencedSchemas {
			return nil, fmt.Errorf("references more than %d schemas", maxReferencedSchemas)
		}
		var rs *catalog.Schema
		if r.o.Folder != nil {
			var err error
			if rs, err = r.o.Folder.ReadSchema(ctx, ref.ID); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("referenced schema %d (%s): stored copy unreadable: %w", ref.ID, ref.Name, err)
			}
		}
		if rs == nil {
			rs = r.local[ref.ID]
		}
		if err, bad := r.localBad[ref.ID]; rs == nil && bad {
			return nil, fmt.Errorf("referenced schema %d (%s): the --schema file is unreadable: %w", ref.ID, ref.Name, err)
		}
		if rs == nil {
			return nil, fmt.Errorf("referenced schema %d (%s) is not stored", ref.ID, ref.Name)
		}
		walked[ref.ID] = rs.Schema
		deeper, err := r.referencesOnce(ctx, rs, depth+1, walked, named)
		if err != nil {
			return nil, err
		}
		out = append(out, deeper...)
		if !named[ref.Name] {
			named[ref.Name] = true
			out = append(out, refText{name: ref.Name, id: ref.ID, text: rs.Schema})
		}
		for name, t := range rs.Files {
			if !named[name] {
				named[name] = true
				out = append(out, refText{name: name, id: ref.ID, text: t})
			}
		}
	}
	return out, nil
}

// schemaDir is what readSchemaDir found.
type schemaDir struct {
	ids        map[int]*catalog.Schema
	bare       map[string]*catalog.Schema // TOPIC.avsc, by topic
	badIDs     map[int]error              // ID.* files that could not be read
	badImports map[string]error           // .proto imports that could not be read
}

// readSchemaDir reads --schema DIR: ID.avsc (Avro), ID.proto (Protobuf,
// importing the folder's other .proto files by name) and ID.json (JSON
// Schema), each standing for registry id ID. A .proto not named by a number
// is one the others may import; TOPIC.avsc is the one schema of a topic whose
// values are bare Avro (no wire format header). Each file is read through
// safefile (regular files only, MaxSchemaBytes at most): one that cannot be
// read costs its id (or, an import, the ids that import it), not the run;
// a bare topic's schema is the user's setting, so it is an error here.
func readSchemaDir(dir string) (*schemaDir, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read --schema folder: %w", err)
	}
	sd := &schemaDir{ids: map[int]*catalog.Schema{}, bare: map[string]*catalog.Schema{}, badIDs: map[int]error{}, badImports: map[string]error{}}
	protos := map[string]string{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".proto") && !e.IsDir() {
			b, err := safefile.ReadFileIn(dir, e.Name(), MaxSchemaBytes)
			if err != nil {
				sd.badImports[e.Name()] = err
				continue
			}
			protos[e.Name()] = string(b)
		}
	}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		typ := map[string]string{".avsc": catalog.SchemaAvro, ".proto": catalog.SchemaProtobuf, ".json": catalog.SchemaJSON}[ext]
		if typ == "" || e.IsDir() {
			continue
		}
		id, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ext))
		if (err != nil || id < 0) && typ == catalog.SchemaProtobuf {
			continue // a .proto the others import
		}
		path := filepath.Join(dir, e.Name())
		if (err != nil || id < 0) && typ == catalog.SchemaAvro {
			b, err := safefile.ReadFileIn(dir, e.Name(), MaxSchemaBytes)
			if err != nil {
				return nil, fmt.Errorf("%w: the schema of a topic of bare Avro values: %w", ErrBadRegistry, err)
			}
			sd.bare[strings.TrimSuffix(e.Name(), ext)] = &catalog.Schema{Type: typ, Schema: string(b), Source: path, FetchedAt: time.Now().UTC()}
			continue
		}
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%w: %s: a schema file is named by the id it stands for (ID.avsc, ID.proto, ID.json), or TOPIC.avsc for a topic of bare Avro values; other .proto files are imports", ErrBadRegistry, path)
		}
		if _, dup := sd.ids[id]; dup {
			return nil, fmt.Errorf("%w: two files in %s stand for id %d", ErrBadRegistry, dir, id)
		}
		if _, dup := sd.badIDs[id]; dup {
			return nil, fmt.Errorf("%w: two files in %s stand for id %d", ErrBadRegistry, dir, id)
		}
		var text string
		if typ == catalog.SchemaProtobuf {
			t, ok := protos[e.Name()]
			if !ok {
				sd.badIDs[id] = sd.badImports[e.Name()]
				continue
			}
			text = t
		} else {
			b, err := safefile.ReadFileIn(dir, e.Name(), MaxSchemaBytes)
			if err != nil {
				sd.badIDs[id] = err
				continue
			}
			text = string(b)
		}
		s := &catalog.Schema{ID: id, Type: typ, Schema: text, Source: path, FetchedAt: time.Now().UTC()}
		if typ == catalog.SchemaProtobuf {
			s.Files = map[string]string{}
			for name, t := range protos {
				if name != e.Name() {
					s.Files[name] = t
				}
			}
		}
		sd.ids[id] = s
	}
	return sd, nil
}
