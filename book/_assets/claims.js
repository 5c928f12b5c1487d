// The claims ledger's filters: above each ledger table, a menu per column of facts (status,
// evidence kind, paper) that hides the rows that do not match; and the chapters' claims
// boxes folded one line per claim, each unfolded on demand. Plain DOM, no kernel, no CDN.
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
  // A chapter's claims box: each card folds to one line (claim id · paper · ours · status);
  // "details" unfolds the rest (evidence, method, control, where it was measured).
  var KEEP = ["Paper", "Ours", "Status"];
  function fold(card) {
    var head = card.querySelector(".claim-card-id");
    if (!head || card.querySelector(".claim-toggle")) return;
    Array.prototype.forEach.call(card.querySelectorAll("dl.claim-fields > dt"), function (dt) {
      if (KEEP.indexOf(dt.textContent.trim()) < 0) return;
      dt.classList.add("claim-keep");
      if (dt.nextElementSibling) dt.nextElementSibling.classList.add("claim-keep");
    });
    var button = document.createElement("button");
    button.type = "button";
    button.className = "claim-toggle";
    button.setAttribute("aria-expanded", "false");
    button.textContent = "details";
    button.addEventListener("click", function () {
      var open = card.classList.toggle("claim-folded") === false;
      button.setAttribute("aria-expanded", open ? "true" : "false");
      button.textContent = open ? "fold" : "details";
    });
    head.appendChild(button);
    card.classList.add("claim-folded");
  }
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".claims-ledger"), setup);
    Array.prototype.forEach.call(document.querySelectorAll(".claims-box .claim-card"), fold);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
