// Command restorefile writes the committed data records of a topic in a
// snapshot folder as the lines `kcat -P -K '\t'` reads (key, a tab, value),
// so scripts/bench-restore.sh can have kcat produce the same records that
// topicsnap restore does. It is a bench tool, not part of the product; it
// refuses records whose key or value holds a tab or a newline.
//
//	go run ./scripts/benchtools/restorefile --dir SNAP --topic bench > records.txt
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/topicsnap/topicsnap/catalog"
)

func main() {
	dir := flag.String("dir", "", "snapshot folder")
	topic := flag.String("topic", "", "topic")
	flag.Parse()
	d, err := catalog.Open(*dir)
	if err != nil {
		fatalf("%v", err)
	}
	ms, err := d.Manifests(context.Background(), *topic)
	if err != nil {
		fatalf("%v", err)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var n int64
	for _, m := range ms {
		markers, err := d.ReadMarkers(context.Background(), m, 0)
		if err != nil {
			fatalf("%v", err)
		}
		for _, f := range m.Files {
			err := catalog.ScanDataFile(context.Background(), d.FilePath(m.TP(), f.Name), 4096, func(rows []catalog.Row) error {
				for i := range rows {
					if ok, _ := catalog.Committed(&rows[i], markers); !ok {
						continue
					}
					k, v := rows[i].Key, rows[i].Value
					if bytes.ContainsAny(k, "\t\n") || bytes.ContainsAny(v, "\t\n") {
						return fmt.Errorf("offset %d: a tab or newline in the key or value", rows[i].Offset)
					}
					w.Write(k)
					w.WriteByte('\t')
					w.Write(v)
					w.WriteByte('\n')
					n++
				}
				return nil
			})
			if err != nil {
				fatalf("%v", err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		fatalf("%v", err)
	}
	fmt.Fprintf(os.Stderr, "records=%d\n", n)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "restorefile: "+format+"\n", args...)
	os.Exit(1)
}
