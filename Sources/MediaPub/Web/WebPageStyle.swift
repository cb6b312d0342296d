/// The operator's page: its style sheet, `/app.css`.
enum WebPageStyle {
    static let text = #"""
:root { --bg: #111417; --card: #1b2026; --fg: #e6e8ea; --muted: #8a949e; --green: #2fbf5b; --amber: #e8a317; --red: #e5484d; --line: #2c333b; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.4 system-ui, sans-serif; }
header { display: flex; align-items: center; gap: 1em; padding: .6em 1em; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.2em; margin: 0; }
#token-form { margin-left: auto; display: flex; gap: .4em; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1em; padding: 1em; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .8em 1em; min-width: 0; overflow-x: auto; }
.card.wide, #on-air { grid-column: 1 / -1; }
h2 { font-size: 1em; margin: 0 0 .6em; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
.onair-grid { display: flex; gap: 1.2em; flex-wrap: wrap; }
#thumb { background: #000; width: 320px; height: auto; min-height: 120px; border: 1px solid var(--line); }
.flag { font-size: 3em; font-weight: 700; letter-spacing: .05em; }
.flag.on { color: var(--green); }
.flag.standby { color: var(--amber); }
table { border-collapse: collapse; }
.facts th { text-align: left; color: var(--muted); font-weight: normal; padding-right: 1em; vertical-align: top; }
.list { width: 100%; }
.list td:last-child { white-space: nowrap; }
.list th, .list td { text-align: left; padding: .25em .5em; border-bottom: 1px solid var(--line); vertical-align: middle; }
.list th { color: var(--muted); font-weight: normal; }
ol, ul { margin: 0; padding-left: 1.2em; }
.state { font-weight: 700; }
.state-publishing { color: var(--green); }
.state-connecting, .state-reconnecting { color: var(--amber); }
.state-failed, .state-error { color: var(--red); }
.state-stopped { color: var(--muted); }
.spark { width: 160px; height: 28px; }
.spark polyline { fill: none; stroke: var(--green); stroke-width: 1.5; }
.muted { color: var(--muted); }
.alert { color: var(--red); font-weight: 700; }
.off-target { color: var(--amber); }
.controls { display: flex; gap: .5em; flex-wrap: wrap; margin-top: .8em; }
button { background: #2a323b; color: var(--fg); border: 1px solid #3b4550; border-radius: 4px; padding: .3em .7em; cursor: pointer; font: inherit; }
button:hover { background: #34404b; }
button.locked { opacity: .45; }
input { background: #0c0e10; color: var(--fg); border: 1px solid #3b4550; border-radius: 4px; padding: .3em .5em; font: inherit; }
.reply { min-height: 1.4em; margin: .6em 0 0; }
.reply.ok { color: var(--green); }
.reply.refused { color: var(--red); }
#log { height: 22em; overflow: auto; margin: 0; font: 12px/1.35 ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
"""#
}
