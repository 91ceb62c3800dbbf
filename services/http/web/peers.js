// The cluster's peers, from /api/v0/cluster/peers, refreshed every 2 s.
(function () {
  "use strict";
  const box = document.getElementById("peers");
  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
  }
  function draw(peers) {
    const table = document.createElement("table");
    const head = document.createElement("tr");
    for (const h of ["node", "state", "last seen", "unique components", "http"]) {
      const th = document.createElement("th");
      th.textContent = h;
      head.appendChild(th);
    }
    table.appendChild(head);
    for (const p of peers) {
      const tr = document.createElement("tr");
      tr.dataset.peer = p.name;
      cell(tr, p.name + (p.self ? " (this node)" : ""));
      const healthy = p.state === "alive" ? "healthy" : (p.state === "suspect" ? "unknown" : "unhealthy");
      cell(tr, p.state, "health " + healthy);
      cell(tr, new Date(p.last_seen).toLocaleTimeString());
      cell(tr, String(p.owns.unique_components));
      const td = document.createElement("td");
      if (!p.self && p.state !== "dead" && p.state !== "left") {
        const a = document.createElement("a");
        a.href = "/api/v0/cluster/peers/" + encodeURIComponent(p.name) + "/api/v0/components";
        a.textContent = "components";
        td.appendChild(a);
      } else {
        td.textContent = p.http_addr || "";
      }
      tr.appendChild(td);
      table.appendChild(tr);
    }
    box.replaceChildren(table);
    box.className = "";
  }
  async function poll() {
    try {
      const r = await fetch("/api/v0/cluster/peers", { cache: "no-store" });
      if (r.ok) draw(await r.json());
    } catch (e) {
      // The process may be restarting: try again on the next tick.
    }
    setTimeout(poll, 2000);
  }
  poll();
})();
