package cli

// Until tools/helpgen has moved help_zh.go's texts to where each command and
// flag is defined, they are looked up by their English like cobra's own.
// helpgen deletes this file together with help_zh.go.
func init() {
	for en, zh := range helpZH {
		cobraZH[en] = zh
	}
}
