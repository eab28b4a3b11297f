package queries

import (
	_ "embed"
	"strings"
)

// The functions SQL from outside may call.
//
// The guard judges untrusted SQL (a check's expression option, /api/sql, a
// notebook cell on the server) by an allow-list, not a deny-list: a
// function is callable only when its name is in allowed_functions.txt. The
// file lists the scalar, aggregate and macro functions of the DuckDB
// topicsnap embeds (duckdb_functions(), with topicsnap's own), less those
// notAllowed names below, each with its reason. A DuckDB upgrade that adds
// functions changes what duckdb_functions() lists, and
// TestAllowedFunctionsFile fails until the file is regenerated
// (go test ./queries -run TestAllowedFunctionsFile -update) and the diff
// reviewed: a new function is refused until somebody has looked at it.

//go:embed allowed_functions.txt
var allowedFunctionsText string

// allowedFunctions is the allow-list, lower-case.
var allowedFunctions = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(allowedFunctionsText, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}()

// specialFunctions are functions the binder handles itself, which
// duckdb_functions() does not list as scalars.
var specialFunctions = map[string]bool{"unnest": true, "unlist": true}

// windowFunctions are the window functions proper (an aggregate used as a
// window function is judged as an aggregate): duckdb_functions() does not
// list them.
var windowFunctions = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "rank_dense": true, "percent_rank": true,
	"cume_dist": true, "ntile": true, "lag": true, "lead": true, "first_value": true, "last_value": true,
	"nth_value": true, "first": true, "last": true, "fill": true,
}

// sparkFunctions are Spark SQL's own read-only functions a user's statement
// on the remote Spark engine (sql --engine spark) may call besides the
// allow-list: which file and partition a row came from, and common
// functions DuckDB spells otherwise. Spark's reflect and java_method (they
// call any Java method), and everything else not here, stay refused.
var sparkFunctions = map[string]bool{
	"input_file_name": true, "input_file_block_start": true, "input_file_block_length": true,
	"spark_partition_id": true, "monotonically_increasing_id": true,
	"from_unixtime": true, "unix_timestamp": true, "to_unix_timestamp": true, "date_format": true,
	"get_json_object": true, "json_tuple": true, "named_struct": true, "collect_list": true, "collect_set": true,
	"percentile_approx": true, "size": true, "explode": true, "posexplode": true, "nvl": true, "nvl2": true,
	"substring_index": true, "try_parse_json": true, "schema_of_variant": true, "try_validate_utf8": true,
}

// notAllowed are the functions of DuckDB left out of the allow-list, and
// why. Only the generator of allowed_functions.txt reads it.
var notAllowed = map[string]string{
	"current_setting":             "discloses the engine's settings (paths, limits)",
	"getvariable":                 "discloses the engine's variables",
	"current_query":               "discloses the statement the engine runs",
	"current_query_id":            "discloses the engine's state",
	"pg_get_viewdef":              "discloses view definitions (absolute paths)",
	"pg_get_expr":                 "discloses definitions",
	"pg_get_constraintdef":        "discloses definitions",
	"pg_conf_load_time":           "discloses the process start",
	"pg_postmaster_start_time":    "discloses the process start",
	"getenv":                      "discloses the environment",
	"which_secret":                "discloses secrets",
	"write_log":                   "writes to the engine's log",
	"parse_duckdb_log_message":    "reads the engine's log",
	"nextval":                     "changes a sequence",
	"currval":                     "reads a sequence",
	"setseed":                     "changes the engine's state",
	"pg_sleep":                    "only waits",
	"sleep_ms":                    "only waits",
	"json_serialize_sql":          "parses SQL text the guard has not judged",
	"json_deserialize_sql":        "renders SQL text",
	"json_serialize_plan":         "binds and plans SQL text the guard has not judged (files included)",
	"json_execute_serialized_sql": "runs SQL the guard has not judged",
	"json_structure":              "recurses without bound: a deep value kills the process",
	"json_group_structure":        "recurses without bound: a deep value kills the process",
	"json_pretty":                 "grows with the square of a value's depth (2.5 GB from a 100 KB value)",
	"json_merge_patch":            "recurses without bound: a deep value kills the process",
	"combine":                     "reads aggregate states made by hand",
	"finalize":                    "reads aggregate states made by hand",
}

// functionAllowed tells whether untrusted SQL may call the function name
// (any case); window is set for a window function node.
func functionAllowed(name string, window bool) bool {
	n := strings.ToLower(name)
	return allowedFunctions[n] || specialFunctions[n] || window && windowFunctions[n]
}
