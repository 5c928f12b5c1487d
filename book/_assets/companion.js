/* Kernel-free Explore figures (companion.widgets.explore): every .companion-explore holds
 * controls named by data-param, a <picture> (the phone layout's <source> and the desktop
 * <img>) and a JSON table of precomputed frames (their URLs: files next to the page on the
 * site, so a page loads only the frames it shows); moving a control shows the frame of the
 * new setting. Settings that were not precomputed snap to
 * the nearest one that was (the other controls move with it, so what they show is always
 * what the figure shows). A control that applies only at other controls' values
 * (data-when) is disabled elsewhere. The readout under the figure (its numbers in words) and
 * a note when a setting snapped follow every move. Tested with node: tests/js/explore.test.js.
 */
var CompanionExplore = (function () {
  "use strict";

  /* The precomputed setting to show when the reader asks for `wanted` (an array of value
   * indices) by moving control `moved`: `wanted` itself if it was precomputed, otherwise
   * the precomputed setting that keeps the moved control's value and differs least from
   * `wanted` (fewest other controls changed, then the smallest steps). Returns its key
   * ("i,j,..."), or null if no precomputed setting has that value. */
  function nearest(index, wanted, moved) {
    var key = wanted.join(",");
    if (Object.prototype.hasOwnProperty.call(index, key)) return key;
    var best = null, bestCost = null;
    Object.keys(index).forEach(function (k) {
      var idx = k.split(",").map(Number);
      if (idx[moved] !== wanted[moved]) return;
      var changed = 0, steps = 0;
      for (var i = 0; i < idx.length; i++) {
        if (idx[i] !== wanted[i]) { changed += 1; steps += Math.abs(idx[i] - wanted[i]); }
      }
      var cost = changed * 1000 + steps;
      if (bestCost === null || cost < bestCost) { best = k; bestCost = cost; }
    });
    return best;
  }

  function bind(root) {
    if (root.getAttribute("data-explore-bound")) return;
    var script = root.querySelector("script.companion-explore-data");
    var img = root.querySelector("img");
    if (!script || !img) return;
    var data = JSON.parse(script.textContent);
    var controls = data.params.map(function (name) {
      return root.querySelector('[data-param="' + name + '"]');
    });
    function show(key) {
      var state = key.split(",").map(Number);
      controls.forEach(function (el, i) {
        if (!el) return;
        el.value = String(state[i]);
        var text = data.texts[i][state[i]];
        var out = el.parentNode && el.parentNode.querySelector("output");
        if (out) out.textContent = text;
        if (el.tagName === "INPUT") el.setAttribute("aria-valuetext", text);
      });
      // a control that applies only at other controls' values (data-when) is disabled elsewhere
      controls.forEach(function (el) {
        var when = el && el.getAttribute("data-when");
        if (!when) return;
        var cond = JSON.parse(when);
        el.disabled = Object.keys(cond).some(function (name) {
          return state[data.params.indexOf(name)] !== cond[name];
        });
      });
      var entry = data.index[key];
      // the phone layout (<source>, shown where its media query holds) first, then the
      // desktop one: the browser fetches only the frame it shows (files on the site, data
      // URIs in a notebook's output)
      var phone = root.querySelector("source");
      if (phone && data.phone && entry.length > 3) {
        phone.setAttribute("srcset", data.phone[entry[3]]);
      }
      img.src = data.images[entry[0]];
      img.alt = data.alts[entry[1]];
      // the numbers of this setting, in words, under the figure (companion.widgets readout)
      var readout = root.querySelector("p.companion-explore-readout");
      if (readout && data.readouts && entry.length > 2) {
        readout.textContent = data.readouts[entry[2]];
      }
      root.setAttribute("data-setting", key);
    }
    function label(j) {
      var el = controls[j];
      var lab = el && el.parentNode && el.parentNode.querySelector("span.companion-explore-label");
      return lab ? lab.textContent : data.params[j];
    }
    function moved(i) {
      var wanted = controls.map(function (el) { return el ? Number(el.value) : 0; });
      var key = nearest(data.index, wanted, i);
      if (key === null) return;
      show(key);
      // say so when the setting asked for was not precomputed and other controls moved
      var got = key.split(",").map(Number), reset = [];
      controls.forEach(function (el, j) {
        if (el && j !== i && got[j] !== wanted[j]) {
          reset.push(label(j) + " back to " + data.texts[j][got[j]]);
        }
      });
      var snap = root.querySelector("p.companion-explore-snap");
      if (snap) {
        snap.textContent = reset.length ? "This combination was not precomputed: " +
          reset.join(", ") + " (the nearest figure that was)." : "";
      }
    }
    controls.forEach(function (el, i) {
      if (!el) return;
      el.addEventListener("input", function () { moved(i); });
      el.addEventListener("change", function () { moved(i); });
    });
    // on a phone the figure is shrunk to the column: a tap shows it at full size (it scrolls)
    img.addEventListener("click", function () {
      var zoomed = root.getAttribute("data-zoom") === "1";
      root.setAttribute("data-zoom", zoomed ? "0" : "1");
    });
    root.setAttribute("data-explore-bound", "1");
  }

  function init(doc) {
    var roots = doc.querySelectorAll(".companion-explore");
    for (var i = 0; i < roots.length; i++) bind(roots[i]);
  }

  if (typeof document !== "undefined") {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", function () { init(document); });
    } else {
      init(document);
    }
  }
  return {nearest: nearest, bind: bind, init: init};
})();
if (typeof module === "object" && module.exports) module.exports = CompanionExplore;
