package export

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// export --format csv -o FILE prefixes formula-like trace strings with '
// as `coursekit csv` does; numbers stay numbers.
func TestWriteCSVFileFormulaCells(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	os.WriteFile(in, []byte(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}
{"attempt":"=1+1","request":"-3.5","start_ms":1,"outcome":"http_error","http_status":500,"events":[],"end_ms":5,"error":"@cmd"}
`), 0o644)
	out := filepath.Join(dir, "t.csv")
	if err := WriteCSVFile(in, out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[1]; r[1] != "'=1+1" || r[2] != "-3.5" || r[len(r)-1] != "'@cmd" {
		t.Errorf("row %q: want '=1+1, -3.5 and '@cmd", r)
	}
}
