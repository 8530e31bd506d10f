// The rules sorted and filtered. A column's button (or #sort=N in the address, N counted from 0)
// orders every rule by that implementation's result, failures first; "by area" puts the areas
// back. The filters keep the rules of one area, level, or with some implementation's result
// (#area=GEN&level=must&result=fail); "only where they chose differently" keeps those silent
// areas (#differ=1). The address says what is shown, so a link shows the same.
(function () {
  var table = document.getElementById("rules");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var buttons = Array.prototype.slice.call(table.querySelectorAll("th button"));
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
  var differ = document.getElementById("differ-only");
  var choices = document.getElementById("choices");
  var shown = document.getElementById("shown");
  var sorted = null;
  function press(which) {
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", b === which ? "true" : "false");
    });
  }
  function remember() {
    var parts = [];
    if (sorted !== null) { parts.push("sort=" + sorted); }
    selects.forEach(function (s) {
      if (s.value) { parts.push(s.getAttribute("data-filter") + "=" + encodeURIComponent(s.value)); }
    });
    if (differ && differ.checked) { parts.push("differ=1"); }
    try {
      history.replaceState(null, "", parts.length ? "#" + parts.join("&") : window.location.pathname);
    } catch (e) { /* a file:// page may refuse; the view stays right */ }
  }
  function byArea() {
    rows.forEach(function (row) { body.appendChild(row); });
    table.classList.remove("sorted");
    if (!table.classList.length) { table.removeAttribute("class"); }
    table.removeAttribute("data-sorted-by");
    sorted = null;
    press(document.getElementById("by-area"));
  }
  function sortBy(column) {
    var ruled = rows.filter(function (row) { return row.classList.contains("rule"); });
    var rank = function (row) {
      return Number(row.cells[2 + column].getAttribute("data-rank"));
    };
    ruled.sort(function (a, b) {
      return rank(a) - rank(b) || Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order"));
    });
    ruled.forEach(function (row) { body.appendChild(row); });
    table.classList.add("sorted");
    table.setAttribute("data-sorted-by", String(column));
    sorted = column;
    press(buttons.filter(function (b) { return b.getAttribute("data-column") === String(column); })[0]);
  }
  function keeps(row) {
    return selects.every(function (s) {
      var want = s.value;
      if (!want) { return true; }
      var key = s.getAttribute("data-filter");
      if (key === "result") {
        return (" " + row.getAttribute("data-results") + " ").indexOf(" " + want + " ") >= 0;
      }
      return row.getAttribute("data-" + key) === want;
    });
  }
  function filter() {
    var kept = 0, total = 0;
    rows.forEach(function (row) {
      if (!row.classList.contains("rule")) { return; }
      total += 1;
      var keep = keeps(row);
      if (keep) { kept += 1; row.removeAttribute("hidden"); } else { row.setAttribute("hidden", "hidden"); }
    });
    // An area or section heading shows while a rule under it does.
    rows.forEach(function (row, i) {
      var area = row.classList.contains("area");
      if (!area && !row.classList.contains("section")) { return; }
      var any = false;
      for (var j = i + 1; j < rows.length; j += 1) {
        var next = rows[j];
        if (next.classList.contains("area") || (!area && next.classList.contains("section"))) { break; }
        if (next.classList.contains("rule") && !next.hasAttribute("hidden")) { any = true; break; }
      }
      if (any) { row.removeAttribute("hidden"); } else { row.setAttribute("hidden", "hidden"); }
    });
    if (shown) { shown.textContent = kept + " of " + total + " rules"; }
    if (choices && differ) {
      if (differ.checked) { choices.classList.add("only-differ"); } else { choices.classList.remove("only-differ"); }
    }
  }
  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      var column = button.getAttribute("data-column");
      if (column === null) { byArea(); } else { sortBy(Number(column)); }
      remember();
    });
  });
  selects.forEach(function (s) {
    s.addEventListener("change", function () { filter(); remember(); });
  });
  if (differ) { differ.addEventListener("change", function () { filter(); remember(); }); }
  window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var pair = part.split("=");
    var key = pair[0], value = decodeURIComponent(pair[1] || "");
    if (key === "sort" && /^[0-9]+$/.test(value)) {
      var column = Number(value);
      if (column >= 0 && column < buttons.length - 1) { sortBy(column); }
    } else if (key === "differ" && differ) {
      differ.checked = value === "1";
    } else {
      selects.forEach(function (s) {
        if (s.getAttribute("data-filter") === key) {
          var known = Array.prototype.some.call(s.options, function (o) { return o.value === value; });
          if (known) { s.value = value; }
        }
      });
    }
  });
  filter();
})();
