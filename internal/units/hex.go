package units

// ParseHex reads 1 to 16 hex digits (either case, no "0x", no sign) without
// allocating: HTTP chunk sizes (RFC 9112 allows leading zeros), the
// fields of /proc/net/tcp, the digits of a 0x size. Longer input, even
// with leading zeros, is refused: no caller needs more than 64 bits.
func ParseHex[T ~string | ~[]byte](b T) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(c)
	}
	return v, true
}

// ParseHexOrDec reads "0x"-prefixed hex (ParseHex's digits) or unsigned
// decimal, as thread dumps write ids: nid=0x2a43 (JDK <= 17) or
// nid=18445 (JDK 18+), a javacore's 0x... thread and native ids.
func ParseHexOrDec[T ~string | ~[]byte](b T) (uint64, bool) {
	if len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		return ParseHex(b[2:])
	}
	return parseDec(b)
}
