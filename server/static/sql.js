// The SQL page: POST the editor's text to /api/sql and show the rows.
// Everything is inserted as text (textContent), never as HTML.
(function () {
  "use strict";
  var form = document.getElementById("sql-form");
  var editor = document.getElementById("sql");
  var format = document.getElementById("format");
  var status = document.getElementById("status");
  var out = document.getElementById("result");

  function el(tag, text) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function cell(v) {
    if (v === null) return "NULL";
    if (typeof v === "object") return JSON.stringify(v);
    return String(v);
  }

  function showTable(rows) {
    if (rows.length === 0) { out.appendChild(el("p", "No rows.")); return; }
    var cols = Object.keys(rows[0]);
    var wrap = el("div"); wrap.className = "scroll";
    var table = el("table"), head = el("tr"), body = el("tbody");
    cols.forEach(function (c) { head.appendChild(el("th", c)); });
    var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    rows.forEach(function (r) {
      var tr = el("tr");
      cols.forEach(function (c) { tr.appendChild(el("td", cell(r[c]))); });
      body.appendChild(tr);
    });
    table.appendChild(body); wrap.appendChild(table); out.appendChild(wrap);
  }

  function run(ev) {
    if (ev) ev.preventDefault();
    var started = performance.now();
    status.textContent = "running…";
    out.textContent = "";
    fetch("/api/sql", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      // The table shows values as text (a header's UTF-8 value as text):
      // the text format; CSV as it comes.
      body: JSON.stringify({ sql: editor.value, format: format.value === "json" ? "text" : format.value })
    }).then(function (res) {
      var ms = Math.round(performance.now() - started);
      var n = res.headers.get("X-Topicsnap-Rows");
      var cut = res.headers.get("X-Topicsnap-Truncated") === "true";
      if (!res.ok) {
        return res.json().then(function (e) {
          status.textContent = res.status + " after " + ms + " ms";
          var p = el("p", e.error || res.statusText); p.className = "error"; out.appendChild(p);
        }, function () { status.textContent = res.status + " " + res.statusText; });
      }
      status.textContent = n + " rows" + (cut ? " (more were left out)" : "") + " in " + ms + " ms";
      var warn = res.headers.get("X-Topicsnap-Warnings");
      if (warn) {
        JSON.parse(decodeURIComponent(warn)).forEach(function (w) {
          var p = el("p", "Warning: " + w); p.className = "warning"; p.setAttribute("role", "note"); out.appendChild(p);
        });
      }
      if (format.value === "csv") {
        return res.text().then(function (t) { var pre = el("pre", t); pre.className = "csv scroll"; out.appendChild(pre); });
      }
      return res.json().then(showTable);
    }).catch(function (e) { status.textContent = "failed: " + e; });
  }

  form.addEventListener("submit", run);
  editor.addEventListener("keydown", function (ev) {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter") run(ev);
  });
  // /sql?q=...&run=1: the server marked the form to run on load.
  if (form.getAttribute("data-run") === "1") run();
})();
