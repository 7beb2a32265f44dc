// Elastic GPU dashboard: polls /api/v1/cluster (the view `egpu inspect -o json` prints) and draws every card.
// Plain DOM, no framework and no build step: text from the cluster always goes in through textContent.
// Two kinds of figures: what pods are granted (from their allocations), and what they use as the node agent measured
// it (the node's elasticgpu.io/usage; -1 where the node publishes none).
"use strict";

const params = new URLSearchParams(location.search);
const REFRESH_MS = Math.max(1, Number(params.get("refresh") || 2)) * 1000;
const API = new URL("../api/v1/cluster", location.href);

const state = { view: null, selected: null, colourBy: "max", find: "" };

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function gib(mib) {
  if (mib === 0) return "0";
  return mib >= 1024 ? (mib / 1024).toFixed(mib % 1024 === 0 ? 0 : 1) + " GiB" : mib + " MiB";
}

function pct(part, whole) {
  return whole > 0 ? Math.round((100 * part) / whole) : 0;
}

// What is used, -1 meaning not measured.
function used(mib) {
  return mib < 0 ? "unknown" : gib(mib);
}

function sm(percent) {
  return percent < 0 ? "unknown" : `${percent} %`;
}

// A holder whose processes hold more memory on the card than it was granted there.
function over(holder) {
  return holder.usedMemoryMib > holder.memoryMib;
}

// Free TFLOPS (card, node or summary) as text: the figure, or why there is none ("unknown model"), never a zero.
function freeTflops(f) {
  if (!f) return "unknown";
  if (f.free === null || f.free === undefined) return `${f.precision} TFLOPS unknown (${f.unknown})`;
  const figure = Number(f.free).toLocaleString(undefined, { minimumFractionDigits: 0, maximumFractionDigits: 2 });
  return `${figure} ${f.precision} TFLOPS free` + (f.unknown ? ` (${f.unknown} not counted)` : "");
}

function measuredAt(iso) {
  const when = new Date(iso);
  return Number.isNaN(when.getTime()) ? iso : when.toLocaleString();
}

// The card's fill, 0..1, by what the user chose to colour by.
function fill(card) {
  const memory = card.memoryTotalMib > 0 ? card.memoryGrantedMib / card.memoryTotalMib : 0;
  const compute = card.computeTotalPercent > 0 ? card.computeGrantedPercent / card.computeTotalPercent : 0;
  const f = state.colourBy === "memory" ? memory : state.colourBy === "compute" ? compute : Math.max(memory, compute);
  return Math.min(1, f);
}

function total(label, value, ratio) {
  return el("div", { class: "total", "data-total": label },
    el("div", { class: "label" }, label),
    el("div", { class: "value" }, value),
    ratio === undefined ? null : el("div", { class: "meter" }, el("span", { style: `width: ${Math.round(100 * ratio)}%` })));
}

function renderTotals(view) {
  const s = view.summary;
  const cards = view.nodes.flatMap(n => n.cards);
  const measured = cards.filter(c => c.memoryUsedMib >= 0);
  const usedMib = measured.reduce((sum, c) => sum + c.memoryUsedMib, 0);
  const capacityMeasured = measured.reduce((sum, c) => sum + c.memoryTotalMib, 0);
  document.getElementById("totals").replaceChildren(
    total("Cards", `${s.cards} on ${s.nodes} nodes`),
    total("Unhealthy cards", String(s.unhealthyCards)),
    total("Memory granted", `${gib(s.memoryGrantedMib)} of ${gib(s.memoryCapacityMib)} (${pct(s.memoryGrantedMib, s.memoryCapacityMib)} %)`,
      s.memoryCapacityMib > 0 ? s.memoryGrantedMib / s.memoryCapacityMib : 0),
    measured.length === 0 ? total("Memory used", "not measured")
      : total("Memory used", `${gib(usedMib)} of ${gib(capacityMeasured)} on ${measured.length} measured cards`,
        capacityMeasured > 0 ? usedMib / capacityMeasured : 0),
    total("Compute granted", `${pct(s.computeGrantedPercent, s.computeCapacityPercent)} % of ${s.computeCapacityPercent / 100} cards`,
      s.computeCapacityPercent > 0 ? s.computeGrantedPercent / s.computeCapacityPercent : 0),
    total("Free compute", freeTflops(s.freeTflops)),
    total("Pods holding cards", String(s.podsHoldingCards)),
    total("Pods waiting for GPUs", String(s.podsPending)));
}

function islandNames(node) {
  const names = new Map();
  node.nvlinkIslands.forEach((island, i) => island.forEach(card => names.set(card, String.fromCharCode(65 + i))));
  return names;
}

function matches(node, card) {
  const q = state.find;
  return q !== "" && (node.name.toLowerCase().includes(q)
    || card.holders.some(h => `${h.namespace}/${h.pod}`.toLowerCase().includes(q)));
}

function cardTile(node, card, island) {
  const f = fill(card);
  const key = `${node.name}/${card.index}`;
  const classes = ["card"];
  if (!card.healthy) classes.push("unhealthy");
  if (f > 0.55) classes.push("dark");
  if (state.selected === key) classes.push("selected");
  if (matches(node, card)) classes.push("match");
  const anyOver = card.holders.some(over);
  if (anyOver) classes.push("over");
  const label = `${node.name} GPU ${card.index}${card.healthy ? "" : ", unhealthy"}: memory granted ${gib(card.memoryGrantedMib)} of `
    + `${gib(card.memoryTotalMib)}, used ${used(card.memoryUsedMib)}, compute granted ${card.computeGrantedPercent} %, `
    + `${freeTflops(card.freeTflops)}, `
    + `${card.holders.length} holders${anyOver ? ", a container uses more memory than it was granted" : ""}`;
  return el("button", {
    class: classes.join(" "), type: "button", style: `--fill: ${f.toFixed(3)}`, title: label, "aria-label": label,
    "data-node": node.name, "data-card": String(card.index), "data-healthy": String(card.healthy),
    "data-fill": f.toFixed(3), "data-holders": String(card.holders.length),
    "data-used": String(card.memoryUsedMib), "data-over": String(anyOver),
    "data-free-tflops": card.freeTflops && card.freeTflops.free !== null ? String(card.freeTflops.free) : "unknown",
    onclick: () => select(key),
  },
  el("span", { class: "index" }, `GPU ${card.index}`),
  island ? el("span", { class: "island", title: `NVLink island ${island}` }, `NVL-${island}`) : null,
  el("div", {}, `${gib(card.memoryGrantedMib)} / ${gib(card.memoryTotalMib)}`),
  el("div", { class: "bar", title: "memory granted" }, el("span", { style: `width: ${pct(card.memoryGrantedMib, card.memoryTotalMib)}%` })),
  el("div", { class: "used" }, `used ${used(card.memoryUsedMib)}${anyOver ? " ⚠" : ""}`),
  el("div", { class: "bar", title: "compute" }, el("span", { style: `width: ${pct(card.computeGrantedPercent, card.computeTotalPercent)}%` })),
  el("div", {}, `${card.computeGrantedPercent} % compute`),
  el("div", { class: "tflops" }, freeTflops(card.freeTflops)));
}

function renderGrid(view) {
  const grid = document.getElementById("grid");
  if (view.nodes.length === 0) {
    grid.replaceChildren(el("p", { class: "empty" }, "No GPU nodes yet: no node carries an elasticgpu.io/inventory annotation. Is the node agent running?"));
    return;
  }
  grid.replaceChildren(...view.nodes.map(node => {
    const islands = islandNames(node);
    const dimmed = state.find !== "" && !node.cards.some(c => matches(node, c));
    const unhealthy = node.cards.filter(c => !c.healthy).length;
    const measured = node.cards.length > 0 && node.cards[0].usageMeasured ? node.cards[0].usageMeasured : null;
    return el("article", { class: dimmed ? "node dimmed" : "node", "data-node": node.name },
      el("h3", {}, node.name),
      el("p", { class: "meta" }, [node.model, `${node.cards.length} cards`, node.driver ? `driver ${node.driver}` : null,
        node.nvlinkIslands.length ? `${node.nvlinkIslands.length} NVLink islands` : null,
        unhealthy ? `${unhealthy} unhealthy` : null,
        node.freeTflops ? `${freeTflops(node.freeTflops)} on healthy cards` : null,
        measured ? `used measured ${measuredAt(measured)}` : "used not measured"].filter(Boolean).join(" · ")),
      el("div", { class: "cards" }, node.cards.map(c => cardTile(node, c, islands.get(c.index)))));
  }));
}

function findCard(view, key) {
  for (const node of view.nodes) {
    for (const card of node.cards) {
      if (`${node.name}/${card.index}` === key) return { node, card };
    }
  }
  return null;
}

function renderDetails(view) {
  const aside = document.getElementById("details");
  const found = state.selected ? findCard(view, state.selected) : null;
  if (!found) {
    state.selected = null;
    aside.hidden = true;
    return;
  }
  const { node, card } = found;
  const holders = card.holders.length === 0
    ? el("p", { class: "empty" }, "No pod holds this card.")
    : el("table", { id: "holders" },
      el("thead", {}, el("tr", {}, ["Pod", "Container", "Memory granted", "Memory used", "Compute granted", "SM used", "Phase"]
        .map(h => el("th", {}, h)))),
      el("tbody", {}, card.holders.map(h => el("tr", {
        "data-pod": `${h.namespace}/${h.pod}`, "data-over": String(over(h)), class: over(h) ? "over" : "",
        title: over(h) ? "uses more memory than it was granted" : "",
      },
      el("td", {}, `${h.namespace}/${h.pod}`), el("td", {}, h.container), el("td", {}, gib(h.memoryMib)),
      el("td", { class: "used", title: h.usedMemoryMib < 0 ? "not measured" : `${h.usedMemoryMib} MiB used of ${h.memoryMib} MiB granted` },
        used(h.usedMemoryMib), over(h) ? el("strong", {}, " over") : null),
      el("td", { title: h.tflops ? "asked in TFLOPS: the share it is of this card's model" : "" },
        `${h.percent} %`, h.tflops ? ` · ${h.tflops.asked} ${h.tflops.precision} TFLOPS asked, ${h.tflops.given} given` : ""),
      el("td", {}, sm(h.smPercent)), el("td", {}, h.phase)))));
  aside.replaceChildren(
    el("button", { class: "close", type: "button", "aria-label": "Close", onclick: () => select(null) }, "✕"),
    el("h2", {}, `${node.name} · GPU ${card.index}`),
    el("dl", {},
      el("dt", {}, "Model"), el("dd", {}, card.model),
      el("dt", {}, "UUID"), el("dd", {}, card.uuid),
      el("dt", {}, "Health"), el("dd", { class: card.healthy ? "" : "problem" }, card.healthy ? "healthy" : "unhealthy"),
      el("dt", {}, "Memory granted"), el("dd", {}, `${gib(card.memoryGrantedMib)} of ${gib(card.memoryTotalMib)}`),
      el("dt", {}, "Memory used"), el("dd", {}, card.memoryUsedMib < 0
        ? "unknown: the node publishes no readable elasticgpu.io/usage"
        : `${gib(card.memoryUsedMib)} of ${gib(card.memoryTotalMib)}, every process on the card`),
      el("dt", {}, "Measured"), el("dd", { "data-measured": card.usageMeasured || "" },
        card.usageMeasured ? measuredAt(card.usageMeasured) : "never"),
      el("dt", {}, "Compute granted"), el("dd", {}, `${card.computeGrantedPercent} % of ${card.computeTotalPercent} %`),
      el("dt", {}, "Compute free"), el("dd", { "data-free-tflops": "" }, freeTflops(card.freeTflops))),
    el("h2", {}, `Pods (${card.holders.length})`),
    holders);
  aside.hidden = false;
}

function renderLists(view) {
  document.getElementById("pending").replaceChildren(...(view.pending.length === 0 ? [] : [
    el("h2", {}, `Waiting for GPUs (${view.pending.length})`),
    el("ul", {}, view.pending.map(p => el("li", {}, `${p.namespace}/${p.pod}`)))]));
  document.getElementById("problems").replaceChildren(...(view.problems.length === 0 ? [] : [
    el("h2", { class: "problem" }, `Problems (${view.problems.length})`),
    el("ul", {}, view.problems.map(p => el("li", {}, el("strong", {}, p.object), `: ${p.reason}`)))]));
}

function render() {
  if (!state.view) return;
  // The grid is drawn anew each time: keep the keyboard on the tile it was on.
  const focused = document.activeElement && document.activeElement.classList.contains("card")
    ? [document.activeElement.dataset.node, document.activeElement.dataset.card] : null;
  renderTotals(state.view);
  renderGrid(state.view);
  if (focused) {
    const tile = [...document.querySelectorAll("button.card")]
      .find(t => t.dataset.node === focused[0] && t.dataset.card === focused[1]);
    if (tile) tile.focus();
  }
  renderDetails(state.view);
  renderLists(state.view);
}

function select(key) {
  state.selected = state.selected === key ? null : key;
  render();
}

function status(text, stale) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.classList.toggle("stale", stale);
}

async function refresh() {
  try {
    const response = await fetch(API, { cache: "no-store" });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    state.view = await response.json();
    render();
    status(`updated ${new Date().toLocaleTimeString()}, every ${REFRESH_MS / 1000} s`, false);
  } catch (e) {
    status(`cannot reach the controller (${e.message}); showing the last view, retrying every ${REFRESH_MS / 1000} s`, true);
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

document.getElementById("colour-by").addEventListener("change", e => { state.colourBy = e.target.value; render(); });
document.getElementById("find").addEventListener("input", e => { state.find = e.target.value.trim().toLowerCase(); render(); });
document.addEventListener("keydown", e => { if (e.key === "Escape") select(null); });
refresh();
