package csvtext

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

func gbk(t *testing.T, s string) []byte {
	t.Helper()
	b, err := simplifiedchinese.GB18030.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeUTF8Unchanged(t *testing.T) {
	in := []byte("\ufeffid,comment\r\ns01,方法正确\r\n")
	out, enc, err := Decode(in, "m.csv")
	if err != nil || enc != "" || string(out) != string(in) {
		t.Fatalf("Decode = %q, %q, %v", out, enc, err)
	}
}

func TestDecodeGB18030(t *testing.T) {
	want := "id,comment\r\ns01,方法正确，€ 与 𠀀 也对\r\n"
	out, enc, err := Decode(gbk(t, want), "m.csv")
	if err != nil || enc != GB18030 || string(out) != want {
		t.Fatalf("Decode = %q, %q, %v", out, enc, err)
	}
	if en, zh := Note("m.csv", enc); !strings.Contains(en, "m.csv") || !strings.Contains(en, "GB18030") || !strings.Contains(zh, "m.csv") {
		t.Fatalf("Note = %q / %q", en, zh)
	}
}

func TestDecodeNeitherNamesFirstBadByte(t *testing.T) {
	in := append(gbk(t, "id,comment\r\ns01,方法正确\r\ns02,"), 0xff, 'x', '\r', '\n')
	_, _, err := Decode(in, "m.csv")
	if err == nil || !strings.HasPrefix(err.Error(), "m.csv:3: byte 0xff") {
		t.Fatalf("err = %v, want m.csv:3: byte 0xff…", err)
	}
	// A lead byte with no valid second byte.
	in = []byte("id\ns01\n\x81\x20\n")
	if _, _, err := Decode(in, "r.csv"); err == nil || !strings.HasPrefix(err.Error(), "r.csv:3:") {
		t.Fatalf("err = %v, want r.csv:3", err)
	}
	if _, _, err := Decode([]byte{0xff, 0xfe, 'i', 0}, "u.csv"); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Fatalf("err = %v, want UTF-16", err)
	}
}
