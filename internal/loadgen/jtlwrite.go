// The JTL writer: JMeter's CSV results format with its default columns, so
// JMeter's HTML dashboard (jmeter -g results.jtl -o dir) reads our runs.
// Sample output:
//
//	timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect
//	1763769600123,4,GET /,200,OK,tuneloop 1-1,text,true,,245,78,60,60,http://127.0.0.1:8080/,3,0,0
//	1763769600125,10001,login,Non HTTP response code: timeout,Non HTTP response message: i/o timeout,tuneloop 1-7,text,false,,0,112,60,60,http://127.0.0.1:8080/login,0,0,0

package loadgen

import (
	"bufio"
	"io"
	"strconv"
	"sync"
	"time"
)

// JTLHeader is JMeter's default CSV column set, in its order.
const JTLHeader = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success," +
	"failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"

// NonHTTPCodePrefix starts JMeter's responseCode for requests that got no
// HTTP response; we append the ErrorKind name.
const NonHTTPCodePrefix = "Non HTTP response code: "

// JTLWriter writes samples as JTL CSV lines. It is safe for concurrent use.
type JTLWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	line []byte
	err  error
}

// NewJTLWriter writes the header and returns the writer; call Flush at the end.
func NewJTLWriter(w io.Writer) *JTLWriter {
	j := &JTLWriter{w: bufio.NewWriterSize(w, 64<<10)}
	_, j.err = j.w.WriteString(JTLHeader + "\n")
	return j
}

// Record implements SampleSink.
func (j *JTLWriter) Record(s *Sample) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	b := j.line[:0]
	b = strconv.AppendInt(b, s.Start.UnixMilli(), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Elapsed/time.Millisecond), 10)
	b = append(b, ',')
	b = appendCSV(b, s.Label)
	b = append(b, ',')
	switch {
	case s.Code > 0:
		b = strconv.AppendInt(b, int64(s.Code), 10)
		b = append(b, ',')
		b = appendCSV(b, s.Message)
	case s.CodeText != "":
		b = appendCSV(b, s.CodeText)
		b = append(b, ',')
		b = appendCSV(b, s.Message)
	default:
		b = append(b, NonHTTPCodePrefix...)
		b = append(b, s.Kind.String()...)
		b = append(b, ',')
		b = appendCSV(b, "Non HTTP response message: "+string(s.Message)) // error path only
	}
	b = append(b, ",tuneloop 1-"...)
	b = strconv.AppendInt(b, int64(s.Thread), 10)
	b = append(b, ",text,"...)
	b = strconv.AppendBool(b, s.Success)
	b = append(b, ',')
	b = appendCSV(b, s.FailureMessage)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.BytesIn, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.BytesOut, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.GrpThreads), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.AllThreads), 10)
	b = append(b, ',')
	b = appendCSV(b, s.URL)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Latency/time.Millisecond), 10)
	b = append(b, ",0,"...)
	b = strconv.AppendInt(b, int64(s.Connect/time.Millisecond), 10)
	b = append(b, '\n')
	j.line = b
	_, j.err = j.w.Write(b)
}

// Flush writes buffered lines and reports the first write error.
func (j *JTLWriter) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

// appendCSV appends a field, quoted when it holds a comma, quote or line
// break (RFC 4180, as JMeter writes it).
func appendCSV[T string | []byte](b []byte, s T) []byte {
	quote := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '"' || c == '\n' || c == '\r' {
			quote = true
			break
		}
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
