package queries

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/topicsnap/topicsnap/internal/sqllex"
	"github.com/topicsnap/topicsnap/queries/hostile"
)

// duckdbParse returns how many statements DuckDB's parser reads in text,
// or its error message.
func duckdbParse(t *testing.T, conn *sql.Conn, text string) (int, string) {
	t.Helper()
	doc, err := parseSQL(context.Background(), conn, text)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Error {
		return 0, doc.Message
	}
	return len(doc.Statements), ""
}

func duckdbConn(t *testing.T) *sql.Conn {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestLexerAgreesWithDuckDB holds internal/sqllex to DuckDB's own parser:
// each hostile piece (a ';' and a placeholder inside every kind of quote
// and comment) leaves two statements, and the same text cut inside the
// piece is unterminated for both.
func TestLexerAgreesWithDuckDB(t *testing.T) {
	conn := duckdbConn(t)
	for _, q := range hostile.Quoted {
		t.Run(q.Name, func(t *testing.T) {
			text := "SELECT 1 AS a, " + q.Text + " AS b; SELECT 2 AS c"
			if comment(q.Kind) {
				text = "SELECT 1 AS a, 2 " + q.Text + "\n AS b; SELECT 2 AS c"
			}
			stmts, err := sqllex.Split(text)
			n, msg := duckdbParse(t, conn, text)
			if err != nil || msg != "" || len(stmts) != 2 || n != 2 {
				t.Fatalf("%q: sqllex %d statements (%v), DuckDB %d (%s); want 2 and 2", text, len(stmts), err, n, msg)
			}
			if q.Kind == "line comment" {
				return // open to the end of the text is closed
			}
			cut := text[:strings.Index(text, q.Text)+len(q.Text)-1]
			_, err = sqllex.Split(cut)
			_, msg = duckdbParse(t, conn, cut)
			var ue *sqllex.UnterminatedError
			if !errors.As(err, &ue) || !strings.Contains(msg, "unterminated") {
				t.Fatalf("%q: sqllex says %v, DuckDB %q; want both unterminated", cut, err, msg)
			}
		})
	}
}

// TestLexerAgreesWithDuckDBOnMixes builds scripts from the hostile pieces,
// comments and empty statements at random (a fixed seed), cuts each at a
// random place, and asks sqllex and DuckDB how many statements there are
// and whether something is left open. Texts DuckDB refuses for another
// reason (a syntax error from the cut) are not compared.
func TestLexerAgreesWithDuckDBOnMixes(t *testing.T) {
	conn := duckdbConn(t)
	rng := rand.New(rand.NewPCG(12, 12))
	// pick returns a hostile piece that is a comment, or one that is not.
	pick := func(wantComment bool) string {
		for {
			q := hostile.Quoted[rng.IntN(len(hostile.Quoted))]
			if comment(q.Kind) != wantComment {
				continue
			}
			if q.Kind == "line comment" {
				return q.Text + "\n"
			}
			return q.Text
		}
	}
	maybeComment := func() string {
		if rng.IntN(2) == 0 {
			return ""
		}
		return pick(true)
	}
	compared, open := 0, 0
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for s := rng.IntN(4); s >= 0; s-- {
			switch rng.IntN(5) {
			case 0:
				b.WriteString(pick(true) + " ;") // a piece of only a comment
			case 1:
				b.WriteString(";")
			default:
				b.WriteString("SELECT " + maybeComment() + pick(false) + " " + maybeComment() + " AS x " + maybeComment() + ";")
			}
			b.WriteString([]string{" ", "\n", "", "\r\n"}[rng.IntN(4)])
		}
		text := b.String()
		if rng.IntN(2) == 0 {
			cut := rng.IntN(len(text) + 1)
			for cut < len(text) && !utf8.RuneStart(text[cut]) {
				cut++ // not inside a UTF-8 character
			}
			text = text[:cut]
		}
		stmts, err := sqllex.Split(text)
		n, msg := duckdbParse(t, conn, text)
		switch {
		case msg == "":
			if err != nil || len(stmts) != n {
				t.Fatalf("%q: sqllex %d statements (%v), DuckDB %d", text, len(stmts), err, n)
			}
			compared++
		case strings.Contains(msg, "unterminated"):
			if err == nil {
				t.Fatalf("%q: DuckDB says %q, sqllex %d statements", text, msg, len(stmts))
			}
			compared++
			open++
		}
	}
	if compared < 1500 || open < 200 {
		t.Fatalf("only %d texts compared, %d of them open: the mix must be too hostile to parse", compared, open)
	}
	t.Logf("%d texts compared with DuckDB, %d of them left open", compared, open)
}

func comment(kind string) bool { return kind == "line comment" || kind == "block comment" }
