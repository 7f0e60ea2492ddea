/* Site-wide setup, loaded on every page (Jupyter Book 1 includes each top-level _static .js).
 *
 * 1. RequireJS: the widget manager (vendor/html-manager/embed-amd.js) finds its icon fonts
 *    relative to the AMD module "@jupyter-widgets/html-manager/dist/..."; without a path mapping
 *    RequireJS resolves that next to the page and the fonts 404. A global `require` object set
 *    before require.js loads is its configuration.
 * 2. MathJax 3 and the widget manager: the manager typesets widget labels with the MathJax 2 call
 *    `MathJax.Hub.Queue(...)`, which throws under MathJax 3. Give every object ever assigned to
 *    `window.MathJax` (Sphinx's configuration, then MathJax itself) a small `Hub` that forwards
 *    to MathJax 3's `typesetPromise`.
 */
(function () {
  "use strict";
  var self = document.currentScript && document.currentScript.src;
  var staticDir = self ? self.slice(0, self.lastIndexOf("/") + 1) : "_static/";

  var paths = { "@jupyter-widgets/html-manager/dist": staticDir + "vendor/html-manager" };
  if (typeof window.require === "function" && window.require.config) {
    window.require.config({ paths: paths });
  } else {
    window.require = { paths: paths };
  }

  var hub = {
    Queue: function (job) {
      var element = job && job[2];
      var mj = window.MathJax;
      if (element && mj && typeof mj.typesetPromise === "function") {
        mj.typesetPromise([element]).catch(function () {});
      }
    },
  };
  var current = window.MathJax;
  if (current && typeof current === "object" && !current.Hub) { current.Hub = hub; }
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: function () { return current; },
    set: function (value) {
      current = value;
      if (value && typeof value === "object" && !value.Hub) { value.Hub = hub; }
    },
  });
})();
