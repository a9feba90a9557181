"use strict";
(function () {
  const payload = JSON.parse(document.getElementById("ccg-data").textContent);
  // A pair is [A, B, numbers of its differences' shapes]; a shape is one difference without its pair.
  payload.pairs = payload.pairs.map(([a, b, refs]) => ({a, b, rows: refs.map(i => payload.shapes[i])}));
  const root = document.getElementById("ccg-root");
  const shown = 200; // rows of the ranked table drawn at once; the filters narrow the rest
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const k of kids) e.append(k);
    return e;
  }
  function select(id, label, values) {
    const s = el("select", {id});
    s.append(el("option", {value: ""}, "any"));
    for (const v of values) s.append(el("option", {value: v}, v));
    return el("label", {}, label + " ", s);
  }
  const changes = [...new Set(payload.pairs.flatMap(p => p.rows.map(r => r[4])))].sort();
  const features = payload.perFeature.map(f => f[0]);
  root.append(el("h1", {}, payload.title), el("p", {id: "summary"}, payload.summary));
  const filters = el("div", {id: "filters"},
    el("label", {}, "card ", el("input", {id: "card", type: "search", placeholder: "name of A or B"})),
    select("template", "template", payload.templates), select("change", "change", changes),
    select("feature", "feature", features));
  const table = el("table", {id: "pairs"}, el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "A"),
    el("th", {}, "B"), el("th", {}, "differences"), el("th", {}, "features"))), el("tbody"));
  const count = el("p", {id: "count"});
  const panel = el("div", {id: "panel", class: "panel"}, el("p", {}, "Click a pair for its differences."));
  root.append(filters, count, table, panel);
  function matches(p, row) {
    const v = id => document.getElementById(id).value;
    return (!v("template") || row[0] === v("template")) && (!v("change") || row[4] === v("change")) &&
      (!v("feature") || row[8].includes(v("feature")));
  }
  function draw() {
    const card = document.getElementById("card").value.trim().toLowerCase();
    const body = table.tBodies[0];
    body.replaceChildren();
    let n = 0;
    payload.pairs.forEach((p, i) => {
      if (card && !p.a.toLowerCase().includes(card) && !p.b.toLowerCase().includes(card)) return;
      const rows = p.rows.filter(r => matches(p, r));
      if (!rows.length) return;
      n += 1;
      if (n > shown) return;
      const feats = [...new Set(rows.flatMap(r => r[8]))].join(", ");
      const tr = el("tr", {class: "pair", "data-pair": String(i)}, el("td", {}, String(n)), el("td", {}, p.a),
        el("td", {}, p.b), el("td", {}, String(rows.length)), el("td", {}, feats));
      tr.addEventListener("click", () => open(i, tr));
      body.append(tr);
    });
    count.textContent = n + " pairs match" + (n > shown ? "; the first " + shown + " are listed" : "");
  }
  function open(i, tr) {
    document.querySelectorAll("#pairs tr.selected").forEach(e => e.classList.remove("selected"));
    tr.classList.add("selected");
    const p = payload.pairs[i];
    panel.replaceChildren(el("h2", {}, "A = " + p.a + ", B = " + p.b));
    for (const r of p.rows.filter(row => matches(p, row))) {
      const [template, standIn, player, action, change, real, plain, clauses, feats, text, plainText] = r;
      const who = standIn === "A" ? p.a : p.b;
      panel.append(el("h3", {}, template + " — " + player + ": " + action),
        el("p", {}, change + ": with " + who + " " + real + "; with its plain stand-in " + plain),
        el("p", {}, "clauses: " + (clauses.join(", ") || "(none)") + "; features of " + who + ": " +
          (feats.join(", ") || "(none)")),
        el("div", {class: "ruling"}, payload.texts[text].join("\n") || "(no such action with " + who + ")"),
        el("p", {}, "With the stand-in:"),
        el("div", {class: "ruling"}, payload.texts[plainText].join("\n") || "(no such action with the stand-in)"));
    }
  }
  function sumTable(title, rows) {
    const t = el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, title), el("th", {}, "differences"))));
    const b = el("tbody");
    for (const [k, v] of rows) b.append(el("tr", {}, el("td", {}, k), el("td", {}, String(v))));
    t.append(b);
    return t;
  }
  const sums = el("div", {class: "sums"}, sumTable("feature", payload.perFeature), sumTable("clause", payload.perClause));
  const notes = el("div", {});
  for (const [template, card, why] of payload.unplaced) notes.append(el("p", {}, "Not placed: " + card + " under " + template + ": " + why));
  for (const e of payload.errors) notes.append(el("p", {}, "Error in " + e.count + " situations (e.g. " + e.example + "): " + e.message));
  root.append(el("h2", {}, "Summary"), sums, notes);
  for (const id of ["card", "template", "change", "feature"]) document.getElementById(id).addEventListener("input", draw);
  draw();
})();
