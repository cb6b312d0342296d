/// The operator's page: its script, `/app.js`. It reads `/api/status` once, then follows
/// `/api/events` (server-sent events): each event it can show by itself (the publishing
/// flag, an output's state) is shown at once, and any event has status read again, at
/// most once a second; the thumbnail is read once a second (the first read 1.05 s after an
/// event that changes the picture), the log with status while
/// events come, at most every 3 s. Commands go to `/api/command` with the token kept in sessionStorage.
enum WebPageScript {
    static let text = #"""
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const state = { status: null, history: {}, lastFetch: 0, pending: null, logDue: true, logAt: 0, fetched: 0, thumbN: 0 };
  const HISTORY = 300;

  function text(el, value) { el.textContent = value == null ? "" : String(value); }
  function cell(row, value, cls) { const td = document.createElement("td"); text(td, value); if (cls) td.className = cls; row.appendChild(td); return td; }
  function ms(v) {
    if (v == null) return "–";
    const s = Math.max(0, Math.floor(v / 1000)), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(r).padStart(2, "0");
  }
  function bytes(v) {
    if (v == null) return "–";
    const u = ["B", "kB", "MB", "GB", "TB"]; let i = 0; let n = v;
    while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
    return (i ? n.toFixed(1) : n) + " " + u[i];
  }
  function token() { return sessionStorage.getItem("mediapub.token") || ""; }
  // Off loopback a reader gives the token too; where no header can be set (EventSource, img) as ?token= (docs/http.md).
  const loopback = /^(127\.|\[::1\]$|localhost$)/.test(location.hostname);
  function withToken(url) {
    if (loopback || !token()) return url;
    return url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token());
  }

  // ---- reading ----
  async function getJSON(url) {
    const r = await fetch(withToken(url), { headers: token() ? { "Authorization": "Bearer " + token() } : {}, cache: "no-store" });
    if (!r.ok) throw new Error(url + ": " + r.status);
    return r.json();
  }

  function refreshSoon() {
    // At most one read of status a second, whatever the events' rate.
    if (state.pending) return;
    const wait = Math.max(0, 1000 - (Date.now() - state.lastFetch));
    state.pending = setTimeout(refresh, wait);
  }

  async function refresh() {
    state.lastFetch = Date.now();
    try {
      const reply = await getJSON("/api/status");
      if (reply && reply.status) showStatus(reply.status);
      // The log follows the events too, read at most every 3 s (200 lines each time).
      if (state.logDue && Date.now() - state.logAt >= 3000) {
        state.logDue = false; state.logAt = Date.now();
        showLog(await getJSON("/api/log?lines=200"));
      }
    } catch (e) {
      text($("connection"), "cannot read status: " + e.message);
    } finally {
      state.pending = null;
    }
  }

  async function loadHistory() {
    try {
      const h = await getJSON("/api/outputs/history");
      for (const o of h.outputs || []) state.history[o.id] = (o.kbps || []).slice(-HISTORY);
    } catch (e) { /* a page without history starts its sparklines empty */ }
  }

  // ---- showing ----
  function showFlag(publishing) {
    const el = $("publishing");
    el.dataset.publishing = publishing ? "on" : "standby";
    el.className = "flag " + (publishing ? "on" : "standby");
    text(el, publishing ? "ON AIR" : "STANDBY");
  }

  function showStatus(s) {
    state.status = s;
    state.fetched = Date.now();
    text($("name"), "mediapub · " + s.name);
    document.title = s.name + " · mediapub";
    showFlag(s.publishing);
    text($("live"), s.live ? s.live.state + " (" + s.live.mode + ")" : "none");
    const sch = s.schedule;
    text($("block"), sch ? (sch.block || "filler") : "no programme");
    text($("item"), sch ? (sch.item || "–") : (s.players[0] ? s.players[0].source : "–"));
    text($("position"), sch ? ms(sch.offset_ms) : (s.players[0] ? ms(s.players[0].position_ms) : "–"));
    text($("left"), sch && sch.next && sch.next[0] ? ms(sch.next[0].in_ms) : "–");
    const next = $("next"); next.replaceChildren();
    for (const b of (sch && sch.next ? sch.next.slice(0, 2) : [])) {
      const li = document.createElement("li"); text(li, b.block + " at " + b.at); next.appendChild(li);
    }
    const alerts = $("alerts"); alerts.replaceChildren();
    for (const a of (s.alerts && s.alerts.active) || []) {
      const li = document.createElement("li"); li.className = "alert";
      text(li, a.kind + " on " + a.player + " since " + ms(a.began_ms) + " (" + a.action + ")"); alerts.appendChild(li);
    }
    if (!alerts.children.length) { const li = document.createElement("li"); li.className = "muted"; text(li, "none"); alerts.appendChild(li); }
    showPlayers(s.players || []);
    showOutputs(s.outputs || []);
    showLoudness(s.loudness);
    showOverlays(s.overlays || []);
  }

  function controlButton(label, command) {
    const b = document.createElement("button");
    b.className = "ctl" + (token() ? "" : " locked");
    b.dataset.command = JSON.stringify(command);
    text(b, label);
    return b;
  }

  function showPlayers(players) {
    const body = $("players"); body.replaceChildren();
    for (const p of players) {
      const row = document.createElement("tr"); row.dataset.player = p.id;
      cell(row, p.id);
      cell(row, p.state, "state state-" + p.state);
      const tags = p.now_playing || {};
      cell(row, [tags.artist, tags.title].filter(Boolean).join(" – ") || p.source);
      cell(row, ms(p.position_ms) + " / " + ms(p.duration_ms));
      cell(row, p.publish_volume + "% (local " + p.play_volume + "%)");
      cell(row, p.aux ? "aux" : "");
      const c = cell(row, "");
      c.appendChild(controlButton("prev", ["prev", p.id]));
      c.appendChild(controlButton("next", ["next", p.id]));
      body.appendChild(row);
    }
  }

  function outputRow(id) {
    let row = document.querySelector('#outputs tr[data-output="' + CSS.escape(id) + '"]');
    if (!row) {
      row = document.createElement("tr"); row.dataset.output = id;
      for (let i = 0; i < 9; i++) row.appendChild(document.createElement("td"));
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("class", "spark"); svg.setAttribute("viewBox", "0 0 " + HISTORY + " 28"); svg.setAttribute("preserveAspectRatio", "none");
      svg.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "polyline"));
      const rate = document.createElement("span");
      row.children[2].append(svg, document.createTextNode(" "), rate);
      row.children[8].appendChild(controlButton("reconnect", ["reconnect", id]));
      $("outputs").appendChild(row);
    }
    return row;
  }

  function showOutputState(row, stateName) {
    const td = row.children[1];
    td.className = "state state-" + stateName;
    row.dataset.state = stateName;
    text(td, stateName);
  }

  function showOutputs(outputs) {
    const seen = new Set();
    for (const o of outputs) {
      seen.add(o.id);
      const row = outputRow(o.id);
      const c = row.children;
      text(c[0], o.id + "  " + o.url); c[0].title = o.url;
      showOutputState(row, o.state);
      const h = state.history[o.id] || (state.history[o.id] = []);
      h.push(o.bitrate_kbps || 0); if (h.length > HISTORY) h.splice(0, h.length - HISTORY);
      drawSpark(c[2].querySelector("polyline"), h);
      text(c[2].querySelector("span"), (o.bitrate_kbps || 0) + " kbit/s");
      text(c[3], bytes(o.bytes_sent));
      text(c[4], o.bytes_acked == null ? "–" : bytes(o.bytes_acked));
      text(c[5], o.reconnects);
      text(c[6], o.srt ? "rtt " + o.srt.rtt_ms + " ms, lost " + o.srt.packets_lost + ", dropped " + o.srt.dropped : (o.callers != null ? o.callers + " callers" : "–"));
      text(c[7], o.error || "");
    }
    for (const row of Array.from($("outputs").children)) if (!seen.has(row.dataset.output)) row.remove();
  }

  function drawSpark(line, values) {
    const max = Math.max(1, ...values);
    const start = HISTORY - values.length;
    line.setAttribute("points", values.map((v, i) => (start + i) + "," + (27 - (v / max) * 26).toFixed(1)).join(" "));
  }

  function showLoudness(l) {
    const f = (v) => v == null ? "–" : v.toFixed(1) + " LUFS";
    text($("lufs-m"), l ? f(l.momentary_lufs) : "not measured (audio.loudness)");
    text($("lufs-s"), l ? f(l.short_term_lufs) : "–");
    text($("lufs-i"), l ? f(l.integrated_lufs) : "–");
    text($("lufs-t"), l ? f(l.target_lufs) : "–");
    // Each reading against the target: more than 1 LU off is shown as such.
    for (const id of ["lufs-m", "lufs-s", "lufs-i"]) {
      const v = l && { "lufs-m": l.momentary_lufs, "lufs-s": l.short_term_lufs, "lufs-i": l.integrated_lufs }[id];
      $(id).className = l && v != null && l.target_lufs != null && Math.abs(v - l.target_lufs) > 1 ? "off-target" : "";
    }
    text($("limiter"), l ? "−" + Math.abs(l.limiter_reduction_db).toFixed(1) + " dB" : "–");
  }

  function showOverlays(overlays) {
    const body = $("overlays"); body.replaceChildren();
    for (const o of overlays) {
      const row = document.createElement("tr");
      cell(row, o.id);
      cell(row, o.visible ? "shown" : "hidden");
      cell(row, o.text || o.image || "");
      const c = cell(row, "");
      c.appendChild(controlButton(o.visible ? "hide" : "show", ["overlay", o.visible ? "hide" : "show", o.id]));
      body.appendChild(row);
    }
    if (!overlays.length) { const row = document.createElement("tr"); cell(row, "none", "muted"); body.appendChild(row); }
  }

  function showLog(reply) {
    const el = $("log");
    const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
    text(el, (reply.lines || []).join("\n"));
    if (atEnd) el.scrollTop = el.scrollHeight;
  }

  // ---- the event stream ----
  function follow() {
    const events = new EventSource(withToken("/api/events"));
    events.onopen = () => { text($("connection"), "following"); $("connection").className = "muted"; };
    events.onerror = () => { text($("connection"), "reconnecting to the run…"); $("connection").className = "alert"; };
    events.onmessage = (m) => {
      let e; try { e = JSON.parse(m.data); } catch (_) { return; }
      if (PICTURE_EVENTS.has(e.event)) pictureChanged();
      if (e.event === "publishing") showFlag(e.publishing);
      if (e.event === "output.state") {
        const row = outputRow(e.output); showOutputState(row, e.state); text(row.children[7], e.error || "");
      }
      state.logDue = true;
      refreshSoon();
    };
    events.addEventListener("dropped", () => { state.logDue = true; refreshSoon(); });
  }

  // ---- the thumbnail: swapped in once loaded ----
  // Read once a second, never more often. The server's JPEG may be up to 1 s old, so after an
  // event that changes the picture the next read waits until 1.05 s after it: that one is
  // made after the change (at most ~1 s late, where a plain once-a-second read could be 2 s).
  const PICTURE_EVENTS = new Set(["player.track", "publishing", "live.state", "schedule.block", "overlay", "alert", "cleared"]);
  let thumbTimer = null, lastAsked = 0, pendingAfter = 0;
  function scheduleThumbnail() {
    clearTimeout(thumbTimer);
    const at = Math.max(lastAsked + 1000, pendingAfter);
    thumbTimer = setTimeout(thumbnail, Math.max(0, at - Date.now()));
  }
  function thumbnail() {
    thumbTimer = null;
    lastAsked = Date.now();
    if (lastAsked >= pendingAfter) pendingAfter = 0;
    const next = new Image();
    next.onload = () => { $("thumb").src = next.src; scheduleThumbnail(); };
    next.onerror = scheduleThumbnail;
    next.src = withToken("/api/thumbnail.jpg?width=320&n=" + (++state.thumbN));
  }
  function pictureChanged() {
    pendingAfter = Date.now() + 1050;
    if (thumbTimer !== null) scheduleThumbnail();  // else a read is on its way: its end schedules the next
  }

  // ---- commands ----
  async function command(words, button) {
    const reply = $("reply");
    const label = words.join(" ");
    let answer, ok = false;
    try {
      const headers = { "Content-Type": "application/json" };
      if (token()) headers["Authorization"] = "Bearer " + token();
      const r = await fetch("/api/command", { method: "POST", headers, body: JSON.stringify({ command: words }), cache: "no-store" });
      let body = {}; try { body = await r.json(); } catch (_) { /* a reply without a body */ }
      ok = r.ok && body.ok === true;
      if (ok) answer = label + ": done";
      else if (r.status === 401 || r.status === 403 || r.status === 429) answer = label + ": refused (" + r.status + "): " + (body.error || (token() ? "wrong token" : "no token given"));
      else answer = label + ": " + (body.error || ("failed (" + r.status + ")"));
    } catch (e) {
      answer = label + ": " + e.message;
    }
    reply.className = "reply " + (ok ? "ok" : "refused");
    reply.dataset.command = label;
    text(reply, answer);
    if (button) button.title = answer;
    refreshSoon();
  }

  function lockControls() {
    const locked = !token();
    for (const b of document.querySelectorAll("button.ctl")) b.classList.toggle("locked", locked);
  }

  document.addEventListener("click", (ev) => {
    const b = ev.target.closest && ev.target.closest("button.ctl");
    if (!b) return;
    command(JSON.parse(b.dataset.command), b);
  });
  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = $("token").value.trim();
    if (t) sessionStorage.setItem("mediapub.token", t);
    $("token").value = "";
    lockControls();
  });
  $("token-forget").addEventListener("click", () => { sessionStorage.removeItem("mediapub.token"); lockControls(); });

  lockControls();
  loadHistory().then(refresh);
  follow();
  thumbnail();
  // Positions move between events: status is read again after 5 s without any.
  setInterval(() => { if (Date.now() - state.lastFetch > 5000) refreshSoon(); }, 1000);
})();

"""#
}
