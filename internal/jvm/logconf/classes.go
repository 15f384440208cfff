package logconf

import "strings"

// Known appender classes and plugin names, by what they cost the caller.
var knownClasses = map[string]Type{
	// log4j 1.x
	"org.apache.log4j.ConsoleAppender":                    TypeConsole,
	"org.apache.log4j.FileAppender":                       TypeSyncFile,
	"org.apache.log4j.DailyRollingFileAppender":           TypeSyncFile,
	"org.apache.log4j.RollingFileAppender":                TypeSyncFile,
	"org.apache.log4j.rolling.RollingFileAppender":        TypeSyncFile,
	"org.apache.log4j.AsyncAppender":                      TypeAsync,
	"org.apache.log4j.net.SocketAppender":                 TypeSocket,
	"org.apache.log4j.net.SyslogAppender":                 TypeSocket,
	"org.apache.log4j.net.SocketHubAppender":              TypeSocket,
	"org.apache.log4j.net.SMTPAppender":                   TypeOther,
	"org.apache.log4j.net.JMSAppender":                    TypeOther,
	"org.apache.log4j.jdbc.JDBCAppender":                  TypeOther,
	"org.apache.log4j.varia.NullAppender":                 TypeOther,
	"org.apache.log4j.WriterAppender":                     TypeOther,
	"org.apache.log4j.net.TelnetAppender":                 TypeSocket,
	"org.apache.log4j.nt.NTEventLogAppender":              TypeOther,
	"org.apache.log4j.lf5.LF5Appender":                    TypeOther,
	"org.apache.log4j.varia.ExternallyRolledFileAppender": TypeSyncFile,

	// logback
	"ch.qos.logback.core.ConsoleAppender":                              TypeConsole,
	"ch.qos.logback.core.FileAppender":                                 TypeSyncFile,
	"ch.qos.logback.core.rolling.RollingFileAppender":                  TypeSyncFile,
	"ch.qos.logback.classic.AsyncAppender":                             TypeAsync,
	"ch.qos.logback.core.AsyncAppenderBase":                            TypeAsync,
	"ch.qos.logback.classic.sift.SiftingAppender":                      TypeSifting,
	"ch.qos.logback.access.sift.SiftingAppender":                       TypeSifting,
	"ch.qos.logback.classic.net.SocketAppender":                        TypeSocket,
	"ch.qos.logback.classic.net.SSLSocketAppender":                     TypeSocket,
	"ch.qos.logback.classic.net.SyslogAppender":                        TypeSocket,
	"ch.qos.logback.classic.net.SMTPAppender":                          TypeOther,
	"ch.qos.logback.classic.db.DBAppender":                             TypeOther,
	"net.logstash.logback.appender.LogstashTcpSocketAppender":          TypeAsync,
	"net.logstash.logback.appender.LogstashUdpSocketAppender":          TypeSocket,
	"net.logstash.logback.appender.LoggingEventAsyncDisruptorAppender": TypeAsync,
	"net.logstash.logback.appender.AccessEventAsyncDisruptorAppender":  TypeAsync,
	"com.github.danielwegener.logback.kafka.KafkaAppender":             TypeSocket,
}

// log4j2 plugin element names (case-insensitive in log4j2).
var log4j2Plugins = map[string]Type{
	"console":                 TypeConsole,
	"file":                    TypeSyncFile,
	"rollingfile":             TypeSyncFile,
	"randomaccessfile":        TypeSyncFile,
	"rollingrandomaccessfile": TypeSyncFile,
	"memorymappedfile":        TypeSyncFile,
	"async":                   TypeAsync,
	"socket":                  TypeSocket,
	"syslog":                  TypeSocket,
	"kafka":                   TypeSocket,
	"http":                    TypeSocket,
	"smtp":                    TypeOther,
	"jdbc":                    TypeOther,
	"jpa":                     TypeOther,
	"nosql":                   TypeOther,
	"routing":                 TypeSifting,
	"failover":                TypeOther,
	"rewrite":                 TypeOther,
	"null":                    TypeOther,
	"jms":                     TypeOther,
	"jeromq":                  TypeSocket,
	"flume":                   TypeSocket,
	"cassandra":               TypeOther,
	"writer":                  TypeOther,
	"outputstream":            TypeOther,
	"list":                    TypeOther,
	"countingnoop":            TypeOther,
	"scriptappenderselector":  TypeOther,
}

// classify returns the appender type of a Java class name; guessed is true
// when the class is not a known one and the type comes from its name.
func classify(class string) (t Type, guessed bool) {
	class = strings.TrimSpace(class)
	if t, ok := knownClasses[class]; ok {
		return t, false
	}
	simple := class
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		simple = class[i+1:]
	}
	s := strings.ToLower(simple)
	switch {
	case strings.Contains(s, "async") || strings.Contains(s, "disruptor"):
		return TypeAsync, true
	case strings.Contains(s, "sift"):
		return TypeSifting, true
	case strings.Contains(s, "console") || strings.Contains(s, "stdout"):
		return TypeConsole, true
	case strings.Contains(s, "file"):
		return TypeSyncFile, true
	case strings.Contains(s, "socket") || strings.Contains(s, "syslog") || strings.Contains(s, "kafka") || strings.Contains(s, "tcp") || strings.Contains(s, "udp"):
		return TypeSocket, true
	}
	return TypeOther, true
}

// classifyPlugin returns the type of a log4j2 plugin name.
func classifyPlugin(name string) (t Type, guessed bool) {
	if t, ok := log4j2Plugins[strings.ToLower(name)]; ok {
		return t, false
	}
	return classify(name)
}
