package sqllex

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	hostilesql "github.com/topicsnap/topicsnap/queries/hostile"
)

// kinds are the names queries/hostile gives the kinds of quote and comment.
var kinds = map[string]Kind{
	"string": String, "identifier": QuotedIdent, "dollar": DollarString,
	"line comment": LineComment, "block comment": BlockComment,
}

// hostile is hostile.Quoted (a ';', a {{placeholder}} and a ':param' inside
// each kind of quote and comment; package queries parses the same pieces
// with DuckDB), with the kind each must be read as.
var hostile = func() (out []struct {
	name, text string
	kind       Kind
}) {
	for _, q := range hostilesql.Quoted {
		k, ok := kinds[q.Kind]
		if !ok {
			panic("unknown kind " + q.Kind)
		}
		out = append(out, struct {
			name, text string
			kind       Kind
		}{q.Name, q.Text, k})
	}
	return out
}()

func TestHostileTokens(t *testing.T) {
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			toks, err := Tokens(h.text)
			if err != nil {
				t.Fatal(err)
			}
			want := []Token{{Kind: h.kind, Offset: 0, Text: h.text}}
			if !reflect.DeepEqual(toks, want) {
				t.Fatalf("tokens %+v, want %+v", toks, want)
			}
		})
	}
}

func TestHostileSplit(t *testing.T) {
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			nl := ""
			if h.kind == LineComment {
				nl = "\n"
			}
			text := "SELECT 1, " + h.text + nl + " AS x; SELECT 2;"
			got, err := Split(text)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"SELECT 1, " + h.text + nl + " AS x", "SELECT 2"}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Split(%q) = %q, want %q", text, got, want)
			}
			if !Complete(text) {
				t.Errorf("Complete(%q) = false", text)
			}
			// Cut just before its end, it is open: not complete, an error.
			open := text[:strings.Index(text, h.text)+len(h.text)-1]
			if h.kind == LineComment {
				return // a comment to the end of the text is closed
			}
			if Complete(open + ";") {
				t.Errorf("Complete(%q) = true", open+";")
			}
			var ue *UnterminatedError
			if _, err := Split(open + "; SELECT 3;"); !errors.As(err, &ue) || ue.Kind != h.kind || ue.Offset != len("SELECT 1, ") {
				t.Errorf("Split of the open text: %v, want an UnterminatedError of kind %d at %d", err, h.kind, len("SELECT 1, "))
			}
		})
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"blanks", " \n\t ", nil},
		{"no final semicolon", "SELECT 1", []string{"SELECT 1"}},
		{"two", "SELECT 1;SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{"empty statements", ";; SELECT 1 ;;", []string{"SELECT 1"}},
		{"comment kept with its statement", "-- top\nSELECT 1; -- tail\n", []string{"-- top\nSELECT 1"}},
		{"only comments between", "SELECT 1; /* x */ ; -- y\n; SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{"comment ends at CR", "SELECT 1 -- x\r; SELECT 2", []string{"SELECT 1 -- x", "SELECT 2"}},
		{"dollar inside a word", "SELECT 1 AS a$$x; SELECT 2", []string{"SELECT 1 AS a$$x", "SELECT 2"}},
		{"parameter", "SELECT $1; SELECT $2", []string{"SELECT $1", "SELECT $2"}},
		{"E inside a word is not a prefix", `SELECT xE'a\'; SELECT 2`, []string{`SELECT xE'a\'`, "SELECT 2"}},
		{"number then escape string", `SELECT 1e'\';'`, []string{`SELECT 1e'\';'`}},
		{"exponent", "SELECT 1e5; SELECT 2", []string{"SELECT 1e5", "SELECT 2"}},
		{"closed then open dollar quotes", "SELECT $$a$$$$;$$; SELECT 2", []string{"SELECT $$a$$$$;$$", "SELECT 2"}},
		{"adjacent strings", "SELECT 'a'\n';'; SELECT 2", []string{"SELECT 'a'\n';'", "SELECT 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Split(c.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Split(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestUnterminated(t *testing.T) {
	for _, c := range []struct {
		name, text string
		before     []string // the statements before the open one
		kind       Kind
		open       string
		line, col  int
	}{
		{"string", "SELECT 1;\nSELECT 'a; SELECT 2", []string{"SELECT 1"}, String, "'", 2, 8},
		{"backslash does not escape", `SELECT 'a\''`, nil, String, "'", 1, 8},
		{"escape string", `SELECT E'a\'; SELECT 2`, nil, String, "E'", 1, 8},
		{"identifier", `SELECT "a; SELECT 2`, nil, QuotedIdent, `"`, 1, 8},
		{"dollar quote", "SELECT $$a; SELECT 2", nil, DollarString, "$$", 1, 8},
		{"dollar quote closed by another tag", "SELECT $a$x$b$;", nil, DollarString, "$a$", 1, 8},
		{"block comment", "SELECT 1; /* a; SELECT 2", []string{"SELECT 1"}, BlockComment, "/*", 1, 11},
		{"nested block comment", "SELECT /* /* */ 1;", nil, BlockComment, "/*", 1, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Split(c.text)
			var ue *UnterminatedError
			if !errors.As(err, &ue) {
				t.Fatalf("Split(%q): %v, want an UnterminatedError", c.text, err)
			}
			if !reflect.DeepEqual(got, c.before) {
				t.Errorf("statements before: %q, want %q", got, c.before)
			}
			if ue.Kind != c.kind || ue.Open != c.open || ue.Line != c.line || ue.Column != c.col {
				t.Errorf("error %+v, want kind %d opened with %s at %d:%d", ue, c.kind, c.open, c.line, c.col)
			}
			if msg := err.Error(); !strings.Contains(msg, "never closed") || !strings.Contains(msg, c.open) {
				t.Errorf("message %q does not say what is open", msg)
			}
			if Complete(c.text) || OnlyComments(c.text) {
				t.Error("an open text is neither complete nor only comments")
			}
			toks, _ := Tokens(c.text)
			if last := toks[len(toks)-1]; last.Kind != c.kind || last.Offset+len(last.Text) != len(c.text) {
				t.Errorf("the last token %+v does not run to the end", last)
			}
		})
	}
}

func TestComplete(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"", false},
		{"SELECT 1", false},
		{"SELECT 1;", true},
		{"SELECT 1; -- done\n", true},
		{"SELECT 1; /* done */", true},
		{"SELECT 1 -- ;", false},
		{"SELECT 1 /* ; */", false},
		{"SELECT ';'", false},
		{"SELECT ';", false},
		{"SELECT $$;", false},
		{"SELECT 1; SELECT 2", false},
	} {
		if got := Complete(c.text); got != c.want {
			t.Errorf("Complete(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestOnlyComments(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"", true},
		{" \n", true},
		{"-- a\n-- b", true},
		{"/* a */ -- b", true},
		{"/* a", false},
		{"-- a\nSELECT 1", false},
		{";", false},
	} {
		if got := OnlyComments(c.text); got != c.want {
			t.Errorf("OnlyComments(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestTokensCoverTheText(t *testing.T) {
	text := "SELECT a$b, $1, E'x\\'', \"q\"\"\" -- c\n/* d /* e */ */; $t$ $ $t$ $u$x"
	toks, err := Tokens(text)
	if err == nil {
		t.Fatal("want the trailing $t$ reported open")
	}
	var b strings.Builder
	for i, tk := range toks {
		if tk.Offset != b.Len() {
			t.Fatalf("token %d at %d, want %d", i, tk.Offset, b.Len())
		}
		b.WriteString(tk.Text)
	}
	if b.String() != text {
		t.Fatalf("tokens give %q, want %q", b.String(), text)
	}
	var kinds []Kind
	for _, tk := range toks {
		kinds = append(kinds, tk.Kind)
	}
	want := []Kind{Code, Space, Code, Space, Code, Space, String, Code, Space, QuotedIdent, Space, LineComment, Space, BlockComment, Semicolon, Space, DollarString, Space, DollarString}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
}

func FuzzTokens(f *testing.F) {
	for _, h := range hostile {
		f.Add(h.text)
	}
	f.Add("SELECT 'a; /* $$ -- E'\\'")
	f.Fuzz(func(t *testing.T, s string) {
		toks, err := Tokens(s)
		var b strings.Builder
		for _, tk := range toks {
			b.WriteString(tk.Text)
		}
		if b.String() != s {
			t.Fatalf("tokens do not cover %q", s)
		}
		stmts, serr := Split(s)
		if (err == nil) != (serr == nil) {
			t.Fatalf("Tokens says %v, Split %v", err, serr)
		}
		for _, st := range stmts {
			if st == "" || OnlyComments(st) {
				t.Fatalf("empty statement from %q", s)
			}
		}
	})
}
