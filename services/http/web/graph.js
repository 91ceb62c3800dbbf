// The graph page: polls /api/v0/graph and redraws the SVG, so that health,
// rates and the graph itself follow the running pipeline (reloads too).
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const W = 200, H = 44, DX = 280, DY = 76, PAD = 20;
  const COLORS = { healthy: "#2e7d32", unhealthy: "#c62828", exited: "#6d4c41", unknown: "#757575" };
  const SERVICE = "#455a64";
  const svg = document.getElementById("graph");
  let prev = null; // the previous poll: {time, items by edge key}

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function short(id) { return id.length > 30 ? "…" + id.slice(-29) : id; }
  function key(e) { return e.from + ">" + e.to + ">" + e.signal; }
  function rate(n) { return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2); }

  function draw(g) {
    const t = Date.parse(g.time) / 1000;
    const items = {};
    const pos = {};
    let maxRow = 0, maxLayer = 0;
    for (const n of g.nodes) {
      pos[n.id] = { x: PAD + n.layer * DX, y: PAD + n.row * DY };
      maxRow = Math.max(maxRow, n.row); maxLayer = Math.max(maxLayer, n.layer);
    }
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const width = PAD * 2 + maxLayer * DX + W, height = PAD * 2 + (maxRow + 1) * DY - (DY - H);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    const defs = el("defs", {}, svg);
    const m = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#607d8b" }, m);

    const pairs = {}; // edges between the same two nodes are spread out
    for (const e of g.edges) {
      const a = pos[e.from], b = pos[e.to];
      if (!a || !b) continue;
      const pk = e.from + ">" + e.to;
      const nth = pairs[pk] = (pairs[pk] || 0) + 1;
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
      const mx = (x1 + x2) / 2;
      const grp = el("g", { class: "edge " + e.kind, "data-from": e.from, "data-to": e.to, "data-signal": e.signal || "" }, svg);
      el("path", { d: `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2} ${y2}`, "marker-end": "url(#arrow)" }, grp);
      if (e.kind === "data") {
        items[key(e)] = e.items;
        let label = e.signal;
        if (prev && prev.items[key(e)] !== undefined && t > prev.time) {
          label += " " + rate(Math.max(0, e.items - prev.items[key(e)]) / (t - prev.time)) + "/s";
        }
        const tx = el("text", { x: mx, y: (y1 + y2) / 2 - 6 + (nth - 1) * 13, "text-anchor": "middle" }, grp);
        tx.textContent = label;
      }
    }
    for (const n of g.nodes) {
      const p = pos[n.id];
      const a = el("a", { href: n.kind === "component" ? "/component/" + encodeURIComponent(n.id) : "#" }, svg);
      const grp = el("g", { class: "node " + n.kind, "data-id": n.id, "data-health": n.health.state }, a);
      const fill = n.kind === "service" ? SERVICE : (COLORS[n.health.state] || COLORS.unknown);
      el("rect", { x: p.x, y: p.y, width: W, height: H, rx: 6, fill: fill }, grp);
      const title = el("title", {}, grp);
      title.textContent = n.id + " — " + n.health.state + (n.health.message ? ": " + n.health.message : "");
      const tx = el("text", { x: p.x + 8, y: p.y + 18 }, grp);
      tx.textContent = short(n.id);
      const st = el("text", { x: p.x + 8, y: p.y + 35, opacity: "0.85" }, grp);
      st.textContent = n.kind === "service" ? "service" : n.health.state + (n.health.message ? ": " + n.health.message : "");
      if (st.textContent.length > 32) st.textContent = st.textContent.slice(0, 31) + "…";
    }
    prev = { time: t, items: items };

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

  async function poll() {
    try {
      const r = await fetch("/api/v0/graph", { cache: "no-store" });
      if (r.ok) draw(await r.json());
    } catch (e) {
      // The process may be restarting: try again on the next tick.
    }
    setTimeout(poll, 1000);
  }
  poll();
})();
