// The pipeline's page: polls /api/v0/graph every second and shows it as
// a graph (graph.js) or as a list of components (list.js), the list by
// default on pipelines of more than LARGE components. The search filters
// the list and, on Enter, shows the next match in the graph. Rates are
// the counters' increase between two polls.
import { GraphView } from "./graph.js";
import { ListView } from "./list.js";
import { WORST, kindLabel, placementLabel } from "./util.js";

const LARGE = 20;
const $ = (id) => document.getElementById(id);
const graph = new GraphView($("graph"));
const list = new ListView($("list"));
let prev = null;  // the previous poll's time and counters
let last = null;  // the last poll and its rates
let view = ""; // "graph" or "list", once the first poll is in
let found = -1;   // the match last shown in the graph

// rates returns the per-second increase of each edge's items and each
// node's counters since the previous poll.
function rates(g) {
  const t = Date.parse(g.time) / 1000;
  const now = { time: t, edges: {}, nodes: {} };
  const out = { edges: {}, nodes: {} };
  const per = (a, b) => Math.max(0, a - b) / (t - prev.time);
  for (const e of g.edges) {
    if (e.kind !== "data") continue;
    const k = e.from + ">" + e.to + ">" + e.signal;
    now.edges[k] = e.items;
    if (prev && prev.edges[k] !== undefined && t > prev.time) out.edges[k] = per(e.items, prev.edges[k]);
  }
  for (const n of g.nodes) {
    now.nodes[n.id] = n;
    const p = prev && prev.nodes[n.id];
    if (p && t > prev.time) out.nodes[n.id] = { in: per(n.items_in, p.items_in), out: per(n.items_out, p.items_out), errors: per(n.errors, p.errors) };
  }
  prev = now;
  return out;
}

// rows are the list's: each component, then each module instance with
// its members' worst health, their errors, and what crosses its border.
function rows(g, r) {
  const out = [], modules = {};
  for (const gr of g.groups) modules[gr.id] = { id: gr.id, kind: "module", state: "healthy", message: "", in: 0, out: 0, errors: 0, members: 0 };
  const inside = (id, gid) => id.startsWith(gid + ".");
  for (const n of g.nodes) {
    if (n.kind !== "component") continue;
    const nr = r.nodes[n.id] || {};
    const runs = n.placement === "unique" ? placementLabel(n) : "every node";
    out.push({ id: n.id, href: "/component/" + encodeURIComponent(n.id), kind: kindLabel(n.origin), state: n.health.state,
      message: n.health.message, in: nr.in, out: nr.out, errors: nr.errors, runs,
      search: [n.id, n.name, kindLabel(n.origin), n.health.state, n.health.message, runs].join(" ").toLowerCase() });
    for (const gid in modules) {
      if (!inside(n.id, gid)) continue;
      const m = modules[gid];
      m.members++;
      if (WORST.indexOf(n.health.state) < WORST.indexOf(m.state)) { m.state = n.health.state; m.message = n.id + ": " + n.health.message; }
      m.errors += nr.errors || 0;
    }
  }
  for (const e of g.edges) {
    const v = r.edges[e.from + ">" + e.to + ">" + e.signal] || 0;
    for (const gid in modules) {
      if (inside(e.from, gid) && !inside(e.to, gid)) modules[gid].out += v;
      if (inside(e.to, gid) && !inside(e.from, gid)) modules[gid].in += v;
    }
  }
  for (const gid in modules) {
    const m = modules[gid];
    const known = Object.keys(r.nodes).length > 0; // rates from the second poll on
    out.push({ ...m, href: "#graph", runs: m.members + " components", in: known ? m.in : undefined, out: known ? m.out : undefined,
      errors: known ? m.errors : undefined, search: [gid, "module", m.state, m.message].join(" ").toLowerCase() });
  }
  return out;
}

function show(v) {
  view = v;
  $("view-graph").hidden = v !== "graph";
  $("view-list").hidden = v !== "list";
  $("tab-graph").setAttribute("aria-selected", v === "graph");
  $("tab-list").setAttribute("aria-selected", v === "list");
  document.body.dataset.view = v;
  if (last && v === "graph") graph.update(last.g, last.r.edges).then(() => graph.fit());
}

function received(g) {
  const r = rates(g);
  last = { g, r };
  const components = g.nodes.filter(n => n.kind === "component");
  if (!view) show(location.hash === "#graph" || location.hash === "#list" ? location.hash.slice(1) : components.length > LARGE ? "list" : "graph");
  const bad = components.filter(n => n.health.state !== "healthy").length;
  $("summary").textContent = components.length + " components" + (bad ? " · " + bad + " not healthy" : " · all healthy");
  $("summary").className = bad ? "bad" : "";
  list.update(rows(g, r));
  if (view === "graph") graph.update(g, r.edges);
  unique(components);
  loadInfo(g);
  $("graph").dataset.updated = g.time;
}

// unique lists where each unique component runs.
function unique(components) {
  const box = $("unique");
  const u = components.filter(n => n.placement === "unique");
  if (u.length === 0) {
    box.textContent = "No unique components (placement = \"unique\").";
    box.className = "muted";
    return;
  }
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>unique component</th><th>runs on</th><th>here</th></tr>";
  for (const n of u) {
    const tr = table.insertRow();
    tr.dataset.id = n.id;
    tr.insertCell().textContent = n.id;
    tr.insertCell().textContent = n.owner || "this node (no cluster)";
    tr.insertCell().textContent = n.standby || "running";
  }
  box.replaceChildren(table);
  box.className = "";
}

function loadInfo(g) {
  const load = $("load");
  if (!g.load.time || g.load.time.startsWith("0001")) {
    load.textContent = "no load yet";
  } else {
    const when = new Date(g.load.time).toLocaleString();
    load.className = g.load.ok ? "load-ok" : "load-failed";
    load.textContent = g.load.ok
      ? "loaded at " + when + " in " + (g.load.duration_seconds * 1000).toFixed(1) + " ms"
      : "rejected at " + when + " (the previous graph keeps running):\n" + g.load.error;
  }
  $("plugins").textContent = g.plugins.length === 0 ? "none"
    : g.plugins.map(p => p.namespace + ": " + p.name + " " + p.version).join(", ");
  $("livedebugging").textContent = g.livedebugging
    ? "on (open a component to watch it)" : "off (livedebugging { enabled = true } turns it on)";
}

// search filters the list; Enter shows the next match in the graph.
function search(ev) {
  list.filter($("search").value);
  const n = list.matches().length;
  $("search-result").textContent = $("search").value.trim() ? n + (n === 1 ? " match" : " matches") : "";
  if (ev.type === "input") found = -1;
}
$("search").addEventListener("input", search);
$("search").addEventListener("keydown", async (ev) => {
  if (ev.key !== "Enter") return;
  ev.preventDefault();
  const q = $("search").value.trim().toLowerCase();
  const m = list.matches().filter(r => r.kind !== "module");
  if (!q || m.length === 0) return;
  // An exact id first, then in list order.
  const exact = m.findIndex(r => r.id.toLowerCase() === q);
  found = exact >= 0 && found < 0 ? exact : (found + 1) % m.length;
  if (view !== "graph") { location.hash = "graph"; show("graph"); }
  const ok = await graph.find(m[found].id);
  $("search-result").textContent = ok ? "showing " + m[found].id + " (" + (found + 1) + " of " + m.length + ")" : "not in the graph";
});
$("tab-graph").addEventListener("click", () => { location.hash = "graph"; show("graph"); });
$("tab-list").addEventListener("click", () => { location.hash = "list"; show("list"); });
$("zoom-in").addEventListener("click", () => graph.zoom(1.25));
$("zoom-out").addEventListener("click", () => graph.zoom(0.8));
$("zoom-fit").addEventListener("click", () => { graph.touched = false; graph.fit(); });

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
