// llmcap report.html: sortable tables and chart hover tips. The page reads fully
// without this script (tables and charts are plain markup; points carry <title>s).
(function () {
  "use strict";
  function key(td) {
    var v = td.getAttribute("data-sort");
    return v === null ? null : parseFloat(v);
  }
  function sortBy(table, th, col) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col], y = b.cells[col];
      if (!x || !y) { return 0; }
      var kx = key(x), ky = key(y), d;
      if (kx !== null && ky !== null) { d = kx - ky; }
      else if (kx !== null) { return -1; } // numbers before text and "–", either way
      else if (ky !== null) { return 1; }
      else { d = x.textContent.localeCompare(y.textContent, undefined, { numeric: true }); }
      return asc ? d : -d;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.title = "Sort by " + th.textContent;
      th.addEventListener("click", function () { sortBy(table, th, col); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, col); }
      });
    });
  });
  var tip = document.getElementById("tip");
  function show(hit, x, y) {
    tip.textContent = hit.getAttribute("data-tip");
    tip.hidden = false;
    tip.style.left = (x + 12) + "px";
    tip.style.top = (y + 12) + "px";
    hit.classList.add("on");
  }
  document.querySelectorAll("svg.chart .hit").forEach(function (hit) {
    var t = hit.querySelector("title");
    if (t) { hit.removeChild(t); } // the script's tip replaces the browser's
    hit.addEventListener("mouseenter", function (e) { show(hit, e.pageX, e.pageY); });
    hit.addEventListener("mousemove", function (e) { show(hit, e.pageX, e.pageY); });
    hit.addEventListener("mouseleave", function () { tip.hidden = true; hit.classList.remove("on"); });
  });
})();
