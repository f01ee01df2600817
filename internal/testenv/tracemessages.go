package testenv

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TraceMessage is one message of a toncenter trace fixture as the indexer
// stored it: its source (nil for an external one), the op code it recorded
// and its body's BOC in base64 ("" when it has none).
type TraceMessage struct {
	Source *string
	Opcode *int64
	Body   string
}

// TraceMessages are the messages of every toncenter trace fixture
// (toncenter-traces/traces/*.json), file by file, in each trace's order:
// real bodies for tests that decode them by op code.
func TraceMessages(t testing.TB) []TraceMessage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Fixture(t, "toncenter-traces/traces"), "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no toncenter trace fixtures: %v", err)
	}
	var out []TraceMessage
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var trace struct {
			Transactions []struct {
				Messages []struct {
					Source  *string `json:"source"`
					Opcode  *int64  `json:"opcode"`
					Content *struct {
						Body string `json:"body"`
					} `json:"message_content"`
				} `json:"messages"`
			} `json:"transactions"`
		}
		if err := json.Unmarshal(raw, &trace); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tx := range trace.Transactions {
			for _, m := range tx.Messages {
				msg := TraceMessage{Source: m.Source, Opcode: m.Opcode}
				if m.Content != nil {
					msg.Body = m.Content.Body
				}
				out = append(out, msg)
			}
		}
	}
	return out
}
