// Unit test of the kernel-free Explore controls in book/_assets/companion.js (node --test).
// A few-line stand-in for the DOM: only what bind() touches.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const Explore = require("../../book/_assets/companion.js");

function element(tag, attrs = {}) {
  const el = {
    tagName: tag.toUpperCase(), attrs: {...attrs}, children: [], listeners: {}, parentNode: null,
    textContent: "", value: attrs.value || "", src: attrs.src || "", alt: attrs.alt || "",
    getAttribute(name) { return this.attrs[name] === undefined ? null : this.attrs[name]; },
    setAttribute(name, v) { this.attrs[name] = String(v); },
    addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); },
    dispatch(type) { (this.listeners[type] || []).forEach((fn) => fn({type})); },
    append(...kids) { kids.forEach((k) => { k.parentNode = this; this.children.push(k); }); return this; },
    all() { return this.children.flatMap((c) => [c, ...c.all()]); },
    querySelector(sel) { return this.all().find((c) => matches(c, sel)) || null; },
    querySelectorAll(sel) { return this.all().filter((c) => matches(c, sel)); },
  };
  return el;
}
function matches(el, sel) {
  let m = sel.match(/^\[data-param="(.+)"\]$/);
  if (m) return el.attrs["data-param"] === m[1];
  m = sel.match(/^(\w+)?(?:\.([\w-]+))?$/);
  return (!m[1] || el.tagName === m[1].toUpperCase()) &&
    (!m[2] || (el.attrs.class || "").split(" ").includes(m[2]));
}

// Two controls: p (3 values, a range input) x n (2 values, a select), all 6 settings
// precomputed, plus a third control q precomputed only at the others' defaults (p=1, n=0).
const DATA = {
  params: ["p", "n", "q"],
  texts: [["0.001", "0.01", "0.1"], ["64", "256"], ["a", "b"]],
  // the frames' URLs: files next to the page on the site, data URIs in a notebook
  images: ["I00", "I10", "I20", "I01", "I11", "I21", "Iq"].map((f) => `../../_images/${f}.webp`),
  phone: ["P00", "P10", "P20", "P01", "P11", "P21", "Pq"].map((f) => `../../_images/${f}.webp`),
  alts: ["alt"],
  readouts: ["p = 0.001: C = 2.6", "p = 0.01: C = 2.7", "p = 0.1: C = 2.9", "q = b"],
  index: {
    "0,0,0": [0, 0, 0, 0], "1,0,0": [1, 0, 1, 1], "2,0,0": [2, 0, 2, 2],
    "0,1,0": [3, 0, 0, 3], "1,1,0": [4, 0, 1, 4], "2,1,0": [5, 0, 2, 5], "1,0,1": [6, 0, 3, 6],
  },
};
const IMG = (f) => `../../_images/${f}.webp`;

function page() {
  const root = element("div", {class: "companion-explore"});
  const p = element("input", {"data-param": "p", value: "1"});
  const n = element("select", {"data-param": "n", value: "0"});
  const q = element("select", {"data-param": "q", value: "0"});
  const labels = [p, n, q].map((c) => element("label").append(
    element("span", {class: "companion-explore-label"}), c, element("output")));
  labels.forEach((l, i) => { l.children[0].textContent = ["flip rate p", "width n", "q"][i]; });
  const img = element("img", {src: IMG("I10")});
  const source = element("source", {srcset: IMG("P10"), media: "(max-width: 700px)"});
  const readout = element("p", {class: "companion-explore-readout"});
  readout.textContent = "p = 0.01: C = 2.7";
  const snap = element("p", {class: "companion-explore-snap"});
  const script = element("script", {class: "companion-explore-data"});
  script.textContent = JSON.stringify(DATA);
  root.append(element("div").append(...labels), element("picture").append(source, img),
    readout, snap, script);
  return {root, p, n, q, img, source, readout, snap};
}

test("nearest keeps a precomputed setting and snaps the others", () => {
  assert.equal(Explore.nearest(DATA.index, [2, 1, 0], 0), "2,1,0");
  assert.equal(Explore.nearest(DATA.index, [1, 0, 1], 2), "1,0,1");
  // p moved while q = b (only precomputed at p = 0.01, n = 64): q snaps back
  assert.equal(Explore.nearest(DATA.index, [2, 0, 1], 0), "2,0,0");
  // q moved to b while p = 0.1: p snaps to where q = b exists
  assert.equal(Explore.nearest(DATA.index, [2, 0, 1], 2), "1,0,1");
  assert.equal(Explore.nearest(DATA.index, [0, 0, 5], 2), null);
  // fewest other controls changed comes before the smallest steps
  const index = {"0,0,1": [0, 0], "0,2,0": [1, 0]};
  assert.equal(Explore.nearest(index, [0, 3, 1], 0), "0,0,1");
});

test("every control moves the figure and shows its value", () => {
  const {root, p, n, q, img} = page();
  Explore.bind(root);
  p.value = "2"; p.dispatch("input");
  assert.equal(img.src, IMG("I20"));
  assert.equal(p.parentNode.querySelector("output").textContent, "0.1");
  assert.equal(p.getAttribute("aria-valuetext"), "0.1");
  n.value = "1"; n.dispatch("change");
  assert.equal(img.src, IMG("I21"));
  q.value = "1"; q.dispatch("change");  // only precomputed at p = 0.01, n = 64
  assert.equal(img.src, IMG("Iq"));
  assert.deepEqual([p.value, n.value, q.value], ["1", "0", "1"]);
  assert.equal(p.parentNode.querySelector("output").textContent, "0.01");
  assert.equal(root.getAttribute("data-setting"), "1,0,1");
});

test("a tap on the figure toggles its full-size view", () => {
  const {root, img} = page();
  Explore.bind(root);
  img.dispatch("click");
  assert.equal(root.getAttribute("data-zoom"), "1");
  img.dispatch("click");
  assert.equal(root.getAttribute("data-zoom"), "0");
});

test("binding twice adds no second set of listeners", () => {
  const {root, p} = page();
  Explore.init({querySelectorAll: () => [root]});
  Explore.init({querySelectorAll: () => [root]});
  assert.equal(p.listeners.input.length, 1);
});

test("a control that applies at one value of another is disabled elsewhere", () => {
  const {root, p, n, img} = page();
  p.setAttribute("data-when", JSON.stringify({n: 1}));  // p applies only when n = 256
  p.disabled = true;
  Explore.bind(root);
  n.value = "1"; n.dispatch("change");
  assert.equal(p.disabled, false);
  p.value = "2"; p.dispatch("input");
  assert.equal(img.src, IMG("I21"));
  n.value = "0"; n.dispatch("change");
  assert.equal(p.disabled, true);
});

test("the readout under the figure follows every move, from the frame's own numbers", () => {
  const {root, p, n, readout} = page();
  Explore.bind(root);
  p.value = "2"; p.dispatch("input");
  assert.equal(readout.textContent, "p = 0.1: C = 2.9");
  p.value = "0"; p.dispatch("input");
  assert.equal(readout.textContent, "p = 0.001: C = 2.6");
  n.value = "1"; n.dispatch("change");  // another frame with the same numbers: stored once
  assert.equal(readout.textContent, "p = 0.001: C = 2.6");
});

test("a readout that did not change with the figure fails this test", () => {
  // the old page: the frames' numbers were in their alt texts only
  const {root, p, readout} = page();
  const script = root.querySelector("script");
  const old = JSON.parse(script.textContent);
  delete old.readouts;
  script.textContent = JSON.stringify(old);
  Explore.bind(root);
  p.value = "2"; p.dispatch("input");
  assert.notEqual(readout.textContent, "p = 0.1: C = 2.9");
});

test("a setting that was not precomputed says which controls moved back", () => {
  const {root, p, q, snap} = page();
  Explore.bind(root);
  p.value = "2"; p.dispatch("input");
  assert.equal(snap.textContent, "");
  q.value = "1"; q.dispatch("change");  // only precomputed at p = 0.01: p moves back
  assert.equal(snap.textContent,
    "This combination was not precomputed: flip rate p back to 0.01 (the nearest figure that was).");
  p.value = "1"; p.dispatch("input");
  assert.equal(snap.textContent, "");
});

test("a move swaps the phone layout's frame too (the browser loads the one it shows)", () => {
  const {root, p, n, img, source} = page();
  Explore.bind(root);
  p.value = "2"; p.dispatch("input");
  assert.equal(source.getAttribute("srcset"), IMG("P20"));
  assert.equal(img.src, IMG("I20"));
  n.value = "1"; n.dispatch("change");
  assert.equal(source.getAttribute("srcset"), IMG("P21"));
});
