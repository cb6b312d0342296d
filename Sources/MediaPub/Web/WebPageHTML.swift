/// The operator's page (docs/http.md, The page): its HTML. Its script and style are
/// `/app.js` and `/app.css` (the page's Content-Security-Policy allows nothing inline).
enum WebPageHTML {
    static let text = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mediapub</title>
<link rel="stylesheet" href="/app.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script src="/app.js" defer></script>
</head>
<body>
<header>
  <h1 id="name">mediapub</h1>
  <span id="connection" class="muted">connecting…</span>
  <form id="token-form" autocomplete="off">
    <input id="token" type="password" autocomplete="off" placeholder="token for the controls" aria-label="token">
    <button id="token-set" type="submit">Use token</button>
    <button id="token-forget" type="button">Forget</button>
  </form>
</header>
<main>
<section id="on-air" class="card">
  <h2>On air now</h2>
  <div class="onair-grid">
    <img id="thumb" alt="the output picture" width="320" height="180">
    <div>
      <div id="publishing" class="flag" data-publishing="">…</div>
      <table class="facts">
        <tr><th>live feed</th><td id="live">none</td></tr>
        <tr><th>block</th><td id="block">none</td></tr>
        <tr><th>item</th><td id="item">none</td></tr>
        <tr><th>position</th><td id="position">–</td></tr>
        <tr><th>time left</th><td id="left">–</td></tr>
        <tr><th>next</th><td><ol id="next"></ol></td></tr>
        <tr><th>alerts</th><td><ul id="alerts"></ul></td></tr>
      </table>
    </div>
  </div>
  <div class="controls">
    <button class="ctl" data-command='["publish","on"]'>publish on</button>
    <button class="ctl" id="publish-off" data-command='["publish","off"]'>publish off</button>
    <button class="ctl" data-command='["skip"]'>skip block</button>
    <button class="ctl" data-command='["live","on"]'>live on</button>
    <button class="ctl" data-command='["live","off"]'>live off</button>
    <button class="ctl" data-command='["live","auto"]'>live auto</button>
  </div>
  <p id="reply" class="reply" aria-live="polite"></p>
</section>
<section class="card wide">
  <h2>Players</h2>
  <table class="list"><thead><tr><th>player</th><th>state</th><th>item</th><th>position</th><th>volume</th><th>aux</th><th></th></tr></thead>
  <tbody id="players"></tbody></table>
</section>
<section class="card wide">
  <h2>Outputs</h2>
  <table class="list"><thead><tr><th>output</th><th>state</th><th>bitrate (5 min)</th><th>sent</th><th>acked</th><th>reconnects</th><th>SRT</th><th>last error</th><th></th></tr></thead>
  <tbody id="outputs"></tbody></table>
</section>
<section class="card">
  <h2>Sound</h2>
  <table class="facts" id="loudness">
    <tr><th>momentary</th><td id="lufs-m">–</td></tr>
    <tr><th>short-term</th><td id="lufs-s">–</td></tr>
    <tr><th>integrated</th><td id="lufs-i">–</td></tr>
    <tr><th>target</th><td id="lufs-t">–</td></tr>
    <tr><th>limiter</th><td id="limiter">–</td></tr>
  </table>
</section>
<section class="card">
  <h2>Overlays</h2>
  <table class="list"><tbody id="overlays"></tbody></table>
</section>
<section class="card wide">
  <h2>Log</h2>
  <pre id="log"></pre>
</section>
</main>
</body>
</html>

"""#
}
