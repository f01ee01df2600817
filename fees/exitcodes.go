package fees

import "fmt"

// exitMeanings explains the exit codes with which contracts refuse external
// messages. The 3x codes are the classic wallets' (v3, v4, and the lockup
// and multisig contracts built on them); 13x are wallet v5's; 0-14 are TVM's
// own. Highload wallet v3 reuses 33-38 with other meanings, so those are
// phrased as "usually". Wallet v3 refuses expired messages with 35, not 36.
var exitMeanings = map[int]string{
	0:   "the contract finished without accepting the message",
	1:   "the contract finished without accepting the message",
	2:   "stack underflow",
	3:   "stack overflow",
	4:   "integer overflow",
	5:   "integer out of range",
	6:   "invalid opcode",
	7:   "type check error",
	8:   "cell overflow",
	9:   "cell underflow (the body is shorter than the contract expects)",
	10:  "dictionary error",
	11:  "unknown error",
	12:  "fatal error",
	13:  "out of gas before accepting the message",
	-14: "out of gas before accepting the message",
	14:  "virtualization error",
	32:  "usually: wrong subwallet id or action list",
	33:  "usually: wrong seqno",
	34:  "usually: wrong subwallet id",
	35:  "usually: bad signature; wallet v3: also message expired",
	36:  "usually: message expired (valid_until in the past)",
	37:  "usually: not enough balance",
	132: "wallet v5: signature authentication disabled",
	133: "wallet v5: wrong seqno",
	134: "wallet v5: wrong wallet id",
	135: "wallet v5: bad signature",
	136: "wallet v5: message expired",
	137: "wallet v5: external send without ignore-errors mode",
}

// notAcceptedMessage is the client-facing text for a refused message.
func notAcceptedMessage(exitCode int) string {
	if m, ok := exitMeanings[exitCode]; ok {
		return fmt.Sprintf("message not accepted by the contract: exit code %d (%s)", exitCode, m)
	}
	return fmt.Sprintf("message not accepted by the contract: exit code %d", exitCode)
}
