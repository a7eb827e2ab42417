// kconnect console: a small single-page view of a Kafka Connect worker, built on its REST API
// only (so it also works against another worker: ?api=http://host:8083 with CORS allowed).
// No framework and no build step; every value from the API is escaped before it is shown.
"use strict";

const params = new URLSearchParams(location.search);
// The REST API's root: the page is served at <root>/ui/, so "../" (also behind a path prefix).
const API = (params.get("api") || new URL("..", location.href).href).replace(/\/?$/, "/");
const REFRESH_MS = Math.max(500, Number(params.get("refresh")) || 2000);
const WINDOW_S = 30; // Kafka's metric sample window
const HISTORY_S = 600; // how much history the charts keep
const SECRET = /(password|secret|token|credential|sasl\.jaas\.config|api\.key)/i;

// ---- helpers ---------------------------------------------------------------------------------
const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) =>
  ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
// A path segment: "a/b" as a%2Fb; "." and ".." as %2E, which browsers do not drop.
const enc = (s) => {
  const e = encodeURIComponent(s);
  return e === "." || e === ".." ? e.replace(/\./g, "%2E") : e;
};
const $ = (sel) => document.querySelector(sel);
const fmt = (n, digits = 1) => (n == null || Number.isNaN(n) ? "–" :
  Math.abs(n) >= 1000 ? Math.round(n).toLocaleString() : Number(n.toFixed(digits)).toString());
const badge = (state, extra = "") =>
  `<span class="state ${esc(state)} ${extra}" data-testid="state">${esc(state || "?")}</span>`;

async function api(path, options = {}) {
  const response = await fetch(API + path.replace(/^\//, ""), {
    credentials: "same-origin",
    headers: { Accept: "application/json", ...(options.body ? { "Content-Type": "application/json" } : {}) },
    ...options,
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text || response.statusText;
    try { message = JSON.parse(text).message || message; } catch (_) { /* not JSON */ }
    throw new Error(`${options.method || "GET"} ${path}: ${message} (HTTP ${response.status})`);
  }
  if (!text) return null;
  try { return JSON.parse(text); } catch (_) { return text; }
}

// A failed action's message stays for 10 s; a failed refresh shows until the next good one.
function banner(message, sticky = false) {
  const el = $("#banner");
  if (!message && Date.now() < Number(el.dataset.until || 0)) return;
  el.textContent = message || "";
  el.hidden = !message;
  el.dataset.until = sticky ? String(Date.now() + 10000) : "0";
}

// ---- metrics: Prometheus text from /metrics, totals kept over time -------------------------
const history = new Map(); // "connector|task|metric" -> [[seconds, value], ...]

function parsePrometheus(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, "$1");
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

const TOTALS = {
  kafka_connect_source_task_metrics_source_record_write_total: "records",
  kafka_connect_sink_task_metrics_sink_record_send_total: "records",
  kafka_connect_task_error_metrics_total_record_errors: "errors",
  kafka_connect_task_error_metrics_deadletterqueue_produce_requests: "dlq",
};
const GAUGES = { kafka_connect_sink_task_metrics_sink_record_lag_max: "lag" };

async function pollMetrics() {
  let text;
  try { text = await api("metrics"); } catch (_) { return; } // metrics are optional
  const now = Date.now() / 1000;
  for (const s of parsePrometheus(String(text))) {
    const kind = TOTALS[s.name] || GAUGES[s.name];
    if (!kind || s.labels.connector == null) continue;
    const key = `${s.labels.connector}|${s.labels.task}|${kind}`;
    const points = history.get(key) || [];
    points.push([now, s.value]);
    while (points.length && points[0][0] < now - HISTORY_S) points.shift();
    history.set(key, points);
  }
}

// Rate over the 30 s window ending at `at` (or over what exists of it), per second.
function windowRate(points, at) {
  const inWindow = points.filter(([t]) => t <= at && t >= at - WINDOW_S);
  if (inWindow.length < 2) return null;
  const [t0, v0] = inWindow[0], [t1, v1] = inWindow[inWindow.length - 1];
  return t1 > t0 ? Math.max(0, v1 - v0) / (t1 - t0) : null;
}

function series(connector, kind, task) {
  const out = [];
  for (const [key, points] of history) {
    const [c, t, k] = key.split("|");
    if (c === connector && k === kind && (task == null || String(task) === t)) out.push(points);
  }
  return out;
}

function connectorFigures(connector, task) {
  const now = Date.now() / 1000;
  const sum = (list) => (list.length ? list.reduce((a, b) => a + b, 0) : null);
  const last = (points) => (points.length ? points[points.length - 1][1] : null);
  const rates = series(connector, "records", task).map((p) => windowRate(p, now)).filter((r) => r != null);
  const spark = [];
  const records = series(connector, "records", task);
  if (records.length) {
    for (const [t] of records[0]) spark.push([t, sum(records.map((p) => windowRate(p, t) || 0))]);
  }
  return {
    rate: sum(rates),
    total: sum(records.map(last).filter((v) => v != null)),
    lag: sum(series(connector, "lag", task).map(last).filter((v) => v != null)),
    errors: sum(series(connector, "errors", task).map(last).filter((v) => v != null)),
    dlq: sum(series(connector, "dlq", task).map(last).filter((v) => v != null)),
    spark,
  };
}

function sparkline(points, cls = "spark") {
  if (points.length < 2) return `<svg class="${cls}" viewBox="0 0 100 20"></svg>`;
  const t0 = points[0][0], t1 = points[points.length - 1][0];
  const max = Math.max(1e-9, ...points.map(([, v]) => v));
  const d = points.map(([t, v], i) =>
    `${i ? "L" : "M"}${(((t - t0) / (t1 - t0 || 1)) * 100).toFixed(1)},${(19 - (v / max) * 18).toFixed(1)}`).join("");
  return `<svg class="${cls}" viewBox="0 0 100 20" preserveAspectRatio="none"><path d="${d}"/></svg>`;
}

// The connector page's chart: records/s over the kept history, with its axes labelled.
function chart(points) {
  const W = 600, H = 150, L = 70, B = 22, T = 8, R = 10;
  if (points.length < 2) {
    return `<p class="muted" data-testid="chart-empty">The chart starts once the page has read /metrics twice.</p>`;
  }
  const t0 = points[0][0], t1 = points[points.length - 1][0];
  const max = Math.max(1e-9, ...points.map(([, v]) => v));
  const x = (t) => L + ((t - t0) / (t1 - t0 || 1)) * (W - L - R);
  const y = (v) => T + (1 - v / max) * (H - T - B);
  const d = points.map(([t, v], i) => `${i ? "L" : "M"}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join("");
  const span = t1 - t0 >= 120 ? `${Math.round((t1 - t0) / 60)} min ago` : `${Math.round(t1 - t0)} s ago`;
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" data-testid="chart" role="img" aria-label="records per second over time">
    <line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${H - B}"/><line class="axis" x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}"/>
    <text class="tick" x="${L - 6}" y="${T + 9}" text-anchor="end" data-testid="chart-max">${esc(fmt(max))}</text>
    <text class="tick" x="${L - 6}" y="${H - B}" text-anchor="end">0</text>
    <text class="tick" x="4" y="${(H - B) / 2}" data-testid="chart-unit">records/s</text>
    <text class="tick" x="${L}" y="${H - 6}">${esc(span)}</text>
    <text class="tick" x="${W - R}" y="${H - 6}" text-anchor="end">now</text>
    <path class="line" d="${d}"/></svg>`;
}

// ---- actions ---------------------------------------------------------------------------------
const ACTIONS = {
  pause: (n) => api(`connectors/${enc(n)}/pause`, { method: "PUT" }),
  resume: (n) => api(`connectors/${enc(n)}/resume`, { method: "PUT" }),
  stop: (n) => api(`connectors/${enc(n)}/stop`, { method: "PUT" }),
  restart: (n) => api(`connectors/${enc(n)}/restart?includeTasks=true&onlyFailed=true`, { method: "POST" }),
  delete: (n) => api(`connectors/${enc(n)}`, { method: "DELETE" }),
  "restart-task": (n, t) => api(`connectors/${enc(n)}/tasks/${enc(t)}/restart`, { method: "POST" }),
};

// The actions Kafka Connect accepts in each state (resume also starts a STOPPED connector).
const VALID = {
  RUNNING: ["pause", "stop", "delete"],
  PAUSED: ["resume", "stop", "delete"],
  STOPPED: ["resume", "delete"],
  FAILED: ["restart", "stop", "delete"],
};
const LABELS = { pause: "Pause", resume: "Resume", restart: "Restart failed", stop: "Stop", delete: "Delete" };

function buttons(name, state, failedTasks = 0) {
  const actions = [...(VALID[state] || ["delete"])];
  if (failedTasks && !actions.includes("restart")) actions.splice(actions.length - 1, 0, "restart");
  return actions.map((action) =>
    `<button class="${action === "delete" ? "danger" : ""}" data-action="${action}" data-name="${esc(name)}" data-testid="${action}">${LABELS[action]}</button>`).join("");
}

// A connector is only as healthy as its tasks: Kafka reports it RUNNING while a task FAILED.
function health(status) {
  const tasks = status.tasks || [];
  const failed = tasks.filter((t) => t.state === "FAILED").length;
  const state = (status.connector || {}).state;
  const flag = failed
    ? ` <span class="flag" data-testid="failed-tasks">${failed} of ${tasks.length} task${tasks.length === 1 ? "" : "s"} FAILED</span>`
    : "";
  return { state, failed, html: badge(state, failed ? "degraded" : "") + flag };
}

// The first line of a trace: the exception and its message (a Java trace and kconnect's
// start with it), which is what an operator acts on.
const cause = (trace) => String(trace || "").split("\n").find((line) => line.trim()) || "";
const failure = (trace) => `<div class="cause" data-testid="cause">${esc(cause(trace))}</div><pre data-testid="trace">${esc(trace)}</pre>`;

document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const { action, name, task } = button.dataset;
  if (action === "delete" && !confirm(`Delete connector ${name}?`)) return;
  button.disabled = true;
  try {
    await ACTIONS[action](name, task);
    banner("");
    if (action === "delete") location.hash = "#/connectors";
  } catch (error) {
    banner(error.message, true);
  } finally {
    button.disabled = false;
    render();
  }
});

// ---- views -----------------------------------------------------------------------------------
async function connectorsView() {
  const found = await api("connectors?expand=status&expand=info");
  const names = Object.keys(found).sort();
  if (!names.length) return `<h2>Connectors</h2><p class="muted" data-testid="empty">No connectors yet: create one with <code>POST /connectors</code> or <code>kconnect apply -f config.json</code>.</p>`;
  const rows = names.map((name) => {
    const status = found[name].status || {};
    const info = found[name].info || {};
    const f = connectorFigures(name);
    const h = health(status);
    const tasks = (status.tasks || []).map((t) => `<span title="task ${esc(t.id)} on ${esc(t.worker_id)}">${esc(t.id)}:${badge(t.state)}</span>`).join(" ");
    return `<tr data-connector="${esc(name)}" data-testid="connector-row" class="${h.failed || h.state === "FAILED" ? "unhealthy" : ""}">
      <td><a href="#/connectors/${enc(name)}">${esc(name)}</a></td>
      <td>${esc(status.type || info.type)}</td>
      <td data-testid="connector-state">${h.html}</td>
      <td>${tasks || "–"}</td>
      <td class="num" data-testid="rate">${fmt(f.rate)}</td><td class="wide">${sparkline(f.spark)}</td>
      <td class="num" data-testid="total">${fmt(f.total, 0)}</td>
      <td class="num">${fmt(f.lag, 0)}</td><td class="num">${fmt(f.errors, 0)}</td><td class="num">${fmt(f.dlq, 0)}</td>
      <td>${buttons(name, h.state, h.failed)}</td></tr>`;
  });
  return `<h2>Connectors</h2><div class="scroll"><table data-testid="connectors"><thead><tr><th>Name</th><th>Type</th><th>State</th>
    <th>Tasks</th><th>Records/s (30 s)</th><th class="wide">Over time</th><th>Records</th><th>Lag</th><th>Errors</th><th>DLQ</th><th></th></tr></thead>
    <tbody>${rows.join("")}</tbody></table></div>`;
}

// Committed offsets (KIP-875), as GET /connectors/{name}/offsets gives them.
function offsetsTable(found) {
  const offsets = (found && found.offsets) || [];
  if (!offsets.length) return `<p class="muted" data-testid="offsets-empty">No committed offsets yet.</p>`;
  const rows = offsets.map((o) => `<tr data-testid="offset-row"><td><code>${esc(JSON.stringify(o.partition))}</code></td><td><code>${esc(JSON.stringify(o.offset))}</code></td></tr>`);
  return `<div class="scroll"><table data-testid="offsets"><thead><tr><th>Partition</th><th>Offset</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

async function connectorView(name) {
  const [info, status, offsets] = await Promise.all([
    api(`connectors/${enc(name)}`),
    api(`connectors/${enc(name)}/status`),
    api(`connectors/${enc(name)}/offsets`).catch(() => null),
  ]);
  let passwords = new Set();
  try {
    const defs = await api(`connector-plugins/${enc(info.config["connector.class"])}/config`);
    passwords = new Set(defs.filter((d) => d.type === "PASSWORD").map((d) => d.name));
  } catch (_) { /* definitions are a nicety */ }
  const f = connectorFigures(name);
  const c = status.connector || {};
  const h = health(status);
  const config = Object.keys(info.config || {}).sort().map((k) => {
    const v = info.config[k];
    const hidden = v && (passwords.has(k) || SECRET.test(k)) ? "[hidden]" : v;
    return `<tr><td><code>${esc(k)}</code></td><td><code>${esc(hidden)}</code></td></tr>`;
  }).join("");
  const tasks = (status.tasks || []).map((t) => {
    const tf = connectorFigures(name, t.id);
    return `<tr data-testid="task-row" data-task="${esc(t.id)}"><td>${esc(t.id)}</td><td data-testid="task-state">${badge(t.state)}</td>
      <td>${esc(t.worker_id)}</td><td class="num">${fmt(tf.rate)}</td><td class="num">${fmt(tf.errors, 0)}</td>
      <td><button data-action="restart-task" data-name="${esc(name)}" data-task="${esc(t.id)}" data-testid="restart-task">Restart task</button></td></tr>
      ${t.trace ? `<tr><td></td><td colspan="5">${failure(t.trace)}</td></tr>` : ""}`;
  }).join("");
  return `<h2><a href="#/connectors">Connectors</a> / <span data-testid="connector-name">${esc(name)}</span> ${h.html}</h2>
    <div>${buttons(name, h.state, h.failed)}</div>
    <div class="grid">
      <div class="card"><div class="label">Type</div><div class="value">${esc(info.type)}</div></div>
      <div class="card"><div class="label">Worker</div><div class="value">${esc(c.worker_id)}</div></div>
      <div class="card"><div class="label">Tasks failed</div><div class="value" data-testid="failed-count">${h.failed} of ${(status.tasks || []).length}</div></div>
      <div class="card"><div class="label">Records/s (30 s window)</div><div class="value">${fmt(f.rate)}</div></div>
      <div class="card"><div class="label">Records (total)</div><div class="value" data-testid="total">${fmt(f.total, 0)}</div></div>
      <div class="card"><div class="label">Lag (max)</div><div class="value">${fmt(f.lag, 0)}</div></div>
      <div class="card"><div class="label">Errors / DLQ</div><div class="value">${fmt(f.errors, 0)} / ${fmt(f.dlq, 0)}</div></div>
    </div>
    ${c.trace ? `<h3>Connector failure</h3>${failure(c.trace)}` : ""}
    <h3>Throughput over time</h3>${chart(f.spark)}
    <h3>Tasks</h3><div class="scroll"><table data-testid="tasks"><thead><tr><th>Task</th><th>State</th><th>Worker</th><th>Records/s</th><th>Errors</th><th></th></tr></thead><tbody>${tasks}</tbody></table></div>
    <h3>Offsets</h3>${offsetsTable(offsets)}
    <h3>Config</h3><div class="scroll"><table data-testid="config"><tbody>${config}</tbody></table></div>`;
}

async function pluginsView() {
  const plugins = await api("connector-plugins?connectorsOnly=false");
  const rows = plugins.map((p) => `<tr data-testid="plugin-row"><td><a href="#/plugins/${enc(p.class)}">${esc(p.class)}</a></td><td>${esc(p.type)}</td><td>${esc(p.version)}</td></tr>`);
  return `<h2>Plugins</h2><div class="scroll"><table data-testid="plugins"><thead><tr><th>Class</th><th>Type</th><th>Version</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

async function pluginView(name) {
  const defs = await api(`connector-plugins/${enc(name)}/config`);
  const rows = defs.map((d) => `<tr data-testid="definition-row"><td><code>${esc(d.name)}</code></td><td>${esc(d.type)}</td>
    <td><code>${esc(d.default_value)}</code></td><td>${d.required ? "yes" : ""}</td><td>${esc(d.importance)}</td><td>${esc(d.documentation)}</td></tr>`);
  return `<h2><a href="#/plugins">Plugins</a> / ${esc(name)}</h2><div class="scroll"><table data-testid="definition"><thead><tr><th>Key</th><th>Type</th><th>Default</th>
    <th>Required</th><th>Importance</th><th>Documentation</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

// ---- routing and refresh ---------------------------------------------------------------------
let rendering = false;
async function render() {
  if (rendering) return;
  rendering = true;
  const [, section = "connectors", ...rest] = (location.hash || "#/connectors").slice(1).split("/");
  const name = rest.length ? decodeURIComponent(rest.join("/")) : null;
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.nav === section);
  try {
    await pollMetrics();
    const html = section === "plugins"
      ? await (name ? pluginView(name) : pluginsView())
      : await (name ? connectorView(name) : connectorsView());
    // Keep the page still while nothing changed (selection, scroll, open traces).
    if ($("#view").dataset.html !== html) { $("#view").innerHTML = html; $("#view").dataset.html = html; }
    $("#updated").textContent = `Updated ${new Date().toLocaleTimeString()}.`;
    banner("");
  } catch (error) {
    banner(error.message);
  } finally {
    rendering = false;
  }
}

async function start() {
  try {
    const root = await api("");
    $("#worker").textContent = `kconnect ${root.kconnect_version || root.version} · Kafka Connect API ${root.version} · cluster ${root.kafka_cluster_id || "?"} · ${API}`;
  } catch (error) {
    banner(error.message);
  }
  window.addEventListener("hashchange", render);
  await render();
  setInterval(render, REFRESH_MS);
}

start();
