package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/topicsnap/topicsnap/internal/units"
)

// schemasDir holds the schemas a dump met, one file per schema id.
const schemasDir = "schemas"

// Schema types as the Confluent Schema Registry names them.
const (
	SchemaAvro     = "AVRO"
	SchemaProtobuf = "PROTOBUF"
	SchemaJSON     = "JSON"
)

// SchemaReference is a schema another one imports (a Protobuf import, an
// Avro named type from another subject): Name is how the schema refers to
// it, Subject and Version where the registry keeps it, ID the stored file
// that holds it.
type SchemaReference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
	ID      int    `json:"id"`
}

// SchemaVersion is one subject and version under which a registry listed a
// schema id.
type SchemaVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Schema is one writer schema a dump met, stored in DIR/schemas/ID.json so
// that the folder can be read without the registry.
type Schema struct {
	FormatVersion int               `json:"format_version"`
	ID            int               `json:"id"`
	Type          string            `json:"type"` // AVRO, PROTOBUF or JSON
	Schema        string            `json:"schema"`
	References    []SchemaReference `json:"references,omitempty"`
	// Versions lists the subjects and versions the registry knew the id
	// under when it was fetched; empty for a schema read from --schema.
	Versions []SchemaVersion `json:"versions,omitempty"`
	// Files holds the text of imports that have no id of their own (a
	// .proto beside the schema in a --schema folder), by import name.
	Files     map[string]string `json:"files,omitempty"`
	Source    string            `json:"source"` // the registry's URL (no credentials) or the file
	FetchedAt time.Time         `json:"fetched_at"`
}

// SchemaPath is where the schema of id is stored.
func (d *Dir) SchemaPath(id int) string { return d.where(schemaRel(id)) }

func schemaRel(id int) string { return schemasDir + "/" + strconv.Itoa(id) + ".json" }

// WriteSchema stores s (temp file, fsync, rename, fsync of the folder). A
// schema past MaxSchemaBytes as written is refused (safefile.ErrTooLarge):
// ReadSchema would refuse it.
func (d *Dir) WriteSchema(ctx context.Context, s *Schema) error {
	s.FormatVersion = FormatVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode schema %d: %w", s.ID, err)
	}
	if len(b)+1 > MaxSchemaBytes {
		return fmt.Errorf("write schema %d: %s, past the %s a stored schema may take: %w",
			s.ID, units.Size(int64(len(b)+1)), units.Size(MaxSchemaBytes), safefile.ErrTooLarge)
	}
	_, err = d.store().Put(ctx, schemaRel(s.ID), append(b, '\n'), store.Cond{})
	return err
}

// ReadSchema reads the stored schema of id; os.ErrNotExist when the folder
// lacks it. The file is read as every metadata file is (a regular file
// inside the folder, at most MaxSchemaBytes); one that is not is
// ErrBadManifest, with the cause (safefile.ErrNotRegular, ErrTooLarge).
func (d *Dir) ReadSchema(ctx context.Context, id int) (*Schema, error) {
	rel := schemaRel(id)
	b, _, err := d.store().Get(ctx, rel, MaxSchemaBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read schema %d: %w", id, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read schema %d: %w", id, readErr(err))
	}
	if err := tooManyObjects(b, MaxSchemaObjects); err != nil {
		return nil, fmt.Errorf("read schema %s: %w: %w", rel, ErrBadManifest, err)
	}
	var s Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read schema %s: %w: %v", rel, ErrBadManifest, err)
	}
	if s.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("read schema %s: %w", rel, ErrNewerFormat)
	}
	if s.ID != id {
		return nil, fmt.Errorf("read schema %s: %w: it holds id %d", rel, ErrBadManifest, s.ID)
	}
	return &s, nil
}

// SchemaIDs lists the ids of the stored schemas, in order.
func (d *Dir) SchemaIDs(ctx context.Context) ([]int, error) {
	entries, err := d.store().List(ctx, schemasDir)
	if err != nil {
		return nil, fmt.Errorf("list schemas: %w", err)
	}
	var ids []int
	for _, e := range entries {
		n, ok := strings.CutSuffix(e.Name, ".json")
		if !ok || strings.HasPrefix(e.Name, tmpPrefix) {
			continue
		}
		if id, err := strconv.Atoi(n); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	return ids, nil
}

// TopicSchemaPath is where the one schema of a topic of bare values
// (registry-less Avro, --schema TOPIC.avsc) is stored.
func (d *Dir) TopicSchemaPath(topic string) string {
	return d.where(schemasDir + "/topic=" + topic + ".json")
}

// WriteTopicSchema stores the one schema of a topic of bare values (its ID
// is 0: no registry gave it one).
func (d *Dir) WriteTopicSchema(ctx context.Context, topic string, s *Schema) error {
	if !ValidTopicName(topic) {
		return fmt.Errorf("write the schema of %.300q: %w: not a topic name", topic, ErrBadName)
	}
	s.FormatVersion = FormatVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the schema of %s: %w", topic, err)
	}
	_, err = d.store().Put(ctx, schemasDir+"/topic="+topic+".json", append(b, '\n'), store.Cond{})
	return err
}
