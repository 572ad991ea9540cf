/* orderdep HTML report: zoom/pan/search for the graph, sorting/filtering for tables.
   The page is complete without it; when it has run without an error it marks <html>
   with data-report-ready="1" (an uncaught error sets data-report-error instead). */
(function () {
  "use strict";
  var root = document.documentElement;
  window.addEventListener("error", function (event) {
    root.setAttribute("data-report-error", String(event.message || "error"));
  });

  function $(id) { return document.getElementById(id); }
  function all(selector, scope) { return Array.prototype.slice.call((scope || document).querySelectorAll(selector)); }

  /* ---- graph: viewBox zoom and pan ---------------------------------------------------- */
  function setupGraph() {
    var svg = $("graph");
    if (!svg) { return; }
    var full = { x: 0, y: 0, w: parseFloat(svg.getAttribute("data-width")) || 1, h: parseFloat(svg.getAttribute("data-height")) || 1 };
    var view = { x: full.x, y: full.y, w: full.w, h: full.h };
    function apply() { svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" ")); }
    function scale() {  // svg units per screen pixel (the viewBox is fitted, "meet")
      var r = svg.getBoundingClientRect();
      return Math.max(view.w / Math.max(r.width, 1), view.h / Math.max(r.height, 1));
    }
    function toSvg(clientX, clientY) {
      var r = svg.getBoundingClientRect(), s = scale();
      var cx = view.x + view.w / 2, cy = view.y + view.h / 2;
      return { x: cx + (clientX - r.left - r.width / 2) * s, y: cy + (clientY - r.top - r.height / 2) * s };
    }
    function zoom(factor, at) {
      var w = Math.min(Math.max(view.w * factor, 40), full.w * 4);
      var f = w / view.w;
      var p = at || { x: view.x + view.w / 2, y: view.y + view.h / 2 };
      view.x = p.x - (p.x - view.x) * f; view.y = p.y - (p.y - view.y) * f;
      view.w *= f; view.h *= f;
      apply();
    }
    function fit() {  // everything in sight, never drawn larger than 1:1
      var r = svg.getBoundingClientRect();
      var w = Math.max(full.w, r.width), h = Math.max(full.h, r.height);
      var s = Math.max(w / Math.max(r.width, 1), h / Math.max(r.height, 1));
      w = r.width * s; h = r.height * s;
      view = { x: (full.w - w) / 2, y: (full.h - h) / 2, w: w, h: h };
      apply();
    }
    function fitHeight() {  // a frame no taller than the graph needs at the page's width
      var width = svg.getBoundingClientRect().width || 1;
      var natural = full.h * Math.min(1, width / full.w) + 24;
      svg.style.height = Math.max(240, Math.min(natural, window.innerHeight * 0.75)) + "px";
    }
    fitHeight();
    fit();
    function focusOn(node) {
      var box = node.getBBox(), m = node.transform.baseVal.consolidate();
      var x = (m ? m.matrix.e : 0) + box.width / 2, y = (m ? m.matrix.f : 0) + box.height / 2;
      var r = svg.getBoundingClientRect();
      var w = Math.min(full.w, Math.max(600, box.width * 3));
      var h = w * (r.height / Math.max(r.width, 1));
      view = { x: x - w / 2, y: y - h / 2, w: w, h: h };
      apply();
    }
    svg.addEventListener("wheel", function (e) {
      e.preventDefault();
      zoom(Math.pow(1.0015, e.deltaY), toSvg(e.clientX, e.clientY));
    }, { passive: false });
    var drag = null;
    svg.addEventListener("pointerdown", function (e) {
      drag = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y, moved: false };
      svg.classList.add("dragging");
    });
    window.addEventListener("pointermove", function (e) {
      if (!drag) { return; }
      var s = scale(), dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; }
      view.x = drag.vx - dx * s; view.y = drag.vy - dy * s;
      apply();
    });
    window.addEventListener("pointerup", function () {
      svg.classList.remove("dragging");
      setTimeout(function () { drag = null; }, 0);
    });
    $("zoom-in").addEventListener("click", function () { zoom(1 / 1.4); });
    $("zoom-out").addEventListener("click", function () { zoom(1.4); });
    $("zoom-fit").addEventListener("click", fit);

    /* neighbourhoods: click a node to keep only it and its neighbours bright */
    var edges = all("#graph .edge"), info = $("node-info");
    var byNode = {};
    edges.forEach(function (edge) {
      [edge.getAttribute("data-s"), edge.getAttribute("data-t")].forEach(function (id) {
        (byNode[id] = byNode[id] || []).push(edge);
      });
    });
    function clearFocus() {
      svg.classList.remove("focus");
      all("#graph .near, #graph .selected").forEach(function (el) { el.classList.remove("near", "selected"); });
      info.hidden = true;
    }
    function select(node) {
      clearFocus();
      svg.classList.add("focus");
      node.classList.add("near", "selected");
      var names = [];
      (byNode[node.id] || []).forEach(function (edge) {
        edge.classList.add("near");
        var other = $(edge.getAttribute("data-s") === node.id ? edge.getAttribute("data-t") : edge.getAttribute("data-s"));
        other.classList.add("near");
        names.push(edge.querySelector("title").textContent);
      });
      info.textContent = "";
      var head = document.createElement("code");
      head.textContent = node.getAttribute("data-key");
      info.appendChild(head);
      var list = document.createElement("ul");
      names.forEach(function (n) { var li = document.createElement("li"); li.textContent = n; list.appendChild(li); });
      info.appendChild(list);
      var row = document.querySelector('#od-table tr[data-node="' + node.id + '"] a.test');
      if (row) {
        var link = document.createElement("a");
        link.href = row.getAttribute("href"); link.textContent = "evidence and patch";
        info.appendChild(link);
      }
      info.hidden = false;
    }
    all("#graph .node").forEach(function (node) {
      node.addEventListener("click", function (e) {
        e.stopPropagation();
        if (drag && drag.moved) { return; }
        if (node.classList.contains("selected")) { clearFocus(); } else { select(node); }
      });
    });
    svg.addEventListener("click", function () { if (!(drag && drag.moved)) { clearFocus(); } });

    /* legend: hide or show a relation */
    all(".legend input[data-relation]").forEach(function (box) {
      box.addEventListener("change", function () {
        var rel = box.getAttribute("data-relation");
        all('#graph .edge[data-relation="' + rel + '"]').forEach(function (edge) {
          edge.style.display = box.checked ? "" : "none";
        });
      });
    });

    /* search: outline matching nodes, zoom to the first one on Enter */
    var search = $("graph-search");
    search.addEventListener("input", function () {
      var q = search.value.trim().toLowerCase();
      all("#graph .node").forEach(function (node) {
        var hit = q !== "" && node.getAttribute("data-key").toLowerCase().indexOf(q) >= 0;
        node.classList.toggle("match", hit);
      });
    });
    search.addEventListener("keydown", function (e) {
      if (e.key !== "Enter") { return; }
      var first = document.querySelector("#graph .node.match");
      if (first) { focusOn(first); select(first); }
    });

    /* "show in graph" links of the evidence sections */
    all("a.show-node").forEach(function (link) {
      link.addEventListener("click", function () {
        var node = $(link.getAttribute("data-node"));
        if (node) { setTimeout(function () { focusOn(node); select(node); }, 0); }
      });
    });
  }

  /* ---- tables: sort by a column, filter rows ------------------------------------------ */
  function cellValue(cell, type) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (type === "number") { var n = parseFloat(raw); return isNaN(n) ? -Infinity : n; }
    return raw.toLowerCase();
  }
  function setupSorting(table) {
    var heads = all("thead th", table);
    heads.forEach(function (th, col) {
      th.addEventListener("click", function () {
        var type = th.getAttribute("data-type") || "text";
        var desc = th.classList.contains("asc");
        heads.forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(desc ? "desc" : "asc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a.cells[col], type), y = cellValue(b.cells[col], type);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return desc ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  function setupFilter() {
    var table = $("od-table");
    if (!table) { return; }
    var text = $("table-filter"), kind = $("kind-filter"), count = $("row-count");
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function update() {
      var q = text.value.trim().toLowerCase(), k = kind.value, shown = 0;
      rows.forEach(function (row) {
        var ok = (!k || row.getAttribute("data-kind") === k) && (!q || row.textContent.toLowerCase().indexOf(q) >= 0);
        row.hidden = !ok;
        if (ok) { shown += 1; }
      });
      count.textContent = shown + " of " + rows.length + " shown · click a column to sort";
    }
    text.addEventListener("input", update);
    kind.addEventListener("change", update);
  }

  setupGraph();
  all("table.sortable").forEach(setupSorting);
  setupFilter();
  root.setAttribute("data-report-ready", "1");
})();
