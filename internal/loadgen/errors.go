package loadgen

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// ErrorKind says why a request failed; the summary counts each kind.
type ErrorKind uint8

// The error kinds, in report order.
const (
	KindNone      ErrorKind = iota
	KindRefused             // connect: connection refused
	KindDNS                 // the host name did not resolve
	KindConnect             // other connect failures: unreachable, connect timeout
	KindTLS                 // handshake or certificate failure
	KindTimeout             // no complete response within the request timeout
	KindReset               // connection closed or reset mid-request
	KindProtocol            // the response is not valid HTTP/1.x
	KindStatus              // unexpected status code
	KindAssertion           // the body assertion failed
	KindOther
	numKinds
)

var kindNames = [numKinds]string{"", "connect_refused", "dns", "connect", "tls", "timeout",
	"connection_reset", "protocol", "status", "assertion", "other"}

func (k ErrorKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "other"
}

// KindByName maps a name from String back to its kind (KindOther if unknown).
func KindByName(s string) ErrorKind {
	for i, n := range kindNames {
		if n == s && i > 0 {
			return ErrorKind(i)
		}
	}
	return KindOther
}

// classify maps a dial or I/O error to a kind. dialing is true while
// connecting (TCP and TLS), so a timeout there is a connect failure.
func classify(err error, dialing bool) ErrorKind {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unkAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certInv x509.CertificateInvalidError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.As(err, &dnsErr):
		return KindDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.As(err, &certErr), errors.As(err, &unkAuth), errors.As(err, &hostErr),
		errors.As(err, &certInv), errors.As(err, &recErr), errors.As(err, &alert):
		return KindTLS
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		if dialing {
			return KindConnect
		}
		return KindTimeout
	case dialing:
		return KindConnect
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return KindReset
	case errors.Is(err, errHeaderTooLarge), errors.Is(err, errBadStatusLine), errors.Is(err, errBadHeader),
		errors.Is(err, errBadLength), errors.Is(err, errBadChunk), errors.Is(err, errSwitching),
		errors.Is(err, errTooManyInterim):
		return KindProtocol
	}
	return KindOther
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
