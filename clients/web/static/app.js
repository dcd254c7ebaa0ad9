// The live web view: the server pushes the cell's state as Server-Sent Events (/events);
// this draws it with DOM nodes (text only: names come from users) and the plot as SVG.
"use strict";

const HISTORY_SECONDS = 6 * 3600;
const SVG = "http://www.w3.org/2000/svg";
let samples = [];             // [time, slots used, jobs pending]
const asked = new Map();      // job id -> reasons read on a click

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function when(seconds) {
  if (!seconds) return "";
  const d = new Date(seconds * 1000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${pad(d.getMonth() + 1)}/${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function megabytes(text) {
  if (!text) return "";
  const m = /^([0-9.]+)([KMGT]?)$/i.exec(text);
  if (!m) return text;
  const scale = { "": 1 / 1048576, K: 1 / 1024, M: 1, G: 1024, T: 1048576 }[m[2].toUpperCase()];
  const mb = parseFloat(m[1]) * scale;
  return mb >= 1024 ? (mb / 1024).toFixed(1) + "G" : mb.toFixed(1) + "M";
}

function fill(id, rows, count, draw, columns) {
  const body = document.querySelector(`#${id} tbody`);
  body.replaceChildren();
  for (const row of rows) body.appendChild(draw(row));
  if (count > rows.length) {
    const tr = document.createElement("tr");
    tr.className = "more";
    const td = cell(tr, `… and ${count - rows.length} more`);
    td.colSpan = columns;
    body.appendChild(tr);
  }
  document.getElementById(`${id}-count`).textContent = `(${count})`;
}

function runningRow(r) {
  const tr = document.createElement("tr");
  tr.dataset.job = r.job_id;
  for (const v of [r.job_id, r.task_id, r.name, r.owner]) cell(tr, v);
  cell(tr, r.state, "state-" + r.state.charAt(0));
  for (const v of [r.queue, r.slots, when(r.start_time)]) cell(tr, v);
  return tr;
}

function pendingRow(r) {
  const tr = document.createElement("tr");
  tr.dataset.job = r.job_id;
  for (const v of [r.job_id, r.tasks, r.name, r.owner]) cell(tr, v);
  cell(tr, r.state, "state-" + r.state.charAt(0));
  cell(tr, r.slots);
  cell(tr, when(r.submit_time));
  const reasons = asked.get(r.job_id) || r.reasons;
  cell(tr, reasons ? (reasons.length ? reasons.join("\n") : "(no reason given yet)") : "", "why");
  tr.addEventListener("click", () => why(r.job_id, tr));
  return tr;
}

function queueRow(q) {
  const tr = document.createElement("tr");
  for (const v of [q.name, q.qtype, `${q.used}/${q.slots ?? "-"}`, q.load_avg ?? "-"]) cell(tr, v);
  cell(tr, q.states, q.states ? "state-" + q.states.charAt(0) : "");
  return tr;
}

function hostRow(h) {
  const tr = document.createElement("tr");
  for (const v of [h.name, h.num_proc ?? "-", h.load_avg ?? "-", megabytes(h.mem_used),
                   megabytes(h.mem_total)]) cell(tr, v);
  cell(tr, h.alive ? "yes" : "no", h.alive ? "" : "state-u");
  return tr;
}

function quotaRow(q) {
  const tr = document.createElement("tr");
  for (const v of [q.rule, q.limit, q.filter]) cell(tr, v);
  return tr;
}

async function why(jobId, tr) {
  const target = tr.querySelector("td.why");
  target.textContent = "reading…";
  try {
    const answer = await fetch(`/api/why?job=${jobId}`);
    if (!answer.ok) { target.textContent = (await answer.text()).trim(); return; }
    const data = await answer.json();
    asked.set(jobId, data.reasons);
    target.textContent = data.reasons.length ? data.reasons.join("\n") : "(no reason given yet)";
  } catch (err) {
    target.textContent = "could not ask: " + err;
  }
}

function render(state) {
  fill("running", state.running, state.counts.running, runningRow, 8);
  fill("pending", state.pending, state.counts.pending, pendingRow, 8);
  fill("queues", state.queues, state.counts.queues, queueRow, 5);
  fill("hosts", state.hosts, state.counts.hosts, hostRow, 6);
  fill("quotas", state.quotas, state.counts.quotas, quotaRow, 3);
  document.getElementById("summary").textContent =
    `${state.counts.slots_used} slots used, ${state.counts.jobs_pending} jobs pending`;
  document.body.dataset.version = state.version;
  if (state.sample && (!samples.length || state.sample[0] > samples[samples.length - 1][0])) {
    samples.push(state.sample);
    plot();
  }
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function plot() {
  const box = document.getElementById("plot");
  box.replaceChildren();
  const [left, right, top, bottom] = [48, 740, 12, 170];
  const now = samples.length ? samples[samples.length - 1][0] : Date.now() / 1000;
  samples = samples.filter((s) => s[0] >= now - HISTORY_SECONDS);
  const start = samples.length ? Math.min(samples[0][0], now - 600) : now - 600;
  const top_value = Math.max(1, ...samples.map((s) => Math.max(s[1], s[2])));
  const x = (t) => left + (right - left) * (t - start) / Math.max(1, now - start);
  const y = (v) => bottom - (bottom - top) * v / top_value;
  box.appendChild(svg("line", { x1: left, y1: bottom, x2: right, y2: bottom, class: "axis" }));
  box.appendChild(svg("line", { x1: left, y1: top, x2: left, y2: bottom, class: "axis" }));
  box.appendChild(svg("text", { x: left - 6, y: top + 8, "text-anchor": "end" }, top_value));
  box.appendChild(svg("text", { x: left - 6, y: bottom, "text-anchor": "end" }, "0"));
  box.appendChild(svg("text", { x: left, y: bottom + 18 }, when(start)));
  box.appendChild(svg("text", { x: right, y: bottom + 18, "text-anchor": "end" }, when(now)));
  for (const [index, cls] of [[1, "used"], [2, "pending"]]) {
    const points = samples.map((s) => `${x(s[0]).toFixed(1)},${y(s[index]).toFixed(1)}`);
    if (points.length === 1) points.push(`${right},${points[0].split(",")[1]}`);
    box.appendChild(svg("polyline", { points: points.join(" "), class: cls }));
    const last = samples[samples.length - 1];
    if (last) box.appendChild(svg("circle", { cx: x(last[0]), cy: y(last[index]), r: 3, class: cls + " dot" }));
  }
  box.dataset.samples = samples.length;
}

function connect() {
  const link = document.getElementById("link");
  const source = new EventSource("/events");
  source.addEventListener("open", () => { link.textContent = "live"; link.className = "link up"; });
  source.addEventListener("error", () => { link.textContent = "reconnecting"; link.className = "link down"; });
  source.addEventListener("history", (e) => { samples = JSON.parse(e.data); plot(); });
  source.addEventListener("state", (e) => render(JSON.parse(e.data)));
}

connect();
