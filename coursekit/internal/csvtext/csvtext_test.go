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

// Latin-1 (or Windows-1252) text is mostly valid GB18030 byte for byte:
// "é" before an ASCII letter is a rare CJK character ("Renée" reads
// "Ren閑"). Such a file is refused, naming FILE:LINE of the first such
// character and how the line reads as Latin-1, never read as Chinese.
// A Chinese file with a rare character among common ones (玥 in a name,
// outside GB2312) is still read.
func TestDecodeLatin1IsRefused(t *testing.T) {
	for name, in := range map[string]string{
		"one name":     "id,name,email\ns01,Ren\xe9e Dupont,s01@x.edu\n",
		"a few":        "id,name\ns01,Ana\ns02,Fran\xe7ois M\xfcller\ns03,J\xf6rg\n",
		"cp1252 quote": "id,criterion,score,reason\ns01,total,20,it\x92s fine\n",
	} {
		_, _, err := Decode([]byte(in), "r.csv")
		line := "2"
		if name != "one name" && name != "cp1252 quote" {
			line = "3"
		}
		if err == nil || !strings.HasPrefix(err.Error(), "r.csv:"+line+":") || !strings.Contains(err.Error(), "Latin-1") {
			t.Errorf("%s: err = %v, want r.csv:%s: … Latin-1", name, err, line)
		}
	}
	if _, _, err := Decode([]byte("id,name\ns01,Ren\xe9e Dupont\n"), "r.csv"); err == nil || !strings.Contains(err.Error(), "Renée Dupont") {
		t.Errorf("the error does not show the line as Latin-1: %v", err)
	}
	want := "id,姓名\ns01,王玥\ns02,李娜\n"
	if out, enc, err := Decode(gbk(t, want), "r.csv"); err != nil || enc != GB18030 || string(out) != want {
		t.Errorf("Chinese with a rare character: %q, %q, %v", out, enc, err)
	}
}
