package html

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// TestWriteRunChromium renders the fixtures in headless Chromium and
// checks the screenshot is a real page and that nothing was fetched.
func TestWriteRunChromium(t *testing.T) {
	bin := chromiumBin(t)
	for _, tc := range []struct {
		name string
		ncpu int
		lang finding.Lang
	}{{"2cpu-en", 2, finding.EN}, {"128cpu-en", 128, finding.EN}, {"2cpu-zh", 2, finding.ZH}, {"hostile", 4, finding.EN}} {
		t.Run(tc.name, func(t *testing.T) {
			p := htmlFixture(tc.ncpu, tc.lang)
			if tc.name == "hostile" {
				makeHostile(p)
			}
			dom := chromiumPage(t, bin, tc.name, renderHTML(t, p), *update && tc.name != "hostile")
			checkFlameZoom(t, dom, flameSection(p.Flame, "", map[string]string{}))
		})
	}
}

// chromiumBin is the Chromium to load pages in; the test is skipped
// without one or with -short.
func chromiumBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not on PATH (Debian: apt-get install chromium fonts-wqy-microhei); skipping the screenshot test")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	return bin
}

// chromiumPage loads page in headless Chromium and checks what a user
// would see: a real screenshot (kept in testdata/shots with keep), no
// request, a clean console, the script ran under the CSP, no fetchable or
// hostile markup in the DOM. It returns the DOM at a #fragment.
func chromiumPage(t *testing.T, bin, name, html string, keep bool) func(frag string) string {
	t.Helper()
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "shot.png")
	if keep {
		// for a person to look at; not compared (fonts and
		// Chromium versions move pixels), not committed
		os.MkdirAll(filepath.Join("testdata", "shots"), 0o755)
		out, _ = filepath.Abs(filepath.Join("testdata", "shots", name+".png"))
	}
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + filepath.Join(dir, "profile")}
	frag := ""
	run := func(args ...string) (string, string) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, append(append(append([]string{}, common...), args...), "file://"+page+frag)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.String())
			}
		case <-time.After(90 * time.Second):
			cmd.Process.Kill()
			t.Fatal("chromium timed out")
		}
		return stdout.String(), stderr.String()
	}
	_, stderr := run("--window-size=1280,4000", "--screenshot="+out, "--enable-logging=stderr", "--v=1")
	// Chromium logs every URL request at --v=1; the browser's own
	// background requests (update, time, accounts) go to Google
	// hosts and are not the page's doing.
	reqs := regexp.MustCompile(`NotifyBeforeURLRequest: ([a-z]+)://([^/:?\s]*)`).FindAllStringSubmatch(stderr, -1)
	for _, m := range reqs {
		host := m[2]
		if m[1] == "file" || host == "google.com" || strings.HasSuffix(host, ".google.com") || strings.HasSuffix(host, ".googleapis.com") ||
			strings.HasSuffix(host, ".gvt1.com") || strings.HasSuffix(host, ".gstatic.com") {
			continue
		}
		t.Errorf("the page made a request: %s://%s", m[1], host)
	}
	if len(reqs) == 0 && !strings.Contains(stderr, "VERBOSE1") {
		t.Log("chromium wrote no verbose log; request check not effective")
	}
	for _, bad := range []string{"Content Security Policy", "Refused to", "Uncaught"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("chromium console: %q in\n%s", bad, stderr)
		}
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, stderr)
	}
	if st.Size() < 20<<10 {
		t.Errorf("screenshot only %d bytes", st.Size())
	}
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(fh)
	fh.Close()
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colors := map[uint32]bool{}
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 7 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colors[(r>>11)<<10|(g>>11)<<5|b>>11] = true
		}
	}
	if len(colors) < 20 {
		t.Errorf("screenshot has only %d colours", len(colors))
	}
	t.Logf("%s: screenshot %dx%d, %d bytes, %d colours", name, bnd.Dx(), bnd.Dy(), st.Size(), len(colors))
	// the script ran under the CSP, and the DOM holds no fetchable reference
	dom, stderr := run("--dump-dom", "--enable-logging=stderr", "--v=0")
	if !strings.Contains(dom, `data-js="ok"`) {
		t.Errorf("inline script did not run (CSP?):\n%s", stderr)
	}
	if m := regexp.MustCompile(`(?i)(src|href)="(https?|ftp|file|javascript):`).FindString(dom); m != "" {
		t.Errorf("DOM references %s", m)
	}
	if strings.Contains(dom, `<img src="x"`) || strings.Contains(dom, "<script>alert") {
		t.Errorf("hostile markup became DOM")
	}
	if strings.Contains(dom, `class="fr hid"`) {
		t.Error("flame frames hidden without a zoom")
	}
	return func(f string) string {
		frag = f
		dom, _ := run("--dump-dom")
		return dom
	}
}

// checkFlameZoom opens the page zoomed into a frame: frames outside it
// are hidden, the root becomes an ancestor bar, the frame fills the width.
func checkFlameZoom(t *testing.T, dom func(frag string) string, f *flameHTML) {
	t.Helper()
	if f == nil {
		t.Fatal("no flame graph")
	}
	// the root's first child-sized frame
	zi := -1
	for i, f := range f.Frames {
		if w, _ := strconv.ParseFloat(f.Width, 64); w < 50 && w > 5 && f.Bottom != "0" {
			zi = i
			break
		}
	}
	d := dom(fmt.Sprintf("#zoom=%d", zi))
	if !strings.Contains(d, `class="fr hid"`) || !strings.Contains(d, `class="fr anc"`) || !strings.Contains(d, `left: 0%; width: 100%;`) {
		i := strings.Index(d, `id="flame"`)
		t.Errorf("zoom did not apply: …%s…", d[max(i, 0):min(len(d), max(i, 0)+1500)])
	}
}
