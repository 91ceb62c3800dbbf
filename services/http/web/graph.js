// The graph page: polls /api/v0/graph and redraws the SVG, so that health,
// rates and the graph itself follow the running pipeline (reloads too).
//
// The components of a module instance are drawn in a box named after the
// instance (nested instances in their parent's box). Clicking the box's
// title collapses it to one node: edges then attach to that node, their
// rates summed, and edges inside it vanish; clicking the node expands it.
// Which instances are collapsed survives the refresh (and a reload of the
// page, for the browser tab's session).
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const W = 200, H = 44, DX = 280, GAP = 32, PAD = 20;
  const HEAD = 24, GPAD = 10, GSTEP = 8; // a box's title, padding, and extra padding per box nested in it
  const COLORS = { healthy: "#2e7d32", unhealthy: "#c62828", exited: "#6d4c41", unknown: "#757575" };
  const WORST = ["exited", "unhealthy", "unknown", "healthy"]; // a collapsed box shows its worst member
  const SERVICE = "#455a64";
  const STORE = "flowlua.collapsed";
  const svg = document.getElementById("graph");
  let prev = null; // the previous poll: {time, items by edge key}
  let last = null; // the last graph and its rates, redrawn when a box is toggled
  const collapsed = new Set(load());

  function load() {
    try { return JSON.parse(sessionStorage.getItem(STORE) || "[]"); } catch (e) { return []; }
  }
  function save() {
    try { sessionStorage.setItem(STORE, JSON.stringify([...collapsed])); } catch (e) { /* storage off: memory only */ }
  }
  function toggle(id) {
    if (collapsed.has(id)) collapsed.delete(id); else collapsed.add(id);
    save();
    if (last) render(last.g, last.rates);
  }

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function short(id) { return id.length > 30 ? "…" + id.slice(-29) : id; }
  function key(e) { return e.from + ">" + e.to + ">" + e.signal; }
  function rate(n) { return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2); }
  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  // received takes a poll's graph: rates come from the items sent since
  // the previous poll, edge by edge, before any edges are merged.
  function received(g) {
    const t = Date.parse(g.time) / 1000;
    const items = {}, rates = {};
    for (const e of g.edges) {
      if (e.kind !== "data") continue;
      const k = key(e);
      items[k] = e.items;
      if (prev && prev.items[k] !== undefined && t > prev.time) {
        rates[k] = Math.max(0, e.items - prev.items[k]) / (t - prev.time);
      }
    }
    prev = { time: t, items: items };
    last = { g: g, rates: rates };
    render(g, rates);
  }

  // visible returns what is drawn: the nodes outside collapsed boxes and
  // the outermost collapsed boxes, each with the expanded box it sits in,
  // and the edges between them, merged.
  function visible(g, rates) {
    const groups = {};
    for (const gr of g.groups || []) groups[gr.id] = { id: gr.id, parent: gr.parent, label: gr.label, children: [] };
    for (const id in groups) {
      const p = groups[id].parent;
      if (p && groups[p]) groups[p].children.push(groups[id]);
    }
    const chain = (gid) => { // outermost first
      const c = [];
      for (; gid && groups[gid]; gid = groups[gid].parent) c.unshift(gid);
      return c;
    };
    const items = {}, rep = {};
    for (const n of g.nodes) {
      const c = chain(n.module_instance);
      const i = c.findIndex(id => collapsed.has(id));
      if (i < 0) {
        rep[n.id] = n.id;
        items[n.id] = { id: n.id, node: n, box: c.length ? c[c.length - 1] : "" };
        continue;
      }
      const vid = "module:" + c[i];
      rep[n.id] = vid;
      if (!items[vid]) items[vid] = { id: vid, group: groups[c[i]], box: i > 0 ? c[i - 1] : "", members: [] };
      items[vid].members.push(n);
    }
    const edges = [], merged = {}, data = {};
    for (const e of g.edges) {
      const from = rep[e.from], to = rep[e.to];
      if (!from || !to || from === to) continue;
      const k = from + ">" + to + ">" + e.kind + ">" + (e.signal || "");
      let v = merged[k];
      if (!v) {
        v = merged[k] = { from: from, to: to, kind: e.kind, signal: e.signal || "", items: 0 };
        edges.push(v);
      }
      v.items += e.items || 0;
      if (e.kind === "data") {
        data[from + ">" + to] = true;
        if (rates[key(e)] !== undefined) v.rate = (v.rate || 0) + rates[key(e)];
      }
    }
    // A reference along which data also flows is not drawn twice.
    return { groups: groups, items: items, edges: edges.filter(e => e.kind !== "reference" || !data[e.from + ">" + e.to]) };
  }

  // layers gives each visible item the length of the longest path of
  // edges that reaches it, so that data flows left to right; a cycle is
  // cut where it closes.
  function layers(v) {
    const into = {};
    for (const e of v.edges) (into[e.to] = into[e.to] || []).push(e.from);
    const state = {}, layer = {};
    const visit = (id) => {
      if (state[id] === 1) return -1;
      if (state[id] === 2) return layer[id];
      state[id] = 1;
      let l = 0;
      for (const from of into[id] || []) {
        const fl = visit(from);
        if (fl >= 0 && fl + 1 > l) l = fl + 1;
      }
      state[id] = 2;
      layer[id] = l;
      return l;
    };
    for (const id in v.items) v.items[id].layer = visit(id);
  }

  // pack lays out the content of an expanded box ("" the page): its items
  // and expanded boxes, each a rectangle spanning its layers, stacked in
  // layer then id order at the first height free in all its layers.
  function pack(v, gid) {
    const kids = [];
    for (const id in v.items) {
      const it = v.items[id];
      if (it.box === gid) kids.push({ sort: it.group ? it.group.id : id, item: it, minL: it.layer, maxL: it.layer, h: H, depth: -1 });
    }
    const sub = gid ? v.groups[gid].children : Object.values(v.groups).filter(gr => !gr.parent || !v.groups[gr.parent]);
    for (const gr of sub) {
      if (collapsed.has(gr.id)) continue;
      const b = pack(v, gr.id);
      if (b) kids.push(b);
    }
    if (kids.length === 0) return null;
    kids.sort((a, b) => a.minL - b.minL || cmp(a.sort, b.sort));
    const occupied = {}; // layer -> [[from y, to y]]
    let minL = Infinity, maxL = -Infinity, h = 0, depth = -1;
    for (const k of kids) {
      let y = 0;
      for (let moved = true; moved;) {
        moved = false;
        for (let l = k.minL; l <= k.maxL; l++) {
          for (const [a, z] of occupied[l] || []) {
            if (y < z && a < y + k.h + GAP) { y = z; moved = true; }
          }
        }
      }
      for (let l = k.minL; l <= k.maxL; l++) (occupied[l] = occupied[l] || []).push([y, y + k.h + GAP]);
      k.y = y;
      minL = Math.min(minL, k.minL); maxL = Math.max(maxL, k.maxL);
      h = Math.max(h, y + k.h);
      depth = Math.max(depth, k.depth);
    }
    return { sort: gid, group: gid ? v.groups[gid] : null, kids: kids, minL: minL, maxL: maxL, depth: depth + 1, h: gid ? h + HEAD + GPAD : h };
  }

  // place gives absolute positions to what b holds, its top at y.
  function place(b, y, pos, frames) {
    const top = b.group ? y + HEAD : y;
    for (const k of b.kids) {
      if (k.kids) place(k, top + k.y, pos, frames);
      else pos[k.item.id] = { layer: k.minL, y: top + k.y };
    }
    if (b.group) frames.push({ group: b.group, y: y, h: b.h, minL: b.minL, maxL: b.maxL, depth: b.depth });
  }

  function render(g, rates) {
    const v = visible(g, rates);
    layers(v);
    const root = pack(v, "") || { kids: [], h: 0, minL: 0, maxL: 0, depth: 0 };
    const pos = {}, frames = [];
    place(root, PAD, pos, frames);
    const hpad = (f) => GPAD + GSTEP * f.depth;
    let left = 0, maxLayer = 0;
    for (const f of frames) left = Math.max(left, hpad(f));
    for (const id in pos) maxLayer = Math.max(maxLayer, pos[id].layer);
    const colX = (l) => PAD + left + l * DX;
    for (const id in pos) pos[id].x = colX(pos[id].layer);

    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const width = colX(maxLayer) + W + left + PAD, height = PAD * 2 + root.h;
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    const defs = el("defs", {}, svg);
    const m = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#607d8b" }, m);

    // Expanded boxes, outermost first, under everything else.
    frames.sort((a, b) => b.depth - a.depth);
    for (const f of frames) {
      const x = colX(f.minL) - hpad(f), w = colX(f.maxL) + W + hpad(f) - x;
      const grp = el("g", { class: "group", "data-id": f.group.id, "data-collapsed": "false" }, svg);
      el("rect", { class: "frame", x: x, y: f.y, width: w, height: f.h, rx: 8 }, grp);
      const head = el("g", { class: "group-head", role: "button" }, grp);
      el("rect", { x: x, y: f.y, width: w, height: HEAD - 4, rx: 8, fill: "transparent" }, head);
      const title = el("title", {}, head);
      title.textContent = "module instance " + f.group.id + " — click to collapse";
      const tx = el("text", { x: x + 8, y: f.y + 15 }, head);
      tx.textContent = "▾ " + f.group.label;
      head.addEventListener("click", () => toggle(f.group.id));
    }

    const pairs = {}; // edges between the same two nodes are spread out
    for (const e of v.edges) {
      const a = pos[e.from], b = pos[e.to];
      if (!a || !b) continue;
      const pk = e.from + ">" + e.to;
      const nth = pairs[pk] = (pairs[pk] || 0) + 1;
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
      const mx = (x1 + x2) / 2;
      const grp = el("g", { class: "edge " + e.kind, "data-from": e.from, "data-to": e.to, "data-signal": e.signal }, svg);
      el("path", { d: `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2} ${y2}`, "marker-end": "url(#arrow)" }, grp);
      if (e.kind === "data") {
        const tx = el("text", { x: mx, y: (y1 + y2) / 2 - 6 + (nth - 1) * 13, "text-anchor": "middle" }, grp);
        tx.textContent = e.signal + (e.rate !== undefined ? " " + rate(e.rate) + "/s" : "");
      }
    }

    for (const id in v.items) {
      const it = v.items[id], p = pos[id];
      if (!p) continue;
      if (it.group) {
        drawCollapsed(it, p);
        continue;
      }
      const n = it.node;
      const a = el("a", { href: n.kind === "component" ? "/component/" + encodeURIComponent(n.id) : "#" }, svg);
      const grp = el("g", { class: "node " + n.kind, "data-id": n.id, "data-health": n.health.state }, a);
      const fill = n.kind === "service" ? SERVICE : (COLORS[n.health.state] || COLORS.unknown);
      el("rect", { x: p.x, y: p.y, width: W, height: H, rx: 6, fill: fill }, grp);
      const title = el("title", {}, grp);
      title.textContent = n.id + " — " + n.health.state + (n.health.message ? ": " + n.health.message : "");
      const tx = el("text", { x: p.x + 8, y: p.y + 18 }, grp);
      // In a box, the box names the instance.
      const mi = n.module_instance;
      tx.textContent = short(mi && n.id.startsWith(mi + ".") ? n.id.slice(mi.length + 1) : n.id);
      const st = el("text", { x: p.x + 8, y: p.y + 35, opacity: "0.85" }, grp);
      st.textContent = n.kind === "service" ? "service" : n.health.state + (n.health.message ? ": " + n.health.message : "");
      if (st.textContent.length > 32) st.textContent = st.textContent.slice(0, 31) + "…";
    }

    const load = document.getElementById("load");
    if (!g.load.time || g.load.time.startsWith("0001")) {
      load.textContent = "no load yet";
    } else {
      const when = new Date(g.load.time).toLocaleString();
      load.className = g.load.ok ? "load-ok" : "load-failed";
      load.textContent = g.load.ok
        ? "loaded at " + when + " in " + (g.load.duration_seconds * 1000).toFixed(1) + " ms"
        : "rejected at " + when + " (the previous graph keeps running):\n" + g.load.error;
    }
    const plugins = document.getElementById("plugins");
    plugins.textContent = g.plugins.length === 0 ? "none"
      : g.plugins.map(p => p.namespace + ": " + p.name + " " + p.version).join(", ");
    document.getElementById("livedebugging").textContent = g.livedebugging
      ? "on (open a component to watch it)" : "off (livedebugging { enabled = true } turns it on)";
    svg.dataset.updated = g.time;
  }

  // drawCollapsed draws a collapsed box as one node, coloured by the
  // worst health among its components.
  function drawCollapsed(it, p) {
    let worst = "healthy";
    for (const n of it.members) {
      if (WORST.indexOf(n.health.state) >= 0 && WORST.indexOf(n.health.state) < WORST.indexOf(worst)) worst = n.health.state;
    }
    const grp = el("g", { class: "group collapsed", "data-id": it.group.id, "data-collapsed": "true", "data-health": worst, role: "button" }, svg);
    el("rect", { x: p.x, y: p.y, width: W, height: H, rx: 6, fill: COLORS[worst] || COLORS.unknown }, grp);
    el("rect", { class: "stack", x: p.x + 3, y: p.y + 3, width: W - 6, height: H - 6, rx: 4 }, grp);
    const title = el("title", {}, grp);
    title.textContent = "module instance " + it.group.id + " — " + worst + " (" + it.members.map(n => n.id).join(", ") + ") — click to expand";
    const tx = el("text", { x: p.x + 10, y: p.y + 18 }, grp);
    tx.textContent = "▸ " + short(it.group.label);
    const st = el("text", { x: p.x + 10, y: p.y + 35, opacity: "0.85" }, grp);
    st.textContent = "module · " + it.members.length + (it.members.length === 1 ? " component" : " components") + (worst === "healthy" ? "" : " · " + worst);
    grp.addEventListener("click", () => toggle(it.group.id));
  }

  async function poll() {
    try {
      const r = await fetch("/api/v0/graph", { cache: "no-store" });
      if (r.ok) received(await r.json());
    } catch (e) {
      // The process may be restarting: try again on the next tick.
    }
    setTimeout(poll, 1000);
  }
  poll();
})();
