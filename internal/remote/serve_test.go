package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A served subcommand: its lines come back as it writes them, our lines
// reach it, and it learns of our end by its input ending, whether we close
// it (Close) or the connection goes (the client closed: what a killed
// tuneloop's session does); its copied binary is removed after.
func TestStartServed(t *testing.T) {
	for _, how := range []string{"close", "connection"} {
		t.Run(how, func(t *testing.T) {
			d := startSSHD(t)
			c, err := Dial(context.Background(), d.Spec(), opts(d))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			marks := t.TempDir()
			bin := script(t, `echo "$(dirname "$0")" > `+marks+`/where
echo "ready $*"
while read -r l; do echo "got $l"; done
echo ended > `+marks+`/ended
`)
			p, err := c.StartServed(context.Background(), bin, []string{"jmeter-serve", "--port", "1099"}, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			next := func() string {
				select {
				case l := <-p.Lines:
					return l
				case <-time.After(10 * time.Second):
					t.Fatal("no line within 10 s")
					return ""
				}
			}
			if l := next(); l != "ready jmeter-serve --port 1099" {
				t.Fatalf("first line %q", l)
			}
			p.Send("skip 4000")
			if l := next(); l != "got skip 4000" {
				t.Fatalf("answer %q", l)
			}
			if how == "close" {
				p.Close(10 * time.Second)
			} else {
				c.Close()
			}
			var b []byte
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if b, _ = os.ReadFile(filepath.Join(marks, "ended")); len(b) > 0 {
					break
				}
			}
			if string(b) != "ended\n" {
				t.Fatal("the subcommand did not see its input end")
			}
			where, _ := os.ReadFile(filepath.Join(marks, "where"))
			dir := strings.TrimSpace(string(where))
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if _, err := os.Stat(dir); os.IsNotExist(err) {
					return
				}
			}
			t.Errorf("the copy's folder %s is still there", dir)
		})
	}
}
