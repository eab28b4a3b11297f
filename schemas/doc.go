// Package schemas decodes schema-encoded Kafka values and keys (Avro, Protobuf and
// JSON Schema in the Confluent wire format: a zero byte, a 4-byte big-endian
// schema id, for Protobuf the message indexes, then the payload) into JSON
// text, with the writer schemas taken from the snapshot folder, a Schema
// Registry, or a folder of schema files (--schema DIR).
//
// Three things matter:
//
//   - Resolver finds the writer schema of an id: first in the snapshot
//     folder (DIR/schemas/ID.json), then in the --schema files, then in the
//     registry; whatever it fetches (with the schemas it references) it
//     stores in the folder at once, so that the folder can be read after the
//     registry is gone. A registry that cannot be reached is remembered for
//     the run, not asked again for every record.
//   - Resolver.Decode turns one value into JSON text, or says why it could
//     not (a Failure: its Reason is what the value_decode_error column holds).
//     It never drops the value: the dump keeps the exact bytes beside it.
//     Keys (subject TOPIC-key) go through the same Decode: the header says
//     which schema, whatever the subject.
//   - Registry.CheckTLS tells a registry whose certificate the configured
//     CA does not vouch for (a RegistryTLSError, a setting to fix) from one
//     that is down (a warning, at the first fetch).
//
// A registry, a --schema folder and a stored copy are read as hostile, and
// a bad one costs one schema id, never the run:
//
//   - Every registry answer is bounded to MaxSchemaBytes (4 MiB) on its
//     HTTP body, before it is decoded; a --schema file is read through
//     internal/safefile (regular files only, non-blocking, the same cap).
//   - A schema's text is bounded to MaxSchemaDepth (1000) levels of
//     brackets, counted without recursion before a parser sees it.
//   - An answer past the cap, one that is not a schema (not JSON, JSON
//     nested past the decoder's bound), a schema past a bound or one its
//     parser refuses fails that id only: its values are kept undecoded,
//     and the Failure's Reason (value_decode_error) names the id and the
//     cause, its Err the cause typed (ErrSchemaTooLarge, ErrSchemaTooDeep,
//     ErrBadAnswer, ErrBadSchema, ErrUnreadableSchema). Other ids go on
//     decoding. Only a registry that gives no answer (refused, timed out,
//     TLS: ErrRegistryUnreachable) or refuses the credentials
//     (ErrRegistryRefused) fails every id for the rest of the run, and one
//     asked in vain too often: 3 ids in a row answered 5xx
//     (ErrRegistryUnreachable), or 1,000 ids with no schema, or a minute
//     spent waiting for such answers (ErrTooManyFailedIDs: ids a producer
//     made up).
//   - On a redirect to another origin (scheme, host or port), no
//     credentials go along: Go's client keeps them for the same host name
//     on another port.
//
// Decoding happens at dump time (cgo-free, beside the exact bytes); the
// query engine types the JSON text as it types a JSON topic. The decoders
// are the libraries': hamba/avro reads Avro, protocompile compiles the
// .proto text and google.golang.org/protobuf's dynamicpb and protojson read
// and print Protobuf, franz-go's sr client speaks to the registry and reads
// the wire format's header.
package schemas
