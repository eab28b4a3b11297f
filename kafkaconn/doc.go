// Package kafkaconn is what dump and restore share about reaching a Kafka
// cluster: the connection a user describes (Conn: --brokers and a
// client.properties file, the keys kcat -F and the Java tools' config
// files use), the kgo client made from it (NewClient; Connect pings it and
// explains a first request that fails), and the errors a user can act on.
//
// Errors carry their exit code and hint (package internal/exit): sentinels
// for errors.Is (ErrUnreachable, ErrAuthentication, ErrTLS and its
// narrower ErrTLSMismatch, ErrSASLMismatch, ErrSASLRequired, ErrBadConfig,
// ErrBadOption, ...), Classify to wrap a broker's or the network's error
// with its kind, and two types for errors.As: ConfigError (a properties
// file that cannot be used, with the fix) and AuthzError (who was refused
// what, and the grant that would allow it; a restore sets Grant to a
// producer's grants).
//
// The properties file also names the Schema Registry (RegistryOf) and an
// S3 endpoint (S3Endpoint); secrets go into the SASL mechanism and the
// registry settings and nowhere else. Position and ParsePartitions read
// --from, --until and --partitions the same way for both commands.
//
// The Kafka client is created only in this package.
package kafkaconn
