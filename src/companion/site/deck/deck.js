/* Companion talk decks (companion.site.slides): loaded first in every deck.
 *
 * - Records every error the page meets: uncaught exceptions, rejected promises, resources
 *   that fail to load, console.error calls.
 * - CompanionDeck.start() starts reveal.js on a 1280 x 720 frame, waits for MathJax, then
 *   fits each slide when it is shown: the slide's text shrinks in steps of 5% (to 60% at
 *   most) until nothing overflows the frame.
 * - After a control on a slide is used (a figure's slider dragged with the mouse, an option
 *   chosen in a select), the keyboard goes back to the deck, so that -> and Space advance
 *   again and do not move the control; Escape does the same from a control reached with Tab
 *   (companion.site.slide_check.focus_check tests it, and that it fails without this part).
 * - Opened with ?check (companion.site.slide_check.check), it shows every slide in turn, fits
 *   it, and writes a JSON report into <pre id="deck-check">: the slides (title, text scale)
 *   and every problem (a slide that still overflows, an element cut off, an error).
 */
var CompanionDeck = (function () {
  "use strict";
  var W = 1280, H = 720, MIN = 0.6, STEP = 0.05;
  var problems = [];

  function note(kind, text) { problems.push(kind + ": " + String(text).slice(0, 300)); }
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href)) note("failed to load", t.src || t.href);
    else note("uncaught exception", e.message);
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    note("unhandled rejection", e.reason && (e.reason.stack || e.reason));
  });
  var consoleError = console.error;
  console.error = function () {
    note("console error", Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };

  // focus-return: begin
  // A slider keeps the keyboard after the mouse lets go of it, and reveal.js ignores keys
  // while an input has it: give the keyboard back to the deck once a control was used.
  var pressed = null;
  function control(el) {
    return el && el.closest && el.closest(".reveal .slides") &&
      /^(INPUT|SELECT|BUTTON)$/.test(el.tagName) ? el : null;
  }
  function giveBack(el) {
    setTimeout(function () {
      if (document.activeElement === el) el.blur();
    }, 0);
  }
  document.addEventListener("pointerdown", function (e) { pressed = control(e.target); }, true);
  document.addEventListener("pointerup", function () {
    if (pressed && pressed.tagName !== "SELECT") giveBack(pressed);  // a select opens its list
  }, true);
  document.addEventListener("change", function (e) {
    var el = control(e.target);
    if (el && (el.tagName === "SELECT" || el === pressed)) giveBack(el);
  }, true);
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && control(e.target)) giveBack(e.target);
  }, true);
  // focus-return: end

  // What overflows on a shown slide: the slide itself, or an element inside it whose content
  // is cut off or that sticks out of the slide. "" when nothing does.
  function overflow(slide) {
    if (slide.scrollHeight > H + 1 || slide.scrollWidth > W + 1) {
      return "slide is " + slide.scrollWidth + " x " + slide.scrollHeight + " px";
    }
    var box = slide.getBoundingClientRect();
    var els = slide.querySelectorAll("*");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (el.closest("aside.notes, mjx-assistive-mml, script, style")) continue;
      var style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden") continue;
      // MathJax's own parts (stretchy delimiters) clip by design; its boxes are still
      // checked against the slide's edges below
      var own = /^MJX-/.test(el.tagName) && el.tagName !== "MJX-CONTAINER";
      var cut = !own && style.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1;
      var r = el.getBoundingClientRect();
      var out = r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1 ||
                                r.bottom > box.top + H * (box.width / W) + 1);
      if (cut || out) {
        var name = el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
          ? "." + String(el.className).trim().split(/\s+/).join(".") : "");
        return (cut ? "cut off: " : "outside the slide: ") + name;
      }
    }
    return "";
  }

  function fit(slide) {
    var size = 1;
    slide.style.fontSize = "";
    while (overflow(slide) && size > MIN + 1e-9) {
      size -= STEP;
      slide.style.fontSize = size.toFixed(2) + "em";
    }
    slide.dataset.fit = size.toFixed(2);
    return size;
  }

  function fitCurrent() {
    var slide = window.Reveal.getCurrentSlide();
    if (slide && !slide.dataset.fit) { fit(slide); window.Reveal.layout(); }
  }

  function mathReady() {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) return mj.startup.promise;
    return new Promise(function (resolve) {
      var n = 0, t = setInterval(function () {
        mj = window.MathJax;
        if ((mj && mj.startup && mj.startup.promise) || ++n > 200) {
          clearInterval(t);
          resolve(mj && mj.startup && mj.startup.promise);
        }
      }, 50);
    });
  }

  function images() {
    return Promise.all(Array.prototype.map.call(document.images, function (img) {
      return img.complete ? null : new Promise(function (r) { img.onload = img.onerror = r; });
    }));
  }

  function report() {
    var slides = window.Reveal.getSlides();
    var out = [];
    slides.forEach(function (slide, i) {
      var idx = window.Reveal.getIndices(slide);
      window.Reveal.slide(idx.h, idx.v);
      var size = fit(slide);
      var h = slide.querySelector("h1, h2");
      var bad = overflow(slide);
      if (bad) note("slide " + (i + 1) + " overflows at " + Math.round(size * 100) + "% text",
                    bad);
      if (slide.querySelector("div.cell_input, .highlight-ipython3"))
        note("slide " + (i + 1), "holds a code cell");
      out.push({title: h ? h.textContent.trim() : "", scale: Number(size.toFixed(2))});
    });
    var pre = document.createElement("pre");
    pre.id = "deck-check";
    pre.textContent = JSON.stringify({slides: out, problems: problems});
    document.body.appendChild(pre);
  }

  function start() {
    var reveal = window.Reveal;
    if (!reveal) { note("uncaught exception", "reveal.js did not load"); return; }
    var check = /[?&]check\b/.test(location.search);
    reveal.initialize({
      width: W, height: H, margin: 0.04, center: true, hash: !check, transition: "none",
      slideNumber: "c/t", controls: true, progress: true, plugins: window.RevealNotes ?
        [window.RevealNotes] : []
    }).then(mathReady).then(images).then(function () {
      if (check) { report(); return; }
      fitCurrent();
      reveal.on("slidechanged", fitCurrent);
    }).catch(function (e) { note("uncaught exception", e && (e.stack || e)); });
  }

  return {start: start, fit: fit, overflow: overflow, problems: problems};
})();
