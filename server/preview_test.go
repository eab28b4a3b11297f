package server

import (
	"os"
	"strings"
	"testing"
)

func TestPreview(t *testing.T) {
	out := os.Getenv("PREVIEW_DIR")
	if out == "" {
		t.Skip()
	}
	_, ts := newTestServer(t, Options{})
	for name, p := range map[string]string{"overview": "/", "gaps": q("/checks/gaps", "topic", topic), "skew": q("/checks/skew", "topic", topic, "what_if_key", "value.event_id", "what_if_partitions", "4"), "freshness": q("/checks/freshness", "topic", topic), "lag": q("/checks/lag", "topic", topic), "duplicates": q("/checks/duplicates", "topic", topic), "sql": "/sql", "missing": q("/checks/missing", "topic", topic)} {
		r := get(t, ts.URL+p)
		os.WriteFile(out+"/"+name+".html", []byte(r.body), 0o644)
		i := 0
		for {
			a := strings.Index(r.body, "<svg")
			if a < 0 {
				break
			}
			b := strings.Index(r.body[a:], "</svg>") + a + 6
			os.WriteFile(out+"/"+name+"-"+string(rune('0'+i))+".svg", []byte(r.body[a:b]), 0o644)
			r.body = r.body[b:]
			i++
		}
	}
	css, _ := staticFS.ReadFile("static/style.css")
	os.WriteFile(out+"/style.css", css, 0o644)
}
