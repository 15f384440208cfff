// Package logconf reads Java logging configurations into one model of
// appenders and loggers, and finds what makes logging slow on the request
// path.
//
// Formats (Detect sniffs which one a file is):
//
//   - log4j 1.x: log4j.properties (PropertyConfigurator) and log4j.xml (DOMConfigurator)
//   - log4j2: log4j2.xml (concise and strict form) and log4j2.properties
//   - logback: logback.xml / logback-spring.xml (<include> is noted, not
//     followed, except Spring Boot's own console/file/base resources, whose
//     appenders are known; <springProfile> and <if> blocks are taken as possible)
//
// The model: Config holds Appenders (name, class, Type sync-file / async /
// console / socket / sifting / other, and the settings that matter, each an
// Opt with its line) and Loggers (level, additivity, appender references,
// log4j2 AsyncLogger/AsyncRoot). Config.Routes says which appenders each
// logger reaches and whether a queue sits in between.
//
// Analyze turns a Config into findings (IDs in IDs): synchronous file
// appenders flushing every event, console appenders in production, small or
// blocking async queues, caller-data lookups, DEBUG root levels, logback
// prudent mode and SiftingAppender, and log4j 1.x itself. Each finding cites
// "path:line", and its Fix holds the literal configuration to put in and the
// lines as they were.
//
// Parsers take an io.Reader and do no I/O. FindConfigs and Discover read a
// JVM command line for the configuration it names; LoadFile and AnalyzeFile
// read a file; WriteText and WriteSummary render for a terminal.
package logconf
