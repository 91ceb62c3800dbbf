// The graph view: the running graph laid out by ELK (vendor/elkjs) in a
// Web Worker, drawn as SVG, with pan and zoom.
//
// A module instance is a box around its components (ELK lays them out as
// a compound node, and routes edges across its border). Clicking a box's
// title collapses it to one node: edges then attach to that node, their
// rates summed, and edges inside it vanish; clicking the node expands it.
// Which boxes are collapsed survives refreshes (and, for the browser
// tab's session, reloads of the page).
//
// The layout is redone only when what is drawn changes (nodes, edges,
// collapsed boxes); each poll otherwise updates colours, texts and rates
// in place.
import { COLORS, WORST, fit, rate, textWidth, kindLabel, placementLabel } from "./util.js";

const NS = "http://www.w3.org/2000/svg";
const H = 58, MINW = 180, MAXW = 330, HEAD = 26, PAD = 12;
const WRAP = 0.7; // the smallest scale that keeps a node's text legible
const SERVICE = "#455a64";
const STORE = "flowlua.collapsed";
const FONT = "12px system-ui, sans-serif", BOLD = "600 12px system-ui, sans-serif", SMALL = "11px system-ui, sans-serif";

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function key(e) { return e.from + ">" + e.to + ">" + e.signal; }

export class GraphView {
  constructor(svg) {
    this.svg = svg;
    this.viewport = svg.querySelector("#viewport");
    // eslint-disable-next-line no-undef
    this.elk = new ELK({ workerUrl: "/static/vendor/elkjs/elk-worker.min.js" });
    this.collapsed = new Set(this.load());
    this.view = { k: 1, x: 0, y: 0 };
    this.touched = false; // the user panned or zoomed: keep the view
    this.shape = "";      // what the current drawing is of
    this.laying = null;   // the layout in progress
    this.wanted = null;   // the poll to draw once it is done
    this.items = {};      // drawn nodes by id: {g, node or group, box}
    this.panning();
  }

  load() {
    try { return JSON.parse(sessionStorage.getItem(STORE) || "[]"); } catch (e) { return []; }
  }
  save() {
    try { sessionStorage.setItem(STORE, JSON.stringify([...this.collapsed])); } catch (e) { /* memory only */ }
  }
  toggle(id) {
    if (this.collapsed.has(id)) this.collapsed.delete(id); else this.collapsed.add(id);
    this.save();
    if (this.last) this.update(this.last.g, this.last.rates);
  }

  // update draws a poll: laid out anew if its shape changed.
  update(g, rates) {
    this.last = { g, rates };
    const v = this.visible(g, rates);
    const shape = JSON.stringify([Object.keys(v.items).map(id => [id, v.items[id].w]), v.edges.map(e => key(e) + e.kind)]);
    if (shape === this.shape) {
      this.refresh(v);
      return Promise.resolve();
    }
    this.wanted = { v, shape };
    if (!this.laying) this.laying = this.layoutLoop();
    return this.laying;
  }

  async layoutLoop() {
    try {
      while (this.wanted) {
        const { v, shape } = this.wanted;
        this.wanted = null;
        const start = performance.now();
        let laid = await this.elk.layout(this.elkGraph(v));
        const wrap = this.wrapping(v, laid);
        if (wrap && !this.wanted) laid = await this.elk.layout(this.elkGraph(v, wrap));
        if (this.wanted) continue; // outdated already
        this.draw(v, laid, !!wrap);
        this.svg.dataset.layoutMs = Math.round(performance.now() - start);
        this.shape = shape;
        this.refresh(v);
        if (!this.touched) this.fit();
      }
    } catch (e) {
      console.error("laying the graph out failed:", e);
    } finally {
      this.laying = null;
    }
  }

  // visible returns what is drawn: the nodes outside collapsed boxes and
  // the outermost collapsed boxes, each with the expanded box it sits in,
  // and the edges between them, merged.
  visible(g, rates) {
    const groups = {};
    for (const gr of g.groups || []) groups[gr.id] = { id: gr.id, parent: gr.parent, label: gr.label };
    const chain = (gid) => { // outermost first
      const c = [];
      for (; gid && groups[gid]; gid = groups[gid].parent) c.unshift(gid);
      return c;
    };
    const items = {}, rep = {};
    for (const n of g.nodes) {
      const c = chain(n.module_instance);
      const i = c.findIndex(id => this.collapsed.has(id));
      if (i < 0) {
        rep[n.id] = n.id;
        const mi = n.module_instance;
        const label = mi && n.id.startsWith(mi + ".") ? n.id.slice(mi.length + 1) : n.id;
        items[n.id] = { id: n.id, node: n, label, box: c.length ? c[c.length - 1] : "" };
        continue;
      }
      const vid = "module:" + c[i];
      rep[n.id] = vid;
      if (!items[vid]) items[vid] = { id: vid, group: groups[c[i]], label: groups[c[i]].label, box: i > 0 ? c[i - 1] : "", members: [] };
      items[vid].members.push(n);
    }
    for (const id in items) {
      const it = items[id];
      it.w = Math.round(Math.min(MAXW, Math.max(MINW, textWidth("▸ " + it.label, BOLD) + 20)));
    }
    const edges = [], merged = {}, data = {};
    for (const e of g.edges) {
      const from = rep[e.from], to = rep[e.to];
      if (!from || !to || from === to) continue;
      const k = from + ">" + to + ">" + e.kind + ">" + (e.signal || "");
      let m = merged[k];
      if (!m) {
        m = merged[k] = { from, to, kind: e.kind, signal: e.signal || "" };
        edges.push(m);
      }
      if (e.kind === "data") {
        data[from + ">" + to] = true;
        if (rates[key(e)] !== undefined) m.rate = (m.rate || 0) + rates[key(e)];
      }
    }
    // A reference along which data also flows is not drawn twice.
    return { groups, items, edges: edges.filter(e => e.kind !== "reference" || !data[e.from + ">" + e.to]) };
  }

  // wrapping returns the aspect ratio of the drawing area when a graph
  // laid out as laid would be shown too small to read (its text below
  // WRAP of its size) and may be wrapped: ELK then cuts its layers into
  // rows, left to right each, stacked to fill the area. Graphs with module
  // boxes are not wrapped (ELK wraps only flat graphs). null otherwise.
  wrapping(v, laid) {
    const box = this.svg.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || Object.values(v.items).some(it => it.box)) return null;
    const k = Math.min((box.width - 8) / laid.width, (box.height - 8) / laid.height);
    return k < WRAP ? box.width / box.height : null;
  }

  // elkGraph is what ELK lays out: boxes as compound nodes, a port per
  // signal on each side, a label of fixed size on each data edge; wrapped
  // into rows for a drawing area of aspect ratio wrap, if given.
  elkGraph(v, wrap) {
    const root = {
      id: "root", children: [], edges: [],
      layoutOptions: {
        "elk.algorithm": "layered", "elk.direction": "RIGHT",
        "elk.hierarchyHandling": "INCLUDE_CHILDREN",
        "elk.edgeRouting": "ORTHOGONAL",
        "elk.layered.spacing.nodeNodeBetweenLayers": "50",
        "elk.spacing.nodeNode": "22", "elk.spacing.edgeNode": "14", "elk.spacing.edgeEdge": "8",
        "elk.spacing.edgeLabel": "3", "elk.spacing.labelNode": "6",
        "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
        "elk.layered.crossingMinimization.strategy": "LAYER_SWEEP",
        "elk.padding": "[top=" + PAD + ",left=" + PAD + ",bottom=" + PAD + ",right=" + PAD + "]",
        "elk.json.shapeCoords": "ROOT", "elk.json.edgeCoords": "ROOT",
      },
    };
    if (wrap) {
      Object.assign(root.layoutOptions, {
        "elk.layered.wrapping.strategy": "MULTI_EDGE", "elk.aspectRatio": String(wrap),
        "elk.layered.wrapping.additionalEdgeSpacing": "20",
      });
    }
    const boxes = { "": root };
    const box = (gid) => {
      if (boxes[gid]) return boxes[gid];
      const gr = v.groups[gid];
      const b = { id: "box:" + gid, children: [], layoutOptions: {
        "elk.padding": "[top=" + (HEAD + 8) + ",left=12,bottom=12,right=12]",
        // wide enough for its title
        "elk.nodeSize.constraints": "MINIMUM_SIZE",
        "elk.nodeSize.minimum": "(" + Math.ceil(textWidth("▾ " + gr.label, BOLD) + 24) + ",0)",
      } };
      boxes[gid] = b;
      box(gr.parent && v.groups[gr.parent] ? gr.parent : "").children.push(b);
      return b;
    };
    const ports = {};
    const port = (id, side, name) => {
      const pid = id + "|" + side + "|" + name;
      if (!ports[pid]) {
        ports[pid] = { id: pid, width: 1, height: 1, layoutOptions: { "elk.port.side": side } };
        v.items[id].elk.ports.push(ports[pid]);
      }
      return pid;
    };
    for (const id of Object.keys(v.items).sort()) {
      const it = v.items[id];
      it.elk = { id, width: it.w, height: H, ports: [], layoutOptions: { "elk.portConstraints": "FIXED_SIDE" } };
      box(it.box).children.push(it.elk);
    }
    // A box is made when something is put in it: none is empty.
    v.edges.forEach((e, i) => {
      const name = e.kind === "data" ? e.signal : e.kind;
      const edge = { id: "e" + i, sources: [port(e.from, "EAST", name)], targets: [port(e.to, "WEST", name)] };
      if (e.kind === "data") {
        edge.labels = [{ text: e.signal, width: Math.ceil(textWidth(e.signal + " 00000/s", SMALL)) + 4, height: 14 }];
        // ELK wraps only a graph without centre labels: they are
        // nodes of their own layers.
        if (wrap) edge.labels[0].layoutOptions = { "elk.edgeLabels.placement": "TAIL" };
      }
      root.edges.push(edge);
      e.elkID = edge.id;
    });
    return root;
  }

  // draw draws v as ELK laid it out (wrapped: into rows).
  draw(v, laid, wrapped) {
    const vp = this.viewport;
    while (vp.firstChild) vp.removeChild(vp.firstChild);
    const defs = el("defs", {}, vp);
    const m = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#607d8b" }, m);
    this.size = { w: laid.width, h: laid.height };
    const shapes = {};
    const walk = (n, depth) => {
      for (const c of n.children || []) {
        shapes[c.id] = c;
        c.depth = depth;
        walk(c, depth + 1);
      }
    };
    walk(laid, 0);
    const layers = { boxes: el("g", { class: "boxes" }, vp), edges: el("g", { class: "edges" }, vp), nodes: el("g", { class: "nodes" }, vp) };

    const frames = Object.values(shapes).filter(s => s.id.startsWith("box:")).sort((a, b) => a.depth - b.depth);
    for (const f of frames) {
      const gid = f.id.slice(4), gr = v.groups[gid];
      const grp = el("g", { class: "group", "data-id": gid, "data-collapsed": "false" }, layers.boxes);
      el("rect", { class: "frame", x: f.x, y: f.y, width: f.width, height: f.height, rx: 8 }, grp);
      const head = el("g", { class: "group-head", role: "button" }, grp);
      el("rect", { x: f.x, y: f.y, width: f.width, height: HEAD, rx: 8, fill: "transparent" }, head);
      el("title", {}, head).textContent = "module instance " + gid + " — click to collapse";
      el("text", { class: "group-title", x: f.x + 8, y: f.y + 17 }, head).textContent = "▾ " + fit(gr.label, BOLD, f.width - 16);
      head.addEventListener("click", () => this.toggle(gid));
    }

    const byID = {};
    for (const e of laid.edges) byID[e.id] = e;
    this.edgeTexts = [];
    for (const e of v.edges) {
      const le = byID[e.elkID];
      if (!le) continue;
      const grp = el("g", { class: "edge " + e.kind, "data-from": e.from, "data-to": e.to, "data-signal": e.signal }, layers.edges);
      let d = "";
      for (const s of le.sections || []) {
        d += "M " + s.startPoint.x + " " + s.startPoint.y;
        for (const b of s.bendPoints || []) d += " L " + b.x + " " + b.y;
        d += " L " + s.endPoint.x + " " + s.endPoint.y + " ";
      }
      el("path", { d, "marker-end": "url(#arrow)" }, grp);
      if (e.kind === "data" && le.labels && le.labels[0]) {
        const l = le.labels[0], secs = le.sections || [];
        let at = { x: l.x + l.width / 2, y: l.y + l.height - 3, "text-anchor": "middle" };
        // ELK leaves the tail label of an edge it wrapped to the next row
        // at the graph's corner: it goes before the edge's arrow instead.
        const sp = secs.length && secs[0].startPoint, ep = secs.length && secs[secs.length - 1].endPoint;
        if (wrapped && sp && Math.hypot(l.x + l.width / 2 - sp.x, l.y + l.height / 2 - sp.y) > l.width + 20) {
          at = { x: ep.x - 12, y: ep.y - 4, "text-anchor": "end" };
        }
        const t = el("text", { class: "edge-label", ...at }, grp);
        this.edgeTexts.push({ t, key: e.from + ">" + e.to + ">" + e.signal, signal: e.signal });
      }
    }

    this.items = {};
    for (const id in v.items) {
      const it = v.items[id], s = shapes[id];
      if (!s) continue;
      this.items[id] = it.group ? this.drawCollapsed(it, s, layers.nodes) : this.drawNode(it, s, layers.nodes);
    }
  }

  drawNode(it, s, parent) {
    const n = it.node;
    const a = el("a", { href: n.kind === "component" ? "/component/" + encodeURIComponent(n.id) : "#" }, parent);
    const g = el("g", { class: "node " + n.kind, "data-id": n.id }, a);
    const r = el("rect", { x: s.x, y: s.y, width: s.width, height: s.height, rx: 6 }, g);
    const title = el("title", {}, g);
    const label = el("text", { class: "label", x: s.x + 8, y: s.y + 17 }, g);
    label.textContent = fit(it.label, BOLD, s.width - 16);
    const sub = el("text", { class: "sub", x: s.x + 8, y: s.y + 33 }, g);
    const msg = el("text", { class: "msg", x: s.x + 8, y: s.y + 49 }, g);
    return { g, r, title, sub, msg, w: s.width, it };
  }

  drawCollapsed(it, s, parent) {
    const g = el("g", { class: "group collapsed", "data-id": it.group.id, "data-collapsed": "true", role: "button" }, parent);
    const r = el("rect", { x: s.x, y: s.y, width: s.width, height: s.height, rx: 6 }, g);
    el("rect", { class: "stack", x: s.x + 3, y: s.y + 3, width: s.width - 6, height: s.height - 6, rx: 4 }, g);
    const title = el("title", {}, g);
    el("text", { class: "label", x: s.x + 10, y: s.y + 18 }, g).textContent = "▸ " + fit(it.label, BOLD, s.width - 34);
    const sub = el("text", { class: "sub", x: s.x + 10, y: s.y + 34 }, g);
    const msg = el("text", { class: "msg", x: s.x + 10, y: s.y + 49 }, g);
    g.addEventListener("click", () => this.toggle(it.group.id));
    return { g, r, title, sub, msg, w: s.width, it };
  }

  // refresh updates colours, texts and rates in place.
  refresh(v) {
    for (const id in this.items) {
      const d = this.items[id], it = v.items[id];
      if (!it) continue;
      let state, message, sub, title;
      if (it.group) {
        state = "healthy";
        for (const n of it.members) if (WORST.indexOf(n.health.state) < WORST.indexOf(state)) state = n.health.state;
        const bad = it.members.filter(n => n.health.state !== "healthy");
        sub = "module · " + it.members.length + (it.members.length === 1 ? " component" : " components");
        message = bad.length ? bad.length + " " + state + ": " + bad[0].health.message : state;
        title = "module instance " + it.group.id + " — " + message + " (" + it.members.map(n => n.id).join(", ") + ") — click to expand";
      } else {
        const n = it.node;
        state = n.health.state;
        sub = n.kind === "service" ? "service" : kindLabel(n.origin) + (n.placement === "unique" ? " · " + placementLabel(n) : "");
        message = n.kind === "service" ? "" : state + (n.health.message && state !== "healthy" ? ": " + n.health.message : "");
        title = n.id + " — " + state + (n.health.message ? ": " + n.health.message : "");
      }
      d.g.dataset.health = state;
      d.r.setAttribute("fill", it.node && it.node.kind === "service" ? SERVICE : (COLORS[state] || COLORS.unknown));
      d.title.textContent = title;
      d.sub.textContent = fit(sub, FONT, d.w - 16);
      d.msg.textContent = fit(message, FONT, d.w - 16);
    }
    const rates = {};
    for (const e of v.edges) if (e.kind === "data") rates[e.from + ">" + e.to + ">" + e.signal] = e.rate;
    for (const l of this.edgeTexts || []) {
      const r = rates[l.key];
      l.t.textContent = l.signal + (r !== undefined ? " " + rate(r) + "/s" : "");
    }
  }

  // Pan (drag the background) and zoom (the wheel, about the pointer).
  panning() {
    const svg = this.svg;
    let drag = null;
    svg.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0 || ev.target.closest("a, .group-head, .group.collapsed")) return;
      drag = { x: ev.clientX, y: ev.clientY, vx: this.view.x, vy: this.view.y };
      svg.setPointerCapture(ev.pointerId);
      svg.classList.add("panning");
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!drag) return;
      this.touched = true;
      this.set(this.view.k, drag.vx + ev.clientX - drag.x, drag.vy + ev.clientY - drag.y);
    });
    const end = () => { drag = null; svg.classList.remove("panning"); };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const box = svg.getBoundingClientRect();
      this.zoom(Math.exp(-ev.deltaY * 0.0015), ev.clientX - box.left, ev.clientY - box.top);
    }, { passive: false });
  }

  set(k, x, y) {
    this.view = { k, x, y };
    this.viewport.setAttribute("transform", "translate(" + x.toFixed(1) + "," + y.toFixed(1) + ") scale(" + k.toFixed(4) + ")");
  }

  // zoom scales by f about (cx, cy) of the drawing area (its centre by
  // default).
  zoom(f, cx, cy) {
    const box = this.svg.getBoundingClientRect();
    if (cx === undefined) { cx = box.width / 2; cy = box.height / 2; }
    const k = Math.min(4, Math.max(0.1, this.view.k * f));
    const r = k / this.view.k;
    this.touched = true;
    this.set(k, cx - (cx - this.view.x) * r, cy - (cy - this.view.y) * r);
  }

  // fit shows the whole graph, at most at its natural size.
  fit() {
    if (!this.size) return;
    const box = this.svg.getBoundingClientRect();
    const k = Math.min(1, (box.width - 8) / this.size.w, (box.height - 8) / this.size.h);
    this.set(k, (box.width - this.size.w * k) / 2, Math.max(4, (box.height - this.size.h * k) / 2));
  }

  // find shows the node of component id: expands the boxes it is
  // collapsed in, centres it at a readable size and marks it.
  async find(id) {
    const g = this.last && this.last.g;
    const n = g && g.nodes.find(x => x.id === id);
    if (!n) return false;
    const groups = {};
    for (const gr of g.groups || []) groups[gr.id] = gr;
    let changed = false;
    for (let gid = n.module_instance; gid && groups[gid]; gid = groups[gid].parent) {
      if (this.collapsed.delete(gid)) changed = true;
    }
    if (changed) this.save();
    await this.update(g, this.last.rates);
    const d = this.items[id];
    if (!d) return false;
    for (const old of this.viewport.querySelectorAll(".found")) old.classList.remove("found");
    d.g.classList.add("found");
    const box = this.svg.getBoundingClientRect();
    const x = +d.r.getAttribute("x") + d.w / 2, y = +d.r.getAttribute("y") + H / 2;
    const k = Math.max(this.view.k, 1);
    this.touched = true;
    this.set(k, box.width / 2 - x * k, box.height / 2 - y * k);
    return true;
  }
}
