// /etc/machine-id (machine-id(5)): one line of 32 lowercase hex digits,
//
//	b08dfa6083e7567a1921a715000001fb
//
// read only to tell hosts apart, and kept hashed.

package sysinfo

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// machineAppID is this application's key for machineID: the same host
// gives the same value to tuneloop and a different one to anything else.
var machineAppID = []byte("tuneloop host identity 1")

// machineID is the application-specific form of a machine ID, as
// machine-id(5) asks of anything that keeps or shows it: HMAC-SHA256 keyed
// by the ID, over this application's key, its first 16 bytes in hex (as
// systemd's sd_id128_get_machine_app_specific, with another key). The ID
// itself is confidential; the hash says only whether two hosts are one.
func machineID(s string) (string, error) {
	s = strings.TrimSpace(s)
	id, err := hex.DecodeString(s)
	if err != nil || len(id) != 16 || strings.Count(s, "0") == len(s) {
		// Not quoted: a damaged file may still hold most of the ID.
		return "", finding.Errorf(finding.T("not a machine ID (32 hex digits, not all zero)", "不是机器 ID（应为 32 位十六进制数字且不全为零）"))
	}
	m := hmac.New(sha256.New, id)
	m.Write(machineAppID)
	return hex.EncodeToString(m.Sum(nil)[:16]), nil
}
