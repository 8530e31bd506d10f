// The column sorted view: a column's button (or #sort=N in the address) orders every rule by
// that implementation's result, failures first; "by area" puts the areas back.
(function () {
  var table = document.getElementById("rules");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var buttons = Array.prototype.slice.call(table.querySelectorAll("th button"));
  function press(which) {
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", b === which ? "true" : "false");
    });
  }
  function byArea() {
    rows.forEach(function (row) { body.appendChild(row); });
    table.classList.remove("sorted");
    table.removeAttribute("data-sorted-by");
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
    press(buttons.filter(function (b) { return b.getAttribute("data-column") === String(column); })[0]);
  }
  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      var column = button.getAttribute("data-column");
      if (column === null) { byArea(); } else { sortBy(Number(column)); }
    });
  });
  var asked = /^#sort=([0-9]+)$/.exec(window.location.hash);
  if (asked) {
    var column = Number(asked[1]);
    if (column >= 0 && column < buttons.length - 1) { sortBy(column); }
  }
})();
