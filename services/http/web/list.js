// The list view: every component and module instance in a table, sorted
// by any column (click its header; again to reverse) and filtered by the
// search.
import { WORST, rate } from "./util.js";

const COLUMNS = [
  { key: "id", title: "component" },
  { key: "kind", title: "kind" },
  { key: "health", title: "health" },
  { key: "in", title: "items/s in", num: true },
  { key: "out", title: "items/s out", num: true },
  { key: "errors", title: "errors/s", num: true },
  { key: "runs", title: "runs on" },
];

export class ListView {
  constructor(table) {
    this.table = table;
    this.sort = { key: "id", dir: 1 };
    this.query = "";
    this.rows = [];
    const tr = document.createElement("tr");
    for (const c of COLUMNS) {
      const th = document.createElement("th");
      th.dataset.sort = c.key;
      th.textContent = c.title;
      if (c.num) th.className = "num";
      th.addEventListener("click", () => {
        this.sort = { key: c.key, dir: this.sort.key === c.key ? -this.sort.dir : (c.num ? -1 : 1) };
        this.render();
      });
      tr.appendChild(th);
    }
    table.createTHead().appendChild(tr);
    this.body = table.createTBody();
  }

  update(rows) {
    this.rows = rows;
    this.render();
  }

  filter(query) {
    this.query = query.trim().toLowerCase();
    this.render();
  }

  // matches returns the rows the search finds.
  matches() {
    const q = this.query;
    return q ? this.rows.filter(r => r.search.includes(q)) : this.rows;
  }

  render() {
    const { key, dir } = this.sort;
    const value = (r) => key === "health" ? WORST.indexOf(r.state) + ":" + r.id : (r[key] === undefined ? -1 : r[key]);
    const rows = this.matches().slice().sort((a, b) => {
      const x = value(a), y = value(b);
      return (x < y ? -1 : x > y ? 1 : 0) * dir || (a.id < b.id ? -1 : 1);
    });
    for (const th of this.table.tHead.rows[0].cells) {
      th.classList.toggle("sorted", th.dataset.sort === key);
      th.dataset.dir = th.dataset.sort === key ? (dir > 0 ? "asc" : "desc") : "";
    }
    const out = document.createDocumentFragment();
    for (const r of rows) {
      const tr = document.createElement("tr");
      tr.dataset.id = r.id;
      tr.dataset.health = r.state;
      if (r.kind === "module") tr.className = "module";
      const id = document.createElement("td");
      id.className = "id";
      const a = document.createElement("a");
      a.href = r.href;
      a.textContent = r.id;
      a.title = r.id;
      id.appendChild(a);
      tr.appendChild(id);
      cell(tr, r.kind);
      const h = cell(tr, "", "health-cell");
      const badge = document.createElement("span");
      badge.className = "health " + r.state;
      badge.textContent = r.state;
      h.appendChild(badge);
      if (r.state !== "healthy" && r.message) {
        const m = document.createElement("span");
        m.className = "health-message";
        m.textContent = r.message;
        h.appendChild(m);
      }
      for (const k of ["in", "out", "errors"]) {
        const td = cell(tr, r[k] === undefined ? "–" : rate(r[k]), "num");
        if (k === "errors" && r[k] > 0) td.classList.add("bad");
      }
      cell(tr, r.runs);
      out.appendChild(tr);
    }
    this.body.replaceChildren(out);
  }
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}
