// What the graph and the list share: colours, labels, number formats and
// text measurement.
export const COLORS = { healthy: "#2e7d32", unhealthy: "#c62828", exited: "#6d4c41", unknown: "#757575" };

// WORST orders health states, worst first: a module shows its worst member.
export const WORST = ["exited", "unhealthy", "unknown", "healthy"];

const KINDS = { builtin: "built-in", lua_plugin: "Lua plugin", native_plugin: "native plugin", module: "module", service: "service" };

// kindLabel names where a component's code comes from.
export function kindLabel(origin) { return KINDS[origin] || origin || "built-in"; }

// placementLabel says where a unique component runs.
export function placementLabel(n) {
  if (n.standby) return n.standby;
  return n.owner ? "unique, runs on " + n.owner : "unique, runs here (no cluster)";
}

// rate formats items per second.
export function rate(n) { return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2); }

const ctx = document.createElement("canvas").getContext("2d");

// textWidth is the width of text in a CSS font.
export function textWidth(text, font) {
  ctx.font = font;
  return ctx.measureText(text).width;
}

// fit cuts text at its end, with an ellipsis, to fit width.
export function fit(text, font, width) {
  if (textWidth(text, font) <= width) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (textWidth(text.slice(0, mid) + "…", font) <= width) lo = mid; else hi = mid - 1;
  }
  return text.slice(0, lo) + "…";
}
