// Flame graph zoom: click a frame to make it the full width, click the
// bottom frame (or "reset") to go back. The static page needs none of it.
(function () {
  "use strict";
  var data = {};
  try { data = JSON.parse(document.getElementById("tl-data").textContent || "{}"); } catch (e) {}
  document.documentElement.setAttribute("data-js", "ok");
  // Every flame graph of the page (the run page switches between CPU,
  // allocation and lock graphs): each zooms on its own.
  var boxes = document.querySelectorAll(".flame");
  for (var b = 0; b < boxes.length; b++) { setup(boxes[b], b === 0); }
  function setup(box, first) {
    var scope = box.parentNode;
    var info = scope.querySelector(".flame-info");
    var reset = scope.querySelector("#flame-reset, .flame-reset");
    var els = box.querySelectorAll(".fr");
    var fr = [];
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      var t = el.getAttribute("title") || "";
      var nl = t.indexOf("\n");
      fr.push({ el: el, x: parseFloat(el.style.left), w: parseFloat(el.style.width),
        d: parseFloat(el.style.bottom), name: nl < 0 ? t : t.slice(0, nl), tip: t.replace("\n", " — ") });
    }
    function show(f, left, width) {
      f.el.style.left = left + "%";
      f.el.style.width = width + "%";
      if (width >= 2.5 && !f.el.textContent) { f.el.textContent = f.name; }
    }
    function zoom(z) {
      for (var i = 0; i < fr.length; i++) {
        var f = fr[i];
        f.el.classList.remove("hid", "anc");
        if (!z) { show(f, f.x, f.w); continue; }
        var inside = f.x >= z.x - 1e-6 && f.x + f.w <= z.x + z.w + 1e-6;
        if (f.d >= z.d && inside) {
          show(f, (f.x - z.x) / z.w * 100, f.w / z.w * 100);
        } else if (f.d < z.d && f.x <= z.x + 1e-6 && f.x + f.w >= z.x + z.w - 1e-6) {
          show(f, 0, 100);
          f.el.classList.add("anc");
        } else {
          f.el.classList.add("hid");
        }
      }
      if (reset) { reset.hidden = !z; }
    }
    box.addEventListener("click", function (ev) {
      var el = ev.target.closest ? ev.target.closest(".fr") : null;
      if (!el) { return; }
      for (var i = 0; i < fr.length; i++) {
        if (fr[i].el === el) { zoom(fr[i].d === 0 ? null : fr[i]); return; }
      }
    });
    box.addEventListener("mouseover", function (ev) {
      var el = ev.target.closest ? ev.target.closest(".fr") : null;
      if (!el || !info) { return; }
      for (var i = 0; i < fr.length; i++) {
        if (fr[i].el === el) { info.textContent = fr[i].tip; return; }
      }
    });
    if (reset) { reset.addEventListener("click", function () { zoom(null); }); }
    // #zoom=N opens the page's first graph zoomed into frame N (links, tests).
    var m = first ? /^#zoom=(\d+)$/.exec(location.hash || "") : null;
    if (m && fr[+m[1]] && fr[+m[1]].d > 0) { zoom(fr[+m[1]]); }
    box.setAttribute("data-frames", String(fr.length));
  }
  void data;
})();
