package queries

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// topicStateNotes says, for each topic_state(topic, time) call in q, what
// the table cannot know at that time: the spans topic_state_unknown lists
// for the same arguments (sql/topic_state_unknown.sql). A result that
// leaves keys out is never shown as whole: Engine.Query hands these notes
// to every caller (Rows.Notes), which print them beside the result.
func (e *Engine) topicStateNotes(ctx context.Context, q string) ([]string, error) {
	if !strings.Contains(strings.ToLower(q), "topic_state") {
		return nil, nil
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect duckdb: %w", err)
	}
	doc, err := parseSQL(ctx, conn, q)
	if err == nil && doc.Error {
		err = fmt.Errorf("parse query: %s", doc.Message)
	}
	var tmpl *sqlDoc
	if err == nil {
		tmpl, err = parseSQL(ctx, conn, `SELECT count(*)::BIGINT AS spans, coalesce(sum(offsets), 0)::BIGINT AS offsets,
			coalesce(bool_or(known_from IS NULL), false) AS never, max(known_from) AS until
			FROM topic_state_unknown('t', NULL)`)
	}
	var calls []map[string]any
	if err == nil {
		findCalls(doc.Statements, "topic_state", &calls)
	}
	var rendered []string
	for _, c := range calls {
		if err != nil {
			break
		}
		args, _ := c["children"].([]any)
		if len(args) != 2 {
			continue
		}
		// A fresh copy of the template (numbers kept as DuckDB wrote them).
		var t sqlDoc
		b, _ := json.Marshal(tmpl)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err = dec.Decode(&t); err != nil {
			break
		}
		var fns []map[string]any
		findCalls(t.Statements, "topic_state_unknown", &fns)
		if len(fns) != 1 {
			err = fmt.Errorf("topic_state_unknown's template did not parse as one call")
			break
		}
		fns[0]["children"] = args
		js, merr := json.Marshal(t)
		if merr != nil {
			err = merr
			break
		}
		var s string
		if err = conn.QueryRowContext(ctx, "SELECT json_deserialize_sql(?::JSON)", string(js)).Scan(&s); err != nil {
			break
		}
		rendered = append(rendered, s)
	}
	conn.Close()
	if err != nil {
		return nil, err
	}
	var notes []string
	for i, s := range rendered {
		rows, err := e.Query(ctx, s)
		if err != nil {
			return nil, err
		}
		var spans, offsets int64
		var never bool
		var until *time.Time
		if rows.Next() {
			err = rows.Scan(&spans, &offsets, &never, &until)
		}
		if err == nil {
			err = rows.Err()
		}
		rows.Close()
		if err != nil {
			return nil, err
		}
		name, _ := constantArg(calls[i], 0)
		untimed, err := e.untimedKeyed(ctx, name)
		if err != nil {
			return nil, err
		}
		if untimed > 0 {
			notes = append(notes, fmt.Sprintf("topic_state(%s, ...): %s no timestamp (-1), so no time to be at or before as_of: never taken as a key's value, and a key with one after its value then has known = false", quoteString(name), plural(untimed, "keyed record has", "keyed records have")))
		}
		if spans == 0 {
			continue
		}
		note := fmt.Sprintf("topic_state(%s, ...) is not the whole state at that time: %s the snapshot never held (removed by the cleaner or Kafka before a dump read them) may hold values then; keys only they held are missing, and rows with known = false are keys whose value may be one of them", quoteString(name), plural(offsets, "offset", "offsets"))
		if !never && until != nil {
			note += fmt.Sprintf("; the state is whole from %s", FormatTime(*until))
		}
		note += fmt.Sprintf(". See SELECT * FROM topic_state_unknown(%s, ...)", quoteString(name))
		notes = append(notes, note)
	}
	return notes, nil
}

// untimedKeyed counts the keyed records of topic with no timestamp (-1),
// which topic_state leaves out of every key's value; 0 for a name that is
// not one of the engine's topics (topic_state says so itself).
func (e *Engine) untimedKeyed(ctx context.Context, topic string) (int64, error) {
	found := false
	for _, t := range e.Topics() {
		found = found || t.Name == topic
	}
	if !found {
		return 0, nil
	}
	rows, err := e.Query(ctx, `SELECT count(*) FROM `+quoteIdent(topic)+` WHERE key_raw IS NOT NULL AND epoch_ms("timestamp") = -1`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	return n, err
}

// findCalls appends the table function calls named name in n.
func findCalls(n any, name string, out *[]map[string]any) {
	switch v := n.(type) {
	case []any:
		for _, c := range v {
			findCalls(c, name, out)
		}
	case map[string]any:
		if v["type"] == "TABLE_FUNCTION" {
			if f, ok := v["function"].(map[string]any); ok && strings.EqualFold(functionName(f), name) {
				*out = append(*out, f)
			}
		}
		for _, c := range v {
			findCalls(c, name, out)
		}
	}
}
