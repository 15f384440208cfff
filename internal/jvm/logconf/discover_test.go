package logconf

import (
	"strings"
	"testing"
)

func TestFindConfigs(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want string
	}{
		{"java -Dlogback.configurationFile=/etc/app/logback.xml -jar app.jar", "/etc/app/logback.xml"},
		{"java -Dlogback.configurationFile=conf/logback.xml -jar app.jar", "/srv/app/conf/logback.xml"},
		{"java -Dlog4j.configurationFile=file:///etc/log4j2.xml -cp lib/* com.x.Main", "/etc/log4j2.xml"},
		{"java -Dlog4j2.configurationFile=a.xml,/b/c.xml com.x.Main", "/srv/app/a.xml /b/c.xml"},
		{"java -Dlog4j.configuration=file:/opt/conf/log4j.properties com.x.Main", "/opt/conf/log4j.properties"},
		{"java -Dlog4j.configuration=log4j.properties com.x.Main", ""},
		{"java -Dlogging.config=classpath:logback-spring.xml -jar app.jar", ""},
		{"java -Dlogging.config=/etc/app/logback-spring.xml -jar app.jar", "/etc/app/logback-spring.xml"},
		{"java -jar app.jar --logging.config=config/log4j2-spring.xml", "/srv/app/config/log4j2-spring.xml"},
		{"java -jar app.jar -Dlogback.configurationFile=/ignored.xml", ""},
		{"java -Dlogback.configurationFile=jar:file:/app.jar!/logback.xml com.x.Main", ""},
		{"java -Dlogback.configurationFile=http://cfg/logback.xml com.x.Main", ""},
		{"java -Xmx1g com.x.Main", ""},
		{"java -Dlogback.configurationFile=/a.xml -Dlogback.configurationFile=/b.xml com.x.Main", "/b.xml"},
		{"java -Dlogging.config=/a.xml -jar app.jar --logging.config=/b.xml", "/b.xml"},
	} {
		got := strings.Join(FindConfigs(strings.Fields(tc.cmd), "/srv/app"), " ")
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.cmd, got, tc.want)
		}
	}
}

func TestDiscoverNotes(t *testing.T) {
	cs := Discover(strings.Fields("java -Xmx2g -jar /opt/app/app.jar --server.port=8080"), "/opt/app")
	if len(cs) != 1 || !cs[0].InJar || cs[0].Path != "/opt/app/app.jar" || cs[0].Note.EN != "config is on the classpath inside the jar; pass it with --file" || cs[0].Note.ZH == "" {
		t.Fatalf("%+v", cs)
	}
	cs = Discover(strings.Fields("java -Dlogging.config=classpath:config/logback-spring.xml -jar app.jar"), "/opt/app")
	if len(cs) != 1 || !cs[0].InJar || cs[0].Path != "config/logback-spring.xml" || cs[0].Library != Logback {
		t.Fatalf("%+v", cs)
	}
	cs = Discover(strings.Fields("java -cp conf:lib/* com.x.Main"), "/opt/app")
	if len(cs) != len(defaultNames) || !cs[0].Default || cs[0].Path != "/opt/app/conf/logback-test.xml" {
		t.Fatalf("%+v", cs)
	}
	cs = Discover(strings.Fields("java -Dlog4j.configuration=/opt/conf/log4j.properties com.x.Main"), "/")
	if len(cs) != 1 || cs[0].Library != Log4j1 || !strings.Contains(cs[0].Note.EN, "file:") {
		t.Fatalf("%+v", cs)
	}
}
