/* ccg-judge ruling page: draws the situation and the verdicts from the page data
   (pybridge/report/page/model.py). Every text from the data goes in through textContent or an
   attribute set by name; nothing is ever parsed as HTML and nothing is evaluated. */
(function () {
  "use strict";

  // The game's words for a card's state (Magic: tapped / untapped), set by render from the data.
  var words = { open: "open", closed: "closed" };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function own(object, key) {
    return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
  }

  function clauseTitle(data, id) {
    var clause = own(data.clauses, id);
    if (!clause || !clause.heading) return id;
    return id + " " + clause.heading + (clause.summary ? "\n" + clause.summary : "");
  }

  function cite(data, id) {
    var chip = el("abbr", "cite", id);
    chip.title = clauseTitle(data, id);
    chip.dataset.clause = id;
    return chip;
  }

  // ------------------------------------------------------------------ header

  function header(data) {
    var head = el("header", "ruling-head");
    head.appendChild(el("h1", null, data.game.title));
    var facts = el("div", "facts");
    var viewer = el("span", "viewpoint");
    viewer.appendChild(document.createTextNode("as seen by "));
    viewer.appendChild(el("b", null, data.viewpoint));
    facts.appendChild(viewer);
    var edition = el("span", "edition");
    edition.appendChild(document.createTextNode("edition "));
    edition.appendChild(el("b", null, data.edition.id));
    edition.title = data.edition.text;
    facts.appendChild(edition);
    var turn = data.turn;
    var when = [turn.stage, turn.phase, turn.step].filter(Boolean).join(" / ");
    var turnText = el("span", "turn");
    turnText.appendChild(document.createTextNode("turn " + turn.number + ", "));
    turnText.appendChild(el("b", null, turn.active));
    turnText.appendChild(document.createTextNode(" active, " + when));
    facts.appendChild(turnText);
    var options = el("span", "options");
    options.appendChild(document.createTextNode("options: "));
    if (!data.options.length) options.appendChild(document.createTextNode("none"));
    data.options.forEach(function (option) {
      var chip = el("span", "option", option.name + "=" + option.value);
      chip.title = option.meaning;
      options.appendChild(chip);
    });
    facts.appendChild(options);
    head.appendChild(facts);
    return head;
  }

  // ------------------------------------------------------------------ cards

  function cardTitle(card) {
    var lines = [card.unknown ? "unknown card (" + card.id + ")" : (card.name || card.id) + " (" + card.id + ")"];
    lines.push("controller " + card.controller + (card.owner !== card.controller ? ", owner " + card.owner : "") +
               ", " + card.zone + (card.cell ? " " + card.cell.column + "." + card.cell.row : ""));
    var state = [card.open ? words.open : words.closed];
    if (card.hidden) state.push("face down");
    if (card.revealed) state.push("revealed");
    if (card.arrived !== null) state.push("arrived on turn " + card.arrived);
    lines.push(state.join(", "));
    Object.keys(card.properties).forEach(function (key) {
      lines.push(key + ": " + JSON.stringify(card.properties[key]));
    });
    if (card.features.length) lines.push("features: " + card.features.join(", "));
    card.effects.forEach(function (effect) {
      lines.push("effect " + effect.id + ": " + effect.text + " (t" + effect.timestamp +
                 (effect.source ? ", from " + effect.source : "") + ")");
    });
    if (card.text) lines.push(card.text);
    return lines.join("\n");
  }

  function cardElement(card, hooks) {
    var classes = ["card", card.open ? "open" : "closed"];
    if (card.hidden) classes.push("face-down");
    if (card.unknown) classes.push("unknown");
    var node = el("div", classes.join(" "));
    node.dataset.cardId = card.id;
    node.title = cardTitle(card);
    node.appendChild(el("div", "card-name", card.unknown ? "unknown card" : (card.name || card.id)));
    if (card.unknown || card.name !== card.id) node.appendChild(el("div", "card-id", card.id));
    var state = [];
    if (!card.open) state.push(words.closed);
    if (card.hidden) state.push(card.unknown ? "face down" : "face down (known to you)");
    if (state.length) node.appendChild(el("div", "card-state", state.join(", ")));
    if (card.stats.length) node.appendChild(el("div", "card-stats", card.stats.join(" · ")));
    var badges = el("div", "badges");
    card.public.forEach(function (pair) {
      badges.appendChild(el("span", "badge public", pair[0].replace(/_/g, " ") + ": " + pair[1]));
    });
    Object.keys(card.markers).forEach(function (kind) {
      badges.appendChild(el("span", "badge marker", kind + " ×" + card.markers[kind]));
    });
    Object.keys(card.chips).forEach(function (kind) {
      badges.appendChild(el("span", "badge chip", kind + " ×" + card.chips[kind]));
    });
    card.protections.forEach(function (p) { badges.appendChild(el("span", "badge protection", "prot. " + p)); });
    card.effects.forEach(function (e) { badges.appendChild(el("span", "badge effect", e.text)); });
    if (badges.childNodes.length) node.appendChild(badges);
    if (hooks.onMove) {
      node.draggable = true;
      node.addEventListener("dragstart", function (event) {
        event.dataTransfer.setData("text/plain", card.id);
        event.dataTransfer.effectAllowed = "move";
      });
    }
    return node;
  }

  // ------------------------------------------------------------------ table

  function zoneBox(zone, cards, hooks) {
    var box = el("div", "zone " + zone.zone);
    box.dataset.player = zone.player;
    box.dataset.zone = zone.zone;
    var title = el("div", "zone-title");
    title.appendChild(el("b", null, zone.zone));
    var count = zone.count + (zone.count === 1 ? " card" : " cards");
    title.appendChild(document.createTextNode(" · " + count));
    box.appendChild(title);
    var row = el("div", "zone-cards");
    zone.cards.forEach(function (id) { row.appendChild(cardElement(cards.get(id), hooks)); });
    if (zone.unknown) {
      var unknown = el("span", "zone-unknown", zone.unknown + (zone.unknown === 1 ? " card" : " cards") +
                       " you may not see");
      unknown.dataset.unknownCount = String(zone.unknown);
      row.appendChild(unknown);
    }
    box.appendChild(row);
    return box;
  }

  function zonesOf(data, player, cards, hooks) {
    var row = el("div", "zones");
    row.dataset.player = player.id;
    data.zones.filter(function (z) { return z.player === player.id; }).forEach(function (zone) {
      row.appendChild(zoneBox(zone, cards, hooks));
    });
    return row;
  }

  function board(data, cards, hooks) {
    var grid = el("div", "board");
    grid.style.gridTemplateColumns = "repeat(" + data.board.columns + ", var(--cell))";
    grid.style.gridTemplateRows = "repeat(" + data.board.rows + ", var(--cell))";
    var byCell = new Map();
    data.cards.forEach(function (card) {
      if (card.cell && card.zone === "battlefield") {
        var key = card.cell.side + "\u0000" + card.cell.column + "\u0000" + card.cell.row;
        if (!byCell.has(key)) byCell.set(key, []);
        byCell.get(key).push(card);
      }
    });
    // A whatif alternative's moved cards: drawn again, faded, in the cell they left.
    var left = new Map();
    var movedIds = new Set();
    (data.moved || []).forEach(function (move) {
      var card = cards.get(move.card);
      if (!card) return;
      movedIds.add(move.card);
      var key = move.from.side + "\u0000" + move.from.column + "\u0000" + move.from.row;
      if (!left.has(key)) left.set(key, []);
      left.get(key).push(card);
    });
    data.board.cells.forEach(function (cell) {
      var viewer = cell.side === data.viewpoint;
      var node = el("div", "cell" + (viewer ? " viewer" : "") + (cell.row === 1 ? " front" : ""));
      node.style.gridColumn = String(cell.x);
      node.style.gridRow = String(cell.y);
      node.dataset.side = cell.side;
      node.dataset.column = String(cell.column);
      node.dataset.row = String(cell.row);
      node.appendChild(el("span", "cell-label", cell.column + "." + cell.row));
      var key = cell.side + "\u0000" + cell.column + "\u0000" + cell.row;
      (byCell.get(key) || []).forEach(function (card) {
        var drawn = cardElement(card, hooks);
        if (movedIds.has(card.id)) {
          drawn.classList.add("moved");
          drawn.appendChild(el("div", "card-state", "moved here"));
        }
        node.appendChild(drawn);
      });
      (left.get(key) || []).forEach(function (card) {
        var ghost = cardElement(card, {});
        ghost.classList.add("moved-from");
        ghost.appendChild(el("div", "card-state", "was here"));
        node.appendChild(ghost);
      });
      if (hooks.onMove) {
        node.addEventListener("dragover", function (event) {
          event.preventDefault();
          node.classList.add("drop-over");
        });
        node.addEventListener("dragleave", function () { node.classList.remove("drop-over"); });
        node.addEventListener("drop", function (event) {
          event.preventDefault();
          node.classList.remove("drop-over");
          var id = event.dataTransfer.getData("text/plain");
          if (id) hooks.onMove(id, { side: cell.side, column: cell.column, row: cell.row });
        });
      }
      grid.appendChild(node);
    });
    return grid;
  }

  function legend(data) {
    var box = el("div", "legend");
    [["actor", "acting card"], ["target", "its target"], ["named", "named by the action (roles not declared)"],
     ["face-down", "face down, known to you"], ["unknown", "a card you may not see"]].forEach(function (item) {
      var entry = el("span", null);
      entry.appendChild(el("span", "swatch " + item[0]));
      entry.appendChild(document.createTextNode(item[1]));
      box.appendChild(entry);
    });
    if (data.board) box.appendChild(el("span", null, "a " + words.closed + " card is drawn turned; cells are column.row of their side"));
    return box;
  }

  function table(data, hooks) {
    var cards = new Map(data.cards.map(function (c) { return [c.id, c]; }));
    var section = el("section", "table");
    section.setAttribute("aria-label", "the situation as " + data.viewpoint + " sees it");
    var players = data.players;
    players.forEach(function (player, i) {
      var label = el("div", "half-label", player.id + (player.viewer ? " (you)" : ""));
      var zones = zonesOf(data, player, cards, hooks);
      if (i === 0) {
        section.appendChild(label);
        section.appendChild(zones);
        if (data.board) section.appendChild(board(data, cards, hooks));
      } else {
        section.appendChild(zones);
        section.appendChild(label);
      }
    });
    section.appendChild(legend(data));
    return section;
  }

  // ------------------------------------------------------------------ verdicts

  var KIND_NOTE = { fact: "situation", repeat: "shown above", absent: "required not to hold",
                    unexplained: "no recorded derivation" };

  function nodeLabel(data, node) {
    var label = el("span", "node-label");
    label.appendChild(el("span", "node-text", node.text));
    if (node.atom) label.appendChild(el("code", "node-atom", node.atom));
    if (node.clause) label.appendChild(cite(data, node.clause));
    if (own(KIND_NOTE, node.kind)) label.appendChild(el("span", "node-kind", own(KIND_NOTE, node.kind)));
    if (node.rule) label.title = node.rule;
    return label;
  }

  function treeNode(data, node, depth) {
    var item = el("li", "node kind-" + node.kind);
    if (node.children && node.children.length) {
      var details = el("details");
      details.open = depth < 3;
      var summary = el("summary");
      summary.appendChild(nodeLabel(data, node));
      details.appendChild(summary);
      var list = el("ul");
      node.children.forEach(function (child) { list.appendChild(treeNode(data, child, depth + 1)); });
      details.appendChild(list);
      item.appendChild(details);
    } else {
      item.appendChild(nodeLabel(data, node));
    }
    return item;
  }

  function treeElement(data, tree) {
    var box = el("div", "tree");
    var list = el("ul");
    list.style.borderLeft = "none";
    list.style.paddingLeft = "0";
    list.appendChild(treeNode(data, tree, 0));
    box.appendChild(list);
    return box;
  }

  function highlight(root, verdict) {
    var roles = new Map();
    (verdict ? verdict.named : []).forEach(function (id) { roles.set(id, "hl-named"); });
    (verdict ? verdict.target : []).forEach(function (id) { roles.set(id, "hl-target"); });
    (verdict ? verdict.actor : []).forEach(function (id) { roles.set(id, "hl-actor"); });
    root.querySelectorAll(".card").forEach(function (card) {
      card.classList.remove("hl-actor", "hl-target", "hl-named");
      var role = roles.get(card.dataset.cardId);
      if (role) card.classList.add(role);
    });
  }

  function verdictItem(data, verdict, state, hooks) {
    var item = el("li", "verdict " + verdict.verdict);
    item.dataset.index = String(verdict.index);
    var head = el("button", "verdict-head");
    head.type = "button";
    head.setAttribute("aria-expanded", "false");
    head.appendChild(el("span", "tag " + verdict.verdict, verdict.verdict));
    head.appendChild(el("code", "action", verdict.action));
    if (verdict.certainty === "some") {
      head.appendChild(el("span", "certainty", "under some treatment of hidden cards"));
    }
    item.appendChild(head);
    var body = el("div", "verdict-body");
    var cites = el("div", "cites");
    cites.appendChild(el("span", null, "cites"));
    verdict.cites.forEach(function (id) { cites.appendChild(cite(data, id)); });
    body.appendChild(cites);
    if (verdict.assuming) body.appendChild(el("div", "assuming", verdict.assuming));
    if (verdict.because) body.appendChild(el("div", "because", "because " + verdict.because));
    if (verdict.consequences.length) {
      var then = el("div", "consequences");
      then.appendChild(el("span", null, "then:"));
      var list = el("ul", null);
      verdict.consequences.forEach(function (c) { list.appendChild(el("li", null, c)); });
      then.appendChild(list);
      body.appendChild(then);
    }
    var treeBox = el("div", "tree-box");
    body.appendChild(treeBox);
    item.appendChild(body);
    head.addEventListener("click", function () { state.select(verdict.index); });
    state.items.set(verdict.index, { item: item, head: head, treeBox: treeBox, verdict: verdict });
    return item;
  }

  function verdictPanel(data, root, hooks) {
    var section = el("section", "verdicts");
    section.appendChild(el("h2", null, "Verdicts"));
    var counts = { legal: 0, illegal: 0, obliged: 0 };
    data.verdicts.forEach(function (v) { counts[v.verdict] += 1; });
    section.appendChild(el("div", "summary-line", counts.legal + " legal, " + counts.illegal + " illegal, " +
                           counts.obliged + " obliged — choose one to see its reasons and its cards"));
    var state = { items: new Map(), current: null };
    state.select = function (index) {
      var chosen = state.items.get(index);
      if (!chosen) return;
      if (state.current !== null) {
        var before = state.items.get(state.current);
        before.item.classList.remove("selected");
        before.head.setAttribute("aria-expanded", "false");
        before.treeBox.replaceChildren();
      }
      if (state.current === index) {
        state.current = null;
        highlight(root, null);
        return;
      }
      state.current = index;
      chosen.item.classList.add("selected");
      chosen.head.setAttribute("aria-expanded", "true");
      highlight(root, chosen.verdict);
      if (chosen.verdict.tree) {
        chosen.treeBox.replaceChildren(treeElement(data, chosen.verdict.tree));
      } else if (hooks.loadTree) {
        chosen.treeBox.replaceChildren(el("div", "tree-loading", "working out the reasons…"));
        hooks.loadTree(chosen.verdict).then(function (tree) {
          if (state.current === index) chosen.treeBox.replaceChildren(treeElement(data, tree));
        }, function (problem) {
          if (state.current === index) chosen.treeBox.replaceChildren(el("div", "tree-loading", String(problem)));
        });
      }
    };
    var byPlayer = new Map();
    data.verdicts.forEach(function (v) {
      if (!byPlayer.has(v.player)) byPlayer.set(v.player, []);
      byPlayer.get(v.player).push(v);
    });
    var order = Array.from(byPlayer.keys()).sort(function (a, b) {
      return (b === data.viewpoint) - (a === data.viewpoint) || (a < b ? -1 : a > b ? 1 : 0);
    });
    order.forEach(function (player) {
      section.appendChild(el("h3", null, player === data.viewpoint ? player + " (you)" : player));
      var list = el("ol", "verdict-list");
      list.dataset.player = player;
      byPlayer.get(player).forEach(function (v) { list.appendChild(verdictItem(data, v, state, hooks)); });
      section.appendChild(list);
    });
    if (!data.verdicts.length) section.appendChild(el("p", null, "No action is possible in this situation."));
    if (data.notes.length) {
      var notes = el("div", "notes");
      notes.appendChild(el("h3", null, "Notes"));
      data.notes.forEach(function (n) { notes.appendChild(el("p", null, n)); });
      section.appendChild(notes);
    }
    return { section: section, state: state };
  }

  /* Draw the page for `data` into `root`. hooks (all optional): onMove(cardId, cell) makes
     cards draggable onto cells; loadTree(verdict) -> Promise of a tree, for verdicts whose
     tree the data leaves out. Returns {select(index)}. */
  function render(root, data, hooks) {
    hooks = hooks || {};
    words = data.words || words;
    var page = el("div", "ruling-page");
    page.appendChild(header(data));
    var main = el("main", "ruling");
    main.appendChild(table(data, hooks));
    var panel = verdictPanel(data, main, hooks);
    main.appendChild(panel.section);
    page.appendChild(main);
    root.replaceChildren(page);
    if (data.selected !== null && data.selected !== undefined) panel.state.select(data.selected);
    return { select: panel.state.select };
  }

  /* A whatif answer: the question, then each alternative as its edits and the ruling page of the
     edited situation (moved cards drawn at both places). */
  function renderWhatif(root, answer) {
    var page = el("div", "whatif-page");
    var head = el("header", "whatif-head");
    head.appendChild(el("h1", null, "What would make " + answer.action + " " + answer.wanted + "?"));
    head.appendChild(el("p", null, "Asked by " + answer.player + "; now it is " + answer.now + "."));
    page.appendChild(head);
    if (!answer.alternatives.length) {
      page.appendChild(el("p", "whatif-none", answer.searched ? "No edit the game declares makes it so."
                                                               : "It already is: nothing needs to change."));
    }
    answer.alternatives.forEach(function (alternative, i) {
      var box = el("section", "whatif-alternative");
      box.appendChild(el("h2", null, (i + 1) + ". cost " + alternative.cost));
      var edits = el("ul", "whatif-edits");
      alternative.edits.forEach(function (edit) { edits.appendChild(el("li", null, edit.says)); });
      alternative.assumed.forEach(function (words) {
        edits.appendChild(el("li", "assumed", "and, no edit: " + words));
      });
      box.appendChild(edits);
      var ruling = el("div", "whatif-ruling");
      box.appendChild(ruling);
      page.appendChild(box);
      render(ruling, alternative.page, {});
    });
    root.replaceChildren(page);
  }

  window.CCGPage = { render: render, el: el };

  var payload = JSON.parse(document.getElementById("ccg-data").textContent);
  if (payload.mode === "page") render(document.getElementById("ccg-root"), payload.data, {});
  if (payload.mode === "whatif") renderWhatif(document.getElementById("ccg-root"), payload.data);
})();
