package notebook

import "testing"

// A notebook cut inside a string escape or a literal is truncated, as one
// cut inside plain text is (encoding/json reports the first two as an
// invalid character at the end; the class report then said "invalid_json"
// with the decoder's English for a cut file).
func TestCutAnywhereIsTruncated(t *testing.T) {
	for _, s := range []string{`{"cells": [{"source": "x\u00`, `{"cells": [{"source": "x\`, `{"cells": [{"source": "x`, `{"cells": [{"x": tr`, "{\"cells\": [{\"source\": \"x\\u00\n"} {
		_, err := ParseNotebook([]byte(s))
		if u, ok := err.(*Ungradable); !ok || u.Code != ReasonTruncated {
			t.Errorf("%q: %v, want %s", s, err, ReasonTruncated)
		}
	}
	if _, err := ParseNotebook([]byte(`{"cells": [}`)); err.(*Ungradable).Code != ReasonInvalidJSON {
		t.Errorf("a syntax error inside the file: %v, want %s", err, ReasonInvalidJSON)
	}
}
