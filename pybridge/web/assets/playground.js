/* ccg-judge playground: the situation's text beside its ruling page. The text goes to the
   server as it is typed (debounced); the answer is page data, drawn by page.js. Text from the
   server is shown with textContent or as a textarea's value only. */
(function () {
  "use strict";

  var el = window.CCGPage.el;
  var DEBOUNCE_MS = 200;
  var LINE_PX = 18;
  var SERVER_FAILED = "the server failed; see its terminal";

  function post(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    }).then(function (response) {
      // A failure of the server itself (a 500, a proxy's page) is not JSON: say where to look.
      var type = response.headers.get("Content-Type") || "";
      if (type.indexOf("application/json") !== 0) throw new Error(SERVER_FAILED);
      return response.json().catch(function () { throw new Error(SERVER_FAILED); });
    }, function () { throw new Error("the server does not answer; is it still running?"); });
  }

  function option(value, label, selected) {
    var node = el("option", null, label);
    node.value = value;
    node.selected = selected;
    return node;
  }

  function start(payload) {
    var root = document.getElementById("ccg-root");
    var shell = el("div", "playground");
    var editor = el("section", "editor");
    editor.setAttribute("aria-label", "situation editor");

    var title = el("h1", "editor-title", "ccg-judge playground");
    editor.appendChild(title);
    var controls = el("div", "controls");
    editor.appendChild(controls);
    var controlError = el("div", "control-error");
    controlError.setAttribute("role", "alert");
    editor.appendChild(controlError);

    var status = el("div", "status", "");
    status.setAttribute("aria-live", "polite");
    editor.appendChild(status);

    var errorBox = el("div", "error-box");
    errorBox.setAttribute("role", "alert");
    editor.appendChild(errorBox);

    var code = el("div", "code");
    var gutter = el("div", "gutter");
    gutter.setAttribute("aria-hidden", "true");
    var band = el("div", "error-band");
    var textarea = el("textarea", "source");
    textarea.spellcheck = false;
    textarea.setAttribute("aria-label", "situation (YAML)");
    textarea.value = payload.text;
    code.appendChild(gutter);
    code.appendChild(band);
    code.appendChild(textarea);
    editor.appendChild(code);

    var pageRoot = el("div", "page-root");
    shell.appendChild(editor);
    shell.appendChild(pageRoot);
    root.replaceChildren(shell);

    var state = { overrides: { viewpoint: null, edition: null, options: {} }, game: null, seq: 0, timer: null,
                  shownAsk: null, errorLine: null };

    function ask() {
      return { text: textarea.value, viewpoint: state.overrides.viewpoint, edition: state.overrides.edition,
               options: Object.assign({}, state.overrides.options) };
    }

    function drawGutter() {
      var lines = textarea.value.split("\n").length;
      if (gutter.childNodes.length !== lines) {
        var numbers = [];
        for (var i = 1; i <= lines; i += 1) numbers.push(el("div", "line-number", i));
        gutter.replaceChildren.apply(gutter, numbers);
      }
      gutter.childNodes.forEach(function (node, i) {
        node.classList.toggle("error-line", state.errorLine === i + 1);
      });
      gutter.scrollTop = textarea.scrollTop;
      if (state.errorLine) {
        band.style.display = "block";
        band.style.top = (6 + (state.errorLine - 1) * LINE_PX - textarea.scrollTop) + "px";
      } else {
        band.style.display = "none";
      }
    }

    function showError(error) {
      errorBox.replaceChildren();
      controlError.replaceChildren();
      state.errorLine = null;
      pageRoot.classList.toggle("outdated", Boolean(error));
      if (!error) { drawGutter(); return; }
      if (error.where === "controls") {
        controlError.textContent = (error.field ? error.field + ": " : "") + error.message;
      } else {
        state.errorLine = error.line || null;
        var where = [];
        if (error.line) where.push("line " + error.line);
        if (error.field) where.push("field " + error.field);
        var head = el("div", "error-where", where.join(", "));
        errorBox.appendChild(head);
        errorBox.appendChild(el("div", "error-message", error.message));
        if (error.line) {
          head.classList.add("jump");
          head.title = "go to the line";
          head.addEventListener("click", function () { goToLine(error.line); });
        }
      }
      drawGutter();
    }

    function goToLine(line) {
      var lines = textarea.value.split("\n");
      var offset = 0;
      for (var i = 0; i < line - 1 && i < lines.length; i += 1) offset += lines[i].length + 1;
      textarea.focus();
      textarea.setSelectionRange(offset, offset + (lines[line - 1] || "").length);
      textarea.scrollTop = Math.max(0, (line - 4) * LINE_PX);
      drawGutter();
    }

    function drawControls(given) {
      if (state.game !== null && state.game !== given.game) {
        state.overrides = { viewpoint: null, edition: null, options: {} };  // another game: start afresh
      }
      state.game = given.game;
      controls.replaceChildren();
      function select(label, name, values, current, onChange) {
        var box = el("label", "control");
        box.appendChild(el("span", null, label));
        var chooser = el("select");
        chooser.name = name;
        values.forEach(function (pair) { chooser.appendChild(option(pair[0], pair[1], pair[0] === current)); });
        chooser.addEventListener("change", function () { onChange(chooser.value); judgeNow(); });
        box.appendChild(chooser);
        controls.appendChild(box);
        return chooser;
      }
      select("viewpoint", "viewpoint", given.players.map(function (p) { return [p, p]; }), given.viewpoint,
             function (v) { state.overrides.viewpoint = v; });
      select("edition", "edition", Object.keys(given.editions).map(function (e) { return [e, e]; }), given.edition,
             function (v) { state.overrides.edition = v; });
      Object.keys(given.options).forEach(function (name) {
        var values = Object.keys(given.options[name].values).map(function (v) { return [v, v]; });
        var chooser = select(name.replace(/_/g, " "), "option-" + name, values, given.chosen[name],
                             function (v) { state.overrides.options[name] = v; });
        chooser.title = given.options[name].values[given.chosen[name]] || "";
      });
      var buttons = el("div", "buttons");
      [["as in the text", reset], ["download situation", function () { download("situation"); }],
       ["download ruling", function () { download("ruling"); }]].forEach(function (item) {
        var button = el("button", null, item[0]);
        button.type = "button";
        button.addEventListener("click", item[1]);
        buttons.appendChild(button);
      });
      controls.appendChild(buttons);
    }

    function reset() {
      state.overrides = { viewpoint: null, edition: null, options: {} };
      judgeNow();
    }

    function loadTree(verdict) {
      var shown = state.shownAsk;
      return post("/api/tree", Object.assign({ index: verdict.index }, shown.ask)).then(function (answer) {
        if (!answer.ok) throw new Error(answer.error ? answer.error.message : "no tree");
        Object.keys(answer.clauses).forEach(function (id) { shown.page.clauses[id] = answer.clauses[id]; });
        return answer.tree;
      });
    }

    function moveCard(card, cell) {
      post("/api/move", Object.assign({ card: card, cell: cell }, ask())).then(function (answer) {
        if (!answer.ok) { showError(answer.error); return; }
        textarea.value = answer.text;
        judgeNow();
      }, failed);
    }

    function download(kind) {
      post("/api/download", Object.assign({ kind: kind }, ask())).then(function (answer) {
        if (!answer.ok) { showError(answer.error); return; }
        var blob = new Blob([answer.text], { type: "application/yaml" });
        var link = el("a");
        link.href = URL.createObjectURL(blob);
        link.download = answer.filename;
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
      }, failed);
    }

    function show(judgement, sent, elapsed) {
      if (!judgement.ok) {
        showError(judgement.error);
        status.textContent = "not judged: see the message below";
        return;
      }
      showError(null);
      drawControls(judgement.controls);
      state.shownAsk = { ask: sent, page: judgement.page };
      var hooks = { loadTree: loadTree };
      if (judgement.page.board) hooks.onMove = moveCard;
      window.CCGPage.render(pageRoot, judgement.page, hooks);
      var server = Math.round(judgement.seconds * 1000);
      status.textContent = judgement.page.verdicts.length + " verdicts, judged in " + server + " ms" +
        (elapsed !== null ? " (" + Math.round(elapsed) + " ms from the request to the page)" : "");
      pageRoot.dataset.judged = String(state.seq);
    }

    function failed(problem) { status.textContent = problem.message || String(problem); }

    function judgeNow() {
      if (state.timer !== null) { clearTimeout(state.timer); state.timer = null; }
      state.seq += 1;
      var mine = state.seq;
      var sent = ask();
      var began = performance.now();
      status.textContent = "judging…";
      post("/api/judge", sent).then(function (judgement) {
        if (mine !== state.seq || judgement.stale) return;  // a newer edit is on its way
        show(judgement, sent, performance.now() - began);
      }, function (problem) {
        if (mine === state.seq) status.textContent = problem.message || String(problem);
      });
    }

    textarea.addEventListener("input", function () {
      drawGutter();
      if (state.timer !== null) clearTimeout(state.timer);
      state.timer = setTimeout(judgeNow, DEBOUNCE_MS);
    });
    textarea.addEventListener("scroll", drawGutter);
    textarea.addEventListener("keydown", function (event) {
      if (event.key === "Tab") {  // indent, as YAML wants, instead of leaving the editor
        event.preventDefault();
        textarea.setRangeText("  ", textarea.selectionStart, textarea.selectionEnd, "end");
        textarea.dispatchEvent(new Event("input"));
      }
    });

    drawGutter();
    show(payload.judgement, ask(), null);
  }

  var payload = JSON.parse(document.getElementById("ccg-data").textContent);
  if (payload.mode === "playground") start(payload);
})();
