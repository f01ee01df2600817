package actions_test

import (
	"encoding/json"
	"testing"

	"github.com/tonql/tonql/actions"
)

// A BigInt reads what encoding/json reads: the short path for plain
// strings must not change a value that escapes or non-ASCII would, and
// numbers (older rows) keep their spelling.
func TestBigIntReadsAsJSON(t *testing.T) {
	for _, in := range []string{
		`"218750000000"`, `""`, `"0"`, `"-5"`, `"12\u00334"`, `"1\"2"`, `"a\\b"`, `"\t"`,
		`"é"`, "\"\xff1\"", `42`, `-7`, `1e3`, `"123456789012345678901234567890"`,
	} {
		var want string
		var n json.Number
		if json.Unmarshal([]byte(in), &want) != nil {
			if err := json.Unmarshal([]byte(in), &n); err != nil {
				t.Fatalf("%s: not a test input: %v", in, err)
			}
			want = n.String()
		}
		var got struct {
			V actions.BigInt `json:"v"`
		}
		if err := json.Unmarshal([]byte(`{"v":`+in+`}`), &got); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if string(got.V) != want {
			t.Errorf("%s: read %q, encoding/json reads %q", in, got.V, want)
		}
	}
}
