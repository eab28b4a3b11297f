package queries

import (
	"context"
	"fmt"
	"strings"
)

func init() {
	register(&Check{
		Name:    "values",
		Summary: "poison messages: records whose value does not parse in the topic's format, by partition and offset",
		Order:   90,
		Options: []string{"limit"},
		run:     checkValues,
	})
}

// checkValues judges each data record's value against the topic's format:
// JSON, or the writer schema of a schema-encoded value (Avro, Protobuf,
// JSON Schema), which the dump decoded with and said why not in
// value_decode_error. A topic of neither has no format to judge against,
// and the check says so rather than calling its values fine.
func checkValues(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	r, err := checkValuesOf(ctx, e, o)
	if err != nil {
		return nil, err
	}
	if t, _ := e.Topic(o.Topic); t.KeyEncoded {
		if err := checkEncodedKeys(ctx, e, o, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// checkEncodedKeys adds to the values check of a topic whose keys the dump
// decoded (wire-format keys) the keys that did not decode, and why
// (key_error).
func checkEncodedKeys(ctx context.Context, e *Engine, o CheckOptions, r *Report) error {
	if e.opts.Remote != nil {
		// The remote engine's views keep keys as text: it cannot tell.
		r.Summary.Set("undecoded_keys", nil)
		r.Message += "; the dump decoded this topic's keys, which this engine does not read: run the check on DuckDB to count those that did not decode"
		return nil
	}
	reasons, err := e.run(ctx, "values_keys", views(o.Topic))
	if err != nil {
		return err
	}
	var n int64
	var list []string
	for _, x := range reasons {
		n = asInt(x.Get("total"))
		list = append(list, fmt.Sprintf("%d: %v", asInt(x.Get("records")), x.Get("problem")))
	}
	r.Summary.Set("undecoded_keys", n)
	if n == 0 {
		r.Message += "; every key in the wire format decodes with its writer schema"
		return nil
	}
	if r.Status == StatusOK {
		r.Status = StatusWarn
	}
	verb := "do"
	if n == 1 {
		verb = "does"
	}
	r.Message += fmt.Sprintf("; %s %s not decode with their writer schema (%s); their bytes are in key_raw", plural(n, "key", "keys"), verb, strings.Join(list, "; "))
	return nil
}

// checkValuesOf is the values check of the values alone.
func checkValuesOf(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	parts, err := e.run(ctx, "values", d)
	if err != nil {
		return nil, err
	}
	// After the run: a lazy engine infers the format when it builds the view.
	t, _ := e.Topic(o.Topic)
	if t.Encoded {
		return checkEncodedValues(ctx, e, o, t, parts)
	}
	r := &Report{Summary: NewRow()}
	var records, nulls, unparsed, utf8, notJSON, notObject, pastBound, notType int64
	for _, p := range parts {
		pastBound += asInt(p.Get("past_bound"))
		notType += asInt(p.Get("not_sampled_type"))
		records += asInt(p.Get("records"))
		nulls += asInt(p.Get("null_values"))
		unparsed += asInt(p.Get("unparsed"))
		utf8 += asInt(p.Get("not_utf8"))
		notJSON += asInt(p.Get("not_json"))
		notObject += asInt(p.Get("not_object"))
		unp := p.Get("unparsed")
		if !t.JSON {
			unp = nil // no format: not known, not zero
		}
		row := NewRow().Set("kind", "partition").Set("partition", p.Get("partition")).Set("records", p.Get("records")).
			Set("null_values", p.Get("null_values")).Set("unparsed", unp)
		r.Rows = append(r.Rows, *row)
	}
	format := "json"
	if !t.JSON {
		format = "bytes"
	}
	r.Summary.Set("format", format).Set("records", records).Set("null_values", nulls)
	if !t.JSON {
		r.Summary.Set("unparsed_records", nil)
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("the values of %s are not JSON objects (read as raw bytes): topicsnap has no format to judge them against", o.Topic)
		return r, nil
	}
	r.Summary.Set("unparsed_records", unparsed).Set("not_utf8", utf8).Set("not_json", notJSON).Set("not_object", notObject).
		Set("past_bound", pastBound).Set("not_sampled_type", notType)
	ex, err := e.run(ctx, "values_examples", d, o.Limit)
	if err != nil {
		return nil, err
	}
	for _, x := range ex {
		row := NewRow().Set("kind", "unparsed")
		for _, k := range x.Keys {
			row.Set(k, x.Get(k))
		}
		r.Rows = append(r.Rows, *row)
	}
	if unparsed == 0 {
		r.Status = StatusOK
		r.Message = fmt.Sprintf("every value of %d records parses as a JSON object of the type inferred from a sample", records-nulls)
		if nulls > 0 {
			r.Message += fmt.Sprintf(" (%s)", plural(nulls, "null value, a tombstone", "null values, tombstones"))
		}
		return r, nil
	}
	var why []string
	for _, c := range []struct {
		n    int64
		what string
	}{{notJSON, "not JSON"}, {utf8, "not UTF-8"}, {notObject, "JSON but not an object"},
		{pastBound, "past a bound on size, depth or members, not read"},
		{notType, "with a field that does not fit the type inferred from a sample (value_error says where), not read"}} {
		if c.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	r.Status = StatusWarn
	verb := "do"
	if unparsed == 1 {
		verb = "does"
	}
	r.Message = fmt.Sprintf("%d of %d values %s not parse as a JSON object of the topic's type (%s); their bytes are in value_raw", unparsed, records-nulls, verb, strings.Join(why, ", "))
	return r, nil
}

// checkEncodedValues is the values check of a schema-encoded topic: the
// values that did not decode with their writer schema, and why.
func checkEncodedValues(ctx context.Context, e *Engine, o CheckOptions, t Topic, parts []Row) (*Report, error) {
	r := &Report{Summary: NewRow()}
	var records, nulls, unparsed int64
	for _, p := range parts {
		records += asInt(p.Get("records"))
		nulls += asInt(p.Get("null_values"))
		unparsed += asInt(p.Get("unparsed"))
		row := NewRow().Set("kind", "partition").Set("partition", p.Get("partition")).Set("records", p.Get("records")).
			Set("null_values", p.Get("null_values")).Set("unparsed", p.Get("unparsed"))
		r.Rows = append(r.Rows, *row)
	}
	format := strings.ToLower(strings.Join(t.Formats, "+"))
	if format == "" {
		format = "schema registry"
	}
	r.Summary.Set("format", format).Set("records", records).Set("null_values", nulls).Set("unparsed_records", unparsed)
	ex, err := e.run(ctx, "values_examples", views(o.Topic), o.Limit)
	if err != nil {
		return nil, err
	}
	for _, x := range ex {
		row := NewRow().Set("kind", "unparsed")
		for _, k := range x.Keys {
			row.Set(k, x.Get(k))
		}
		r.Rows = append(r.Rows, *row)
	}
	reasons, err := e.run(ctx, "values_reasons", views(o.Topic))
	if err != nil {
		return nil, err
	}
	var list []string
	for _, x := range reasons {
		list = append(list, fmt.Sprintf("%d: %v", asInt(x.Get("records")), x.Get("problem")))
	}
	if unparsed == 0 {
		r.Status = StatusOK
		r.Message = fmt.Sprintf("every value of %d records decodes with its writer schema (%s)", records-nulls, format)
		if nulls > 0 {
			r.Message += fmt.Sprintf(" (%s)", plural(nulls, "null value, a tombstone", "null values, tombstones"))
		}
		return r, nil
	}
	r.Status = StatusWarn
	verb := "do"
	if unparsed == 1 {
		verb = "does"
	}
	r.Message = fmt.Sprintf("%d of %d values %s not decode with their writer schema (%s); their bytes are in value_raw", unparsed, records-nulls, verb, strings.Join(list, "; "))
	return r, nil
}
