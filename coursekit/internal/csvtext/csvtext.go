// Package csvtext turns the bytes of a CSV file an instructor edited into
// UTF-8 text. coursekit writes its CSV files as UTF-8 with a byte-order
// mark, and a spreadsheet that saves them as "CSV UTF-8" keeps that; but
// Excel's plain "CSV" on Chinese Windows ("CSV (逗号分隔)") saves GB18030
// (GBK), with no mark. Read as UTF-8, such a file keeps its numbers and
// turns every Chinese comment into escapes, so a file that is not valid
// UTF-8 is decoded as GB18030, and the reader says so; a file that is
// neither is refused with FILE:LINE of its first bad byte.
package csvtext

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// GB18030 is the name Decode gives a file it decoded from GB18030 (which
// includes GBK and GB2312).
const GB18030 = "GB18030"

// Decode returns b as UTF-8: unchanged when it is valid UTF-8 (enc ""),
// else decoded from GB18030 (enc GB18030). When b is neither, err names
// name:LINE and the byte offset of the first byte that is not valid in
// either, and what to do.
func Decode(b []byte, name string) (text []byte, enc string, err error) {
	if utf8.Valid(b) {
		return b, "", nil
	}
	if bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff}) {
		return nil, "", fmt.Errorf("%s:1: the file is UTF-16 (Excel's \"Unicode text\"), not a CSV coursekit reads: save it as \"CSV UTF-8 (逗号分隔)\"", name)
	}
	sc := scanGB18030(b)
	if at := sc.bad; at >= 0 {
		return nil, "", fmt.Errorf("%s:%d: byte 0x%02x (offset %d) is neither UTF-8 nor GB18030 (GBK): the file is in another encoding; save it as \"CSV UTF-8 (逗号分隔)\" and run the command again. Nothing was written", name, lineOf(b, at), b[at], at)
	}
	if len(sc.rare) > sc.common {
		at := sc.rare[0]
		return nil, "", fmt.Errorf("%s:%d: the file is not UTF-8, and read as GB18030 (GBK) %d of its %d non-ASCII characters would be rare ones outside GB2312, such as %q from bytes 0x%02x 0x%02x (offset %d): it is not Chinese text but most likely Latin-1 (Windows-1252), in which that line reads %q. Save it as \"CSV UTF-8 (逗号分隔)\" and run again. Nothing was written",
			name, lineOf(b, at), len(sc.rare), len(sc.rare)+sc.common, decodeGB(b[at:at+2]), b[at], b[at+1], at, latin1Line(b, at))
	}
	text, err = simplifiedchinese.GB18030.NewDecoder().Bytes(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: decoding as GB18030: %v", name, err)
	}
	return bytes.TrimPrefix(text, []byte("\ufeff")), GB18030, nil
}

// Note is the warning for a file Decode decoded from enc (in English and
// Chinese), or "" for UTF-8.
func Note(name, enc string) (en, zh string) {
	if enc == "" {
		return "", ""
	}
	return fmt.Sprintf("%s is not UTF-8: read it as %s (GBK, what Excel's \"CSV (逗号分隔)\" saves on Chinese Windows); check its Chinese text reads right, and prefer \"CSV UTF-8 (逗号分隔)\" when you save it", name, enc),
		fmt.Sprintf("%s 不是 UTF-8 编码：已按 %s（GBK，中文 Windows 上 Excel 的“CSV (逗号分隔)”保存的编码）读取；请核对其中的中文是否正确，保存时最好选“CSV UTF-8 (逗号分隔)”", name, enc)
}

// fffd is U+FFFD in GB18030: a character, not a bad byte.
var fffd = []byte{0x84, 0x31, 0xa4, 0x37}

// lineOf is the line (from 1) of b's byte at.
func lineOf(b []byte, at int) int { return 1 + bytes.Count(b[:at], []byte{'\n'}) }

func decodeGB(seq []byte) string {
	r, _ := simplifiedchinese.GB18030.NewDecoder().Bytes(seq)
	return string(r)
}

// latin1Line is the line of b holding byte at, read as Windows-1252 (a
// superset of Latin-1's printable characters), at most 80 characters.
func latin1Line(b []byte, at int) string {
	start := bytes.LastIndexByte(b[:at], '\n') + 1
	end := bytes.IndexByte(b[at:], '\n')
	if end < 0 {
		end = len(b) - at
	}
	r, _ := charmap.Windows1252.NewDecoder().Bytes(bytes.TrimRight(b[start:at+end], "\r"))
	if s := []rune(string(r)); len(s) > 80 {
		return string(s[:80]) + "…"
	}
	return string(r)
}

// gbScan is what scanGB18030 found: the offset of the first byte that
// does not begin a valid GB18030 character (-1: none), the offsets of the
// two-byte characters outside GB2312 (rare in Chinese text, what Latin-1
// letters make), and how many other multi-byte characters there are.
type gbScan struct {
	bad    int
	rare   []int
	common int
}

// gb2312 reports whether the two-byte GB18030 character c0 c1 is in
// GB2312 (rows 0xA1–0xF7, columns 0xA1–0xFE): the common characters,
// symbols and pinyin letters a Chinese file is made of.
func gb2312(c0, c1 byte) bool { return 0xa1 <= c0 && c0 <= 0xf7 && 0xa1 <= c1 && c1 <= 0xfe }

func scanGB18030(b []byte) gbScan {
	sc := gbScan{bad: -1}
	dec := simplifiedchinese.GB18030.NewDecoder()
	for i := 0; i < len(b); {
		c0 := b[i]
		switch {
		case c0 < 0x80, c0 == 0x80: // ASCII; 0x80 is € in code page 936
			i++
			continue
		case c0 == 0xff:
			sc.bad = i
			return sc
		}
		size := 0
		if i+1 < len(b) {
			switch c1 := b[i+1]; {
			case 0x40 <= c1 && c1 < 0x7f, 0x80 <= c1 && c1 < 0xff:
				size = 2
			case 0x30 <= c1 && c1 < 0x3a && i+3 < len(b) && 0x81 <= b[i+2] && b[i+2] < 0xff && 0x30 <= b[i+3] && b[i+3] < 0x3a:
				size = 4
			}
		}
		if size == 0 {
			sc.bad = i
			return sc
		}
		seq := b[i : i+size]
		dec.Reset()
		if r, err := dec.Bytes(seq); err != nil || (bytes.Contains(r, []byte("\ufffd")) && !bytes.Equal(seq, fffd)) {
			sc.bad = i
			return sc
		}
		if size == 2 && !gb2312(seq[0], seq[1]) {
			sc.rare = append(sc.rare, i)
		} else {
			sc.common++
		}
		i += size
	}
	return sc
}
