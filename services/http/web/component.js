// A component's page: refreshes its health, and shows live debugging's
// stream of what it sends, with pause and a filter.
"use strict";
(function () {
  const id = document.body.dataset.id;
  const MAX = 50; // samples kept on the page

  async function refreshHealth() {
    try {
      const r = await fetch("/api/v0/components/" + encodeURIComponent(id), { cache: "no-store" });
      if (r.status === 404) {
        document.getElementById("health").textContent = "removed from the running graph";
        return;
      }
      if (r.ok) {
        const c = await r.json();
        const badge = document.querySelector("#health .health");
        badge.className = "health " + c.health.state;
        badge.textContent = c.health.state;
        document.getElementById("health-message").textContent = c.health.message;
        document.getElementById("health-time").textContent = new Date(c.health.updated_at).toLocaleString();
      }
    } catch (e) { /* try again */ }
    setTimeout(refreshHealth, 2000);
  }
  setTimeout(refreshHealth, 2000);

  const stream = document.getElementById("stream");
  if (!stream) return;
  const state = document.getElementById("stream-state");
  const pauseBtn = document.getElementById("pause");
  const filter = document.getElementById("filter");
  const signal = document.getElementById("signal");
  let paused = false, es = null, count = 0;

  function matches(div) {
    const f = filter.value.trim().toLowerCase();
    return !f || div.textContent.toLowerCase().includes(f);
  }
  function applyFilter() {
    for (const d of stream.children) d.style.display = matches(d) ? "" : "none";
  }
  function add(s) {
    const div = document.createElement("div");
    div.className = "sample";
    div.dataset.signal = s.signal;
    div.textContent = new Date(s.time).toLocaleTimeString() + "  " + s.signal + "  " + s.items + " items\n" +
      JSON.stringify(s.data, null, 2);
    div.style.display = matches(div) ? "" : "none";
    stream.prepend(div);
    while (stream.children.length > MAX) stream.removeChild(stream.lastChild);
  }
  function connect() {
    if (es) es.close();
    const q = signal.value ? "?signal=" + signal.value : "";
    es = new EventSource("/api/v0/debug/" + encodeURIComponent(id) + q);
    es.onopen = () => { state.textContent = paused ? "paused" : "watching"; };
    es.addEventListener("sample", ev => {
      if (paused) return;
      count++;
      add(JSON.parse(ev.data));
      state.textContent = "watching (" + count + " samples)";
    });
    es.addEventListener("end", ev => {
      state.textContent = "stream ended: " + ev.data;
      es.close();
    });
    es.onerror = () => { state.textContent = "disconnected, retrying…"; };
  }
  pauseBtn.addEventListener("click", () => {
    paused = !paused;
    pauseBtn.textContent = paused ? "resume" : "pause";
    state.textContent = paused ? "paused" : "watching";
  });
  filter.addEventListener("input", applyFilter);
  signal.addEventListener("change", connect);
  connect();
})();
