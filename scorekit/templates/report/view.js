"use strict";
(function () {
  // scorekit view (SPEC §19). Every value from the data is written with textContent, never as markup;
  // class names come from closed lists below, never from the data; no URL is ever built.
  var D = JSON.parse(document.getElementById("sk-data").textContent);
  var STATUSES = ["PASS", "FAIL", "ERROR", "ABSTAIN"];
  var STATUS_CLASS = ["sk-s-pass", "sk-s-fail", "sk-s-error", "sk-s-abstain"];
  var TONES = ["pass", "fail", "incomplete", "triage", "self-test"];
  var root = document.getElementById("sk-view");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function tone(value) { return TONES.indexOf(value) >= 0 ? value : "unknown"; }
  function fmtInt(n) { return Number(n).toLocaleString("en-US"); }

  // ------------------------------------------------------------------ banner
  add(root, el("h1", "", "scorekit view" + (D.title ? " — " + D.title : "")));
  var banner = add(root, el("div", "sk-banner sk-tone-" + tone(D.decision.tone)));
  banner.id = "sk-decision";
  add(banner, el("span", "sk-decision-value", D.decision.value));
  add(banner, el("span", "sk-decision-meaning", D.decision.meaning));
  var facts = add(banner, el("ul", "sk-facts"));
  add(facts, el("li", "", "purpose: " + D.decision.purpose + (D.decision.partial ? " (partial run)" : "")));
  D.decision.reasons.forEach(function (r) { add(facts, el("li", "", r)); });
  D.identity.forEach(function (p) { add(facts, el("li", "", p[0] + ": " + p[1])); });
  if (D.error_rates) add(banner, el("p", "sk-note", D.error_rates));

  // ------------------------------------------------------------------ tables
  function cellTd(c, numeric) {
    var td = el("td", numeric ? "sk-num" : "", c.t);
    if (c.k === "code") td.className = "sk-code";
    if ((c.k === "verdict" || c.k === "status") && c.tone) td.className = "sk-v-" + tone(c.tone);
    return td;
  }
  function sortableTable(t, id) {
    var table = el("table", "sk-dims");
    table.id = id;
    var thead = add(table, el("thead")), tr = add(thead, el("tr")), tbody = add(table, el("tbody"));
    var order = { col: -1, dir: 1 };
    function draw(rows) {
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      rows.forEach(function (row) {
        var r = add(tbody, el("tr"));
        row.forEach(function (c, j) { add(r, cellTd(c, t.numeric.indexOf(j) >= 0)); });
      });
    }
    function cmp(a, b) {
      if (a === b) return 0;
      if (a === null) return 1;
      if (b === null) return -1;
      if (typeof a === "number" && typeof b === "number") return a - b;
      return String(a).localeCompare(String(b));
    }
    t.columns.forEach(function (name, j) {
      var th = add(tr, el("th", t.numeric.indexOf(j) >= 0 ? "sk-num" : ""));
      th.setAttribute("aria-sort", "none");
      var b = add(th, el("button", "", name));
      b.type = "button";
      b.addEventListener("click", function () {
        order.dir = order.col === j ? -order.dir : 1;
        order.col = j;
        Array.prototype.forEach.call(tr.children, function (h) { h.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", order.dir > 0 ? "ascending" : "descending");
        var rows = t.rows.slice().sort(function (x, y) {
          var c = cmp(x[j].s, y[j].s);
          if (c !== 0 && (x[j].s === null || y[j].s === null)) return c;  // undefined values always last
          return c * order.dir || cmp(x[0].s, y[0].s);
        });
        draw(rows);
      });
    });
    draw(t.rows);
    return table;
  }

  add(root, el("h2", "", "Dimensions"));
  add(root, el("p", "sk-note", "Click a column header to sort by it (again to reverse)."));
  add(root, sortableTable(D.table, "sk-dimensions"));

  // ------------------------------------------------------------------ evidence grid
  add(root, el("h2", "", "Cases"));
  var rows = D.rows, counts = D.counts;
  if (D.rows_total === null) {
    add(root, el("p", "sk-warn", "No evidence rows beside this scorecard (evidence.parquet or evidence/): "
      + "only the dimension table can be shown."));
  } else if (counts) {
    var note = add(root, el("p", "sk-warn", "This evaluation has " + fmtInt(D.rows_total) + " evidence rows, more than the "
      + fmtInt(D.row_limit) + " this page embeds: the grid shows per-case counts (passes, fails, errors, abstains), "
      + "not each trial, and a case's rows are not in the page (read them from the evidence file)."));
    note.id = "sk-limit-note";
  } else if (rows.id.length < D.rows_total) {
    add(root, el("p", "sk-note", "The grid shows the " + fmtInt(rows.id.length) + " rows that measure the agent; "
      + fmtInt(D.rows_total - rows.id.length) + " evaluator control rows or rows not counted are left out."));
  }

  var filters = add(root, el("div", "sk-filters"));
  function labelled(text, control) {
    var l = add(filters, el("label", "", text));
    l.appendChild(control);
    return control;
  }
  function select(options) {
    var s = el("select");
    options.forEach(function (o) { var opt = add(s, el("option", "", o[1])); opt.value = o[0]; });
    return s;
  }
  var statusSel = labelled("status", select([["", "any status"]].concat(STATUSES.map(function (s) { return [s, s]; }))));
  statusSel.id = "sk-filter-status";
  var reasons = [];
  if (rows) {
    var seen = Object.create(null);  // keys are data: "__proto__" must stay a key
    rows.reason.forEach(function (r) { if (r !== null && !Object.prototype.hasOwnProperty.call(seen, r)) { seen[r] = 1; reasons.push(r); } });
    reasons.sort();
  }
  var reasonSel = labelled("reason", select([["", "any reason"]].concat(reasons.map(function (r) { return [r, r]; }))));
  reasonSel.id = "sk-filter-reason";
  if (!rows) reasonSel.disabled = true;
  var textIn = labelled(rows ? "text (case id, reason, detail, output)" : "text (case id)", el("input"));
  textIn.type = "search";
  textIn.id = "sk-filter-text";
  var shown = add(filters, el("span", "sk-note"));
  shown.id = "sk-shown";

  var gridBox = add(root, el("div"));
  gridBox.id = "sk-grids";
  var casePanel = add(root, el("div", "sk-case-rows"));
  casePanel.id = "sk-case";
  casePanel.hidden = true;

  function rowMatches(i, st, rs, q) {
    if (st !== "" && STATUSES[rows.status[i]] !== st) return false;
    if (rs !== "" && rows.reason[i] !== rs) return false;
    if (q) {
      var hay = [rows.case_id[i], rows.reason[i], rows.detail[i], rows.output[i], rows.id[i]];
      for (var k = 0; k < hay.length; k++) if (hay[k] !== null && String(hay[k]).toLowerCase().indexOf(q) >= 0) return true;
      return false;
    }
    return true;
  }

  function showCase(caseId) {
    while (casePanel.firstChild) casePanel.removeChild(casePanel.firstChild);
    casePanel.hidden = false;
    var h = add(casePanel, el("h3", "", "case "));
    add(h, el("code", "sk-case-id", caseId));
    var table = add(casePanel, el("table"));
    var head = add(add(table, el("thead")), el("tr")), body = add(table, el("tbody"));
    if (rows) {
      ["dimension", "trial", "status", "reason", "detail", "output (excerpt)"].forEach(function (c) { add(head, el("th", "", c)); });
      for (var i = 0; i < rows.case_id.length; i++) {
        if (rows.case_id[i] !== caseId) continue;
        var r = add(body, el("tr"));
        add(r, el("td", "sk-code", rows.dimensions[rows.dimension[i]]));
        add(r, el("td", "", rows.trial[i] === null ? "—" : rows.trial[i]));
        add(r, el("td", STATUS_CLASS[rows.status[i]] || "", STATUSES[rows.status[i]] || "?"));
        add(r, el("td", "", rows.reason[i] === null ? "—" : rows.reason[i]));
        add(r, el("td", "", rows.detail[i] === null ? "—" : rows.detail[i]));
        add(r, el("td", "sk-output", rows.output[i] === null ? "—" : rows.output[i]));
      }
    } else {
      ["dimension", "passes", "fails", "errors", "abstains"].forEach(function (c) { add(head, el("th", "", c)); });
      for (var j = 0; j < counts.case_id.length; j++) {
        if (counts.case_id[j] !== caseId) continue;
        var cr = add(body, el("tr"));
        add(cr, el("td", "sk-code", counts.dimensions[counts.dimension[j]]));
        ["passes", "fails", "errors", "abstains"].forEach(function (k) { add(cr, el("td", "sk-num", fmtInt(counts[k][j]))); });
      }
    }
  }

  function caseCell(tr, caseId) {
    var td = add(tr, el("td", "sk-case sk-code", caseId));
    td.addEventListener("click", function () {
      var prev = gridBox.querySelectorAll("tr.sk-selected");
      Array.prototype.forEach.call(prev, function (p) { p.classList.remove("sk-selected"); });
      tr.classList.add("sk-selected");
      showCase(caseId);
    });
    return td;
  }

  // A dimension's grid draws its first PAGE matching cases; "show all" draws the rest (a browser takes
  // seconds to lay out tens of thousands of rows, and filters redraw the grid).
  var PAGE = 500, expanded = Object.create(null);
  function capped(list, d) { return expanded[d] ? list : list.slice(0, PAGE); }
  function moreButton(sec, d, total) {
    if (expanded[d] || total <= PAGE) return;
    var p = add(sec, el("p", "sk-note sk-more", "The first " + fmtInt(PAGE) + " of " + fmtInt(total)
      + " matching cases are drawn; narrow the filters, or "));
    var b = add(p, el("button", "", "show all " + fmtInt(total)));
    b.type = "button";
    b.addEventListener("click", function () { expanded[d] = true; drawGridRows(); });
  }

  function drawGridRows() {
    var st = statusSel.value, rs = reasonSel.value, q = textIn.value.trim().toLowerCase();
    while (gridBox.firstChild) gridBox.removeChild(gridBox.firstChild);
    var casesShown = 0;
    if (rows) {
      // per dimension: case -> {trial -> row index}
      // Maps keyed by data (case ids, trials) have no prototype: a case id "__proto__" stays a key.
      var byDim = rows.dimensions.map(function () { return { cases: Object.create(null), order: [], trials: Object.create(null) }; });
      for (var i = 0; i < rows.case_id.length; i++) {
        var g = byDim[rows.dimension[i]], c = rows.case_id[i], t = rows.trial[i] === null ? "—" : String(rows.trial[i]);
        if (!Object.prototype.hasOwnProperty.call(g.cases, c)) { g.cases[c] = { cells: Object.create(null), match: false }; g.order.push(c); }
        var m = rowMatches(i, st, rs, q);
        g.cases[c].cells[t] = { i: i, match: m };
        if (m) g.cases[c].match = true;
        g.trials[t] = 1;
      }
      rows.dimensions.forEach(function (name, d) {
        var g = byDim[d];
        var trials = Object.keys(g.trials).sort(function (a, b) { return (Number(a) - Number(b)) || a.localeCompare(b); });
        var visible = g.order.filter(function (c) { return g.cases[c].match; }).sort();
        var sec = add(gridBox, el("section", "sk-dimension"));
        var h = add(sec, el("h3", "", ""));
        add(h, el("code", "", name));
        add(h, document.createTextNode(" — " + visible.length + " of " + g.order.length + " cases"));
        if (!visible.length) return;
        var table = add(sec, el("table", "sk-grid"));
        var head = add(add(table, el("thead")), el("tr"));
        add(head, el("th", "", "case"));
        trials.forEach(function (t) { add(head, el("th", "sk-num", "trial " + t)); });
        var body = add(table, el("tbody"));
        capped(visible, d).forEach(function (c) {
          var tr = add(body, el("tr", "sk-case-row"));
          caseCell(tr, c);
          trials.forEach(function (t) {
            var cell = g.cases[c].cells[t];
            if (!cell) { add(tr, el("td", "sk-cell sk-s-none", "·")); return; }
            var s = rows.status[cell.i];
            var td = add(tr, el("td", "sk-cell " + (STATUS_CLASS[s] || "") + (cell.match ? "" : " sk-faded"),
                                (STATUSES[s] || "?").charAt(0)));
            td.title = (STATUSES[s] || "?") + (rows.reason[cell.i] !== null ? " — " + rows.reason[cell.i] : "");
            td.addEventListener("click", function () { tr.firstChild.click(); });
          });
        });
        moreButton(sec, d, visible.length);
        casesShown += visible.length;
      });
    } else if (counts) {
      counts.dimensions.forEach(function (name, d) {
        var idx = [];
        for (var j = 0; j < counts.case_id.length; j++) {
          if (counts.dimension[j] !== d) continue;
          if (st !== "" && counts[["passes", "fails", "errors", "abstains"][STATUSES.indexOf(st)]][j] === 0) continue;
          if (q && counts.case_id[j].toLowerCase().indexOf(q) < 0) continue;
          idx.push(j);
        }
        var sec = add(gridBox, el("section", "sk-dimension"));
        var h = add(sec, el("h3", "", ""));
        add(h, el("code", "", name));
        add(h, document.createTextNode(" — " + idx.length + " cases (per-case counts)"));
        if (!idx.length) return;
        var table = add(sec, el("table", "sk-grid sk-counts"));
        var head = add(add(table, el("thead")), el("tr"));
        ["case", "passes", "fails", "errors", "abstains"].forEach(function (c) { add(head, el("th", "", c)); });
        var body = add(table, el("tbody"));
        capped(idx, d).forEach(function (j) {
          var tr = add(body, el("tr", "sk-case-row"));
          caseCell(tr, counts.case_id[j]);
          ["passes", "fails", "errors", "abstains"].forEach(function (k, s) {
            add(tr, el("td", "sk-cell " + (counts[k][j] ? STATUS_CLASS[s] : "sk-s-none"), fmtInt(counts[k][j])));
          });
        });
        moreButton(sec, d, idx.length);
        casesShown += idx.length;
      });
    }
    shown.textContent = fmtInt(casesShown) + " case rows match";
  }
  [statusSel, reasonSel].forEach(function (s) { s.addEventListener("change", drawGridRows); });
  textIn.addEventListener("input", drawGridRows);
  drawGridRows();

  // ------------------------------------------------------------------ comparison
  if (D.compare) {
    var C = D.compare;
    var sec = add(root, el("section"));
    sec.id = "sk-compare";
    add(sec, el("h2", "", "Comparison: " + C.title));
    var cf = add(sec, el("ul", "sk-facts"));
    C.facts.forEach(function (f) { add(cf, el("li", "", f[0] + ": " + f[1])); });
    add(sec, el("p", "sk-note", C.note));
    add(sec, sortableTable(C.table, "sk-compare-table"));
    var lists = add(sec, el("div", "sk-lists"));
    [["sk-regressed", "Regressed cases (rate fell)", C.regressed], ["sk-improved", "Improved cases (rate rose)", C.improved]]
      .forEach(function (spec) {
        var box = add(lists, el("section"));
        box.id = spec[0];
        add(box, el("h3", "", spec[1] + " — " + spec[2].length + " listed"));
        if (!spec[2].length) { add(box, el("p", "sk-note", "none")); return; }
        var table = add(box, el("table"));
        var head = add(add(table, el("thead")), el("tr"));
        C.case_columns.forEach(function (c) { add(head, el("th", "", c)); });
        var body = add(table, el("tbody"));
        spec[2].forEach(function (r) {
          var tr = add(body, el("tr"));
          r.forEach(function (v, j) { add(tr, el("td", j < 2 ? "sk-code" : "sk-num", v)); });
        });
      });
    add(sec, el("p", "sk-note", C.cases_note));
  }
})();
