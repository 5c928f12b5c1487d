// The claims ledger's filters: above each ledger table, a menu per column of facts (status,
// evidence kind, paper) that hides the rows that do not match. Plain DOM, no kernel, no CDN.
(function () {
  "use strict";
  var FACETS = [["status", "status"], ["evidence", "evidence"], ["paper", "paper"]];
  function setup(ledger) {
    var rows = Array.prototype.slice.call(ledger.querySelectorAll("tr[data-status]"));
    if (!rows.length || ledger.querySelector(".claims-filter")) return;
    var bar = document.createElement("div"), menus = {}, shown = document.createElement("span");
    bar.className = "claims-filter";
    FACETS.forEach(function (f) {
      var values = [];
      rows.forEach(function (r) {
        var v = r.getAttribute("data-" + f[0]);
        if (values.indexOf(v) < 0) values.push(v);
      });
      if (values.length < 2) return;  // one paper per table: no paper menu
      var label = document.createElement("label"), menu = document.createElement("select");
      label.textContent = f[1] + " ";
      menu.innerHTML = "<option value=''>all</option>" + values.map(function (v) {
        return "<option>" + v + "</option>";
      }).join("");
      menu.addEventListener("change", apply);
      label.appendChild(menu);
      bar.appendChild(label);
      menus[f[0]] = menu;
    });
    shown.className = "claims-shown";
    bar.appendChild(shown);
    function apply() {
      var n = 0;
      rows.forEach(function (r) {
        var ok = Object.keys(menus).every(function (k) {
          return !menus[k].value || r.getAttribute("data-" + k) === menus[k].value;
        });
        r.classList.toggle("claim-hidden", !ok);
        if (ok) n += 1;
      });
      shown.textContent = n + " of " + rows.length + " claims shown";
    }
    ledger.insertBefore(bar, ledger.firstChild);
    apply();
  }
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".claims-ledger"), setup);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
