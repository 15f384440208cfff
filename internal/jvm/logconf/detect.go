package logconf

import (
	"bytes"
	"errors"
	"io"
	"path"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Detect sniffs which configuration format a file is. name is used for the
// error message and, when the content is ambiguous (an empty
// <configuration/>), to choose by file name.
func Detect(name string, r io.Reader) (Kind, error) {
	src, err := readAll(r)
	if err != nil {
		return KindUnknown, withFile(err, name)
	}
	k, _, err := detect(name, src)
	return k, err
}

// Parse detects the format of a configuration and reads it. Errors name the
// file and, for malformed XML, the line.
func Parse(name string, r io.Reader) (*Config, error) {
	src, err := readAll(r)
	if err != nil {
		return nil, withFile(err, name)
	}
	k, d, err := detect(name, src)
	if err != nil {
		return nil, err
	}
	var c *Config
	switch k {
	case KindLogbackXML:
		c, err = logbackFromDoc(d)
	case KindLog4j2XML:
		c, err = log4j2FromDoc(d)
	case KindLog4j1XML:
		c, err = log4j1FromDoc(d)
	case KindLog4j1Properties:
		c, err = ParseLog4j1Properties(bytes.NewReader(src))
	case KindLog4j2Properties:
		c, err = ParseLog4j2Properties(bytes.NewReader(src))
	}
	if err != nil {
		return nil, withFile(err, name)
	}
	c.Path = name
	return c, nil
}

func withFile(err error, name string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		e := *pe
		e.File = name
		return &e
	}
	return &ParseError{File: name, Msg: err.Error()}
}

func notConfig(name string, why finding.Text) error {
	return &ParseError{File: name, Msg: "not a log4j/log4j2/logback configuration: " + why.EN, ZH: "不是 log4j/log4j2/logback 配置：" + why.ZH}
}

func detect(name string, src []byte) (Kind, *doc, error) {
	body := bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")))
	if len(body) == 0 {
		return KindUnknown, nil, notConfig(name, finding.T("empty file", "空文件"))
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".json", ".jsn", ".yaml", ".yml":
		if body[0] != '<' {
			return KindUnknown, nil, &ParseError{File: name, Msg: "log4j2 JSON/YAML configurations are not supported; convert to XML or properties", ZH: "不支持 log4j2 JSON/YAML 配置；请转换为 XML 或 properties"}
		}
	case ".groovy":
		return KindUnknown, nil, &ParseError{File: name, Msg: "logback Groovy configurations are not supported (removed in logback 1.2.9)", ZH: "不支持 logback Groovy 配置（logback 1.2.9 起已移除）"}
	}
	if bytes.IndexByte(body[:min(len(body), 4096)], 0) >= 0 {
		return KindUnknown, nil, notConfig(name, finding.T("binary content", "二进制内容"))
	}
	if body[0] == '<' {
		d, err := parseXML(src)
		if err != nil {
			return KindUnknown, nil, withFile(err, name)
		}
		k := sniffXML(d, name)
		if k == KindUnknown {
			return k, nil, notConfig(name, finding.T("root element <"+qname(d.Root)+">", "根元素 <"+qname(d.Root)+">"))
		}
		return k, d, nil
	}
	entries, _ := parseProps(string(body))
	var v1, v2 int
	for _, e := range entries {
		k := e.Key
		switch {
		case strings.HasPrefix(k, "log4j.rootLogger"), strings.HasPrefix(k, "log4j.rootCategory"),
			strings.HasPrefix(k, "log4j.appender."), strings.HasPrefix(k, "log4j.logger."), strings.HasPrefix(k, "log4j.category."),
			strings.HasPrefix(k, "log4j.additivity."):
			v1++
		case strings.HasPrefix(k, "appender."), strings.HasPrefix(k, "logger."), k == "rootLogger", strings.HasPrefix(k, "rootLogger."),
			strings.HasPrefix(k, "property."), k == "status", k == "appenders", k == "loggers", strings.HasPrefix(k, "filter."):
			v2++
		}
	}
	switch {
	case v1 == 0 && v2 == 0:
		return KindUnknown, nil, notConfig(name, finding.T("no log4j.* or appender./logger./rootLogger keys", "没有 log4j.* 或 appender./logger./rootLogger 键"))
	case v1 >= v2:
		return KindLog4j1Properties, nil, nil
	}
	return KindLog4j2Properties, nil, nil
}

var logbackElements = map[string]bool{"springprofile": true, "springproperty": true, "include": true, "contextname": true,
	"conversionrule": true, "statuslistener": true, "shutdownhook": true, "jmxconfigurator": true, "turbofilter": true,
	"contextlistener": true, "variable": true, "define": true, "insertfromjndi": true, "import": true, "serializemodel": true,
	"sequencenumbergenerator": true, "newrule": true, "propertiesconfigurator": true, "evaluator": true}

// sniffXML decides between the three XML dialects, which all use a
// <configuration> root.
func sniffXML(d *doc, name string) Kind {
	r := d.Root
	if !strings.EqualFold(r.Name, "configuration") {
		return KindUnknown
	}
	if strings.EqualFold(r.Prefix, "log4j") || strings.Contains(r.Prefix, "jakarta.apache.org/log4j") ||
		strings.Contains(strings.ToLower(d.Directive), "log4j.dtd") {
		return KindLog4j1XML
	}
	var v1, v2, lb int
	r.walk(func(n *node, depth int) {
		low := strings.ToLower(n.Name)
		if depth == 1 {
			switch low {
			case "appenders", "loggers", "properties", "customlevels", "scripts", "thresholdfilter":
				v2 += 3
			case "category", "categoryfactory", "loggerfactory", "renderer", "throwablerenderer":
				v1 += 3
			}
			if logbackElements[low] {
				lb += 3
			}
			if low == "root" || low == "logger" {
				if _, ok := n.attr("level"); ok {
					lb++
				}
			}
		}
		if low == "param" || low == "priority" {
			v1++
		}
		class := n.attrOrDefault("class", "")
		switch {
		case strings.HasPrefix(class, "ch.qos.logback."), strings.HasPrefix(class, "net.logstash.logback."), strings.HasPrefix(class, "org.springframework.boot.logging.logback."):
			lb += 2
		case strings.HasPrefix(class, "org.apache.log4j."):
			v1 += 2
		}
	}, 0)
	if _, ok := r.attr("status"); ok {
		v2++
	}
	if _, ok := r.attr("monitorInterval"); ok {
		v2++
	}
	if _, ok := r.attr("scan"); ok {
		lb++
	}
	switch {
	case v2 > v1 && v2 > lb:
		return KindLog4j2XML
	case v1 > lb && v1 > v2:
		return KindLog4j1XML
	case lb > v1 && lb > v2:
		return KindLogbackXML
	}
	base := strings.ToLower(path.Base(name))
	switch {
	case strings.HasPrefix(base, "log4j2"):
		return KindLog4j2XML
	case strings.HasPrefix(base, "log4j"):
		return KindLog4j1XML
	}
	return KindLogbackXML
}
