/* Companion site glue for the self-hosted widget JavaScript (see _config.yml).
 *
 * 1. require.js config, read by require.js when it loads: the html-manager bundles compute
 *    their webpack public path from their AMD module URL, which would otherwise resolve to
 *    "<page dir>/@jupyter-widgets/..." (404 for the widget fonts). Point it at _static/widgets.
 * 2. html-manager 1.0.x typesets widget labels through the MathJax 2 API (MathJax.Hub.Queue);
 *    the site serves MathJax 3, so provide that one call on top of MathJax.typesetPromise.
 */
(function () {
  var src = document.currentScript && document.currentScript.src;
  var base = src ? src.substring(0, src.lastIndexOf("/") + 1) + "widgets" : "_static/widgets";
  var paths = {"@jupyter-widgets/html-manager/dist": base, "@jupyter-widgets": base};
  if (window.requirejs && window.requirejs.config) window.requirejs.config({paths: paths});
  else window.require = window.require || {paths: paths};

  function queue(args) {
    var el = args && args[2];
    var mj = window.MathJax;
    if (mj && mj.typesetPromise && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(function () { return mj.typesetPromise(el ? [el] : undefined); })
        .catch(function (e) { console.warn("MathJax typeset of a widget label failed", e); });
    } else {
      setTimeout(function () { queue(args); }, 200);
    }
  }
  function install() {
    if (window.MathJax && !window.MathJax.Hub) window.MathJax.Hub = {Queue: queue};
  }
  install();
  var timer = setInterval(function () {
    install();
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(install);
      clearInterval(timer);
    }
  }, 50);
  setTimeout(function () { clearInterval(timer); }, 30000);
})();
