/* The book's static widget renderer: shows the stored ipywidgets of a page with no kernel.
 *
 * The website's explorers and quizzes are ipywidgets stored with their state in the notebook
 * (tools/execute_notebooks.py): nested Stacks of pre-rendered frames, sliders and radio buttons
 * whose `index` is linked in the browser (ipywidgets.jslink) to the stacks' `selected_index`.
 * myst-nb writes that state into the page as
 *   <script type="application/vnd.jupyter.widget-state+json">{"state": {id: {model_name, state}}}
 * and each displayed widget as
 *   <script type="application/vnd.jupyter.widget-view+json">{"model_id": id}.
 *
 * The full ipywidgets HTML manager renders these too, but it is a 3.6 MB bundle (plus RequireJS)
 * for the handful of models the book uses. This file renders exactly those models — VBox/HBox/Box,
 * HTML/Label, Stack, SelectionSlider, RadioButtons, ToggleButtons, and jslink's LinkModel — with
 * plain DOM elements and the same CSS class names (widget-label, widget-readout, ...), so the
 * book's CSS and tests address them the same way. A model it does not know is shown as a short
 * notice and reported on the console, so a new widget type cannot fail silently; the browser
 * test (tests/site/test_site.py) fails on any console error.
 *
 * Loaded only by pages that contain widgets (_config.yml: nb_ipywidgets_js), with `defer`, so the
 * page has been parsed when it runs.
 */
(function () {
  "use strict";
  var PREFIX = "IPY_MODEL_";
  var models = {};
  var uid = 0;

  function Model(id, spec) {
    this.id = id;
    this.name = spec.model_name;
    this.state = spec.state || {};
    this.listeners = {};
  }
  Model.prototype.get = function (key) { return this.state[key]; };
  Model.prototype.set = function (key, value) {
    if (this.state[key] === value) return;
    this.state[key] = value;
    (this.listeners[key] || []).forEach(function (f) { f(value); });
  };
  Model.prototype.on = function (key, f) { (this.listeners[key] = this.listeners[key] || []).push(f); };

  function ref(value) {
    return typeof value === "string" && value.indexOf(PREFIX) === 0
      ? models[value.slice(PREFIX.length)] : undefined;
  }

  function el(tag, classes, parent) {
    var node = document.createElement(tag);
    if (classes) node.className = classes;
    if (parent) parent.appendChild(node);
    return node;
  }

  // Layout traits are CSS properties with "_" for "-"; unset ones are null or "".
  function applyLayout(node, model) {
    var layout = ref(model.get("layout"));
    if (!layout) return;
    Object.keys(layout.state).forEach(function (key) {
      var value = layout.state[key];
      if (key.charAt(0) === "_" || value === null || value === undefined || value === "") return;
      node.style.setProperty(key.replace(/_/g, "-"), String(value));
    });
  }

  function styleOf(model) { var s = ref(model.get("style")); return s ? s.state : {}; }

  function common(node, model) {
    (model.get("_dom_classes") || []).forEach(function (c) { node.classList.add(c); });
    var tooltip = model.get("tooltip");
    if (tooltip) node.title = tooltip;
    applyLayout(node, model);
    return node;
  }

  function description(node, model) {
    var text = model.get("description");
    if (!text) return null;
    var label = el("label", "widget-label", node);
    if (model.get("description_allow_html")) label.innerHTML = text; else label.textContent = text;
    var width = styleOf(model).description_width;
    if (width && width !== "initial") label.style.width = width;
    else label.classList.add("widget-label-initial");
    return label;
  }

  var views = {
    BoxModel: box, VBoxModel: box, HBoxModel: box,
    HTMLModel: html, LabelModel: html,
    StackModel: stack,
    SelectionSliderModel: slider,
    RadioButtonsModel: radios,
    ToggleButtonsModel: toggles,
  };

  function render(model) {
    var view = views[model.name];
    if (!view) {
      console.error("posenc-widgets: no view for " + model.name);
      var missing = el("div", "posenc-widget-missing");
      missing.textContent = "(this interactive element needs Jupyter: " + model.name + ")";
      return missing;
    }
    return view(model);
  }

  function box(model) {
    var kind = model.name === "HBoxModel" ? "widget-hbox" : "widget-vbox";
    var node = common(el("div", "jupyter-widgets widget-container widget-box " + kind), model);
    (model.get("children") || []).forEach(function (child) {
      var m = ref(child);
      if (m) node.appendChild(render(m));
    });
    return node;
  }

  function html(model) {
    var node = common(el("div", "jupyter-widgets widget-inline-hbox widget-html"), model);
    description(node, model);
    var content = el("div", "widget-html-content", node);
    var s = styleOf(model);
    if (s.text_color) content.style.color = s.text_color;
    if (s.background) content.style.background = s.background;
    if (s.font_size) content.style.fontSize = s.font_size;
    var show = function (value) {
      if (model.name === "LabelModel") content.textContent = value || "";
      else content.innerHTML = value || "";
    };
    show(model.get("value"));
    model.on("value", show);
    return node;
  }

  function stack(model) {
    var node = common(el("div", "jupyter-widgets widget-container widget-box widget-stack"), model);
    var children = (model.get("children") || []).map(function (child) {
      var m = ref(child);
      var view = m ? render(m) : el("div");
      node.appendChild(view);
      return view;
    });
    var select = function (index) {
      children.forEach(function (child, i) { child.style.display = i === index ? "" : "none"; });
    };
    select(model.get("selected_index"));
    model.on("selected_index", select);
    return node;
  }

  function slider(model) {
    var node = common(el("div", "jupyter-widgets widget-inline-hbox widget-slider widget-hslider"), model);
    var label = description(node, model);
    var labels = model.get("_options_labels") || [];
    var input = el("input", "posenc-range", node);
    input.type = "range";
    input.min = "0";
    input.max = String(Math.max(labels.length - 1, 0));
    input.step = "1";
    input.id = "posenc-widget-" + (++uid);
    if (label) label.htmlFor = input.id;
    input.disabled = !!model.get("disabled");
    var readout = el("div", "widget-readout", node);
    if (model.get("readout") === false) readout.style.display = "none";
    var handle = styleOf(model).handle_color;
    if (handle) input.style.accentColor = handle;
    var show = function (index) {
      var i = index === null || index === undefined ? 0 : index;
      input.value = String(i);
      readout.textContent = labels[i] === undefined ? "" : labels[i];
      input.setAttribute("aria-valuetext", readout.textContent);
    };
    show(model.get("index"));
    input.addEventListener("input", function () { model.set("index", Number(input.value)); });
    model.on("index", show);
    return node;
  }

  function radios(model) {
    var node = common(el("div", "jupyter-widgets widget-inline-hbox widget-radio"), model);
    description(node, model);
    var group = el("div", "widget-radio-box", node);
    var name = "posenc-radio-" + (++uid);
    var inputs = (model.get("_options_labels") || []).map(function (text, i) {
      var label = el("label", "", group);
      var input = el("input", "", label);
      input.type = "radio";
      input.name = name;
      input.value = String(i);
      input.disabled = !!model.get("disabled");
      el("span", "", label).textContent = text;
      input.addEventListener("change", function () { if (input.checked) model.set("index", i); });
      return input;
    });
    var show = function (index) {
      inputs.forEach(function (input, i) { input.checked = i === index; });
    };
    show(model.get("index"));
    model.on("index", show);
    return node;
  }

  function toggles(model) {
    var node = common(el("div", "jupyter-widgets widget-inline-hbox widget-toggle-buttons"), model);
    description(node, model);
    var group = el("div", "widget-toggle-button-group", node);
    group.setAttribute("role", "group");
    var s = styleOf(model);
    var tips = model.get("tooltips") || [];
    var buttons = (model.get("_options_labels") || []).map(function (text, i) {
      var button = el("button", "widget-toggle-button jupyter-button", group);
      button.type = "button";
      button.textContent = text;
      if (tips[i]) button.title = tips[i];
      if (s.button_width && s.button_width !== "auto") button.style.width = s.button_width;
      if (s.font_weight) button.style.fontWeight = s.font_weight;
      button.disabled = !!model.get("disabled");
      button.addEventListener("click", function () { model.set("index", i); });
      return button;
    });
    var show = function (index) {
      buttons.forEach(function (button, i) {
        button.classList.toggle("mod-active", i === index);
        button.setAttribute("aria-pressed", i === index ? "true" : "false");
      });
    };
    show(model.get("index"));
    model.on("index", show);
    return node;
  }

  // jslink: the target takes the source's value now, then each follows the other.
  function link(model) {
    var source = model.get("source") || [], target = model.get("target") || [];
    var a = ref(source[0]), b = ref(target[0]);
    if (!a || !b) { console.error("posenc-widgets: a link refers to a missing model"); return; }
    b.set(target[1], a.get(source[1]));
    a.on(source[1], function (v) { b.set(target[1], v); });
    b.on(target[1], function (v) { a.set(source[1], v); });
  }

  function main() {
    document.querySelectorAll('script[type="application/vnd.jupyter.widget-state+json"]')
      .forEach(function (script) {
        var state = JSON.parse(script.textContent).state || {};
        Object.keys(state).forEach(function (id) { models[id] = new Model(id, state[id]); });
      });
    Object.keys(models).forEach(function (id) {
      if (models[id].name === "LinkModel") link(models[id]);
    });
    document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')
      .forEach(function (script) {
        var model = models[JSON.parse(script.textContent).model_id];
        var area = document.createElement("div");
        area.className = "widget-subarea";
        if (model) area.appendChild(render(model));
        else console.error("posenc-widgets: a view refers to a model the page does not store");
        script.parentNode.insertBefore(area, script.nextSibling);
      });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
  else main();
})();
