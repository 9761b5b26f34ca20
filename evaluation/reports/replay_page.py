"""A replay's page: one self-contained HTML file with the board, the players' table,
the event list, the states as JSON and the script that steps through them."""

from __future__ import annotations

import html
import json
from typing import Any, Sequence

from evaluation.reports import event_text
from evaluation.reports.replay_board import (SEAT_COLOURS, _board_svg, _e, changed_squares,
                                             truth_by_square)
from evaluation.reports.replay_states import fold


def _describe(e: dict[str, Any], names: list[str]) -> str:
    return event_text.describe(e, names)


_JS = r"""
(function () {
  var D = JSON.parse(document.getElementById('data').textContent);
  var last = D.cash.length - 1, step = 0, timer = null;
  var items = document.querySelectorAll('#events li');
  function boardAt(s) {
    var b = D.board[0];
    for (var i = 0; i < D.board.length && D.board[i][0] <= s; i++) b = D.board[i];
    return b;
  }
  function place(seat, square, k) {
    var g = document.getElementById('sq' + square).querySelector('rect');
    var t = document.getElementById('tok' + seat);
    t.setAttribute('cx', +g.getAttribute('x') + 10 + 14 * (k % 4));
    t.setAttribute('cy', +g.getAttribute('y') + 64);
  }
  function show(s) {
    step = Math.max(0, Math.min(last, s));
    var b = boardAt(step);
    for (var q = 0; q < b[1].length; q++) {
      var g = document.getElementById('sq' + q);
      var own = g.querySelector('.own'), lvl = g.querySelector('.lvl');
      own.setAttribute('fill', b[1][q] >= 0 ? D.colours[b[1][q]] : 'none');
      own.setAttribute('opacity', b[3][q] ? 0.35 : 1);
      lvl.textContent = b[2][q] >= D.hotel ? 'hotel' : (b[2][q] > 0 ? b[2][q] + 'h' : '');
    }
    var rows = document.querySelectorAll('#players tbody tr');
    for (var p = 0; p < D.players; p++) {
      var c = rows[p].cells, out = D.out[step][p];
      c[1].textContent = D.cash[step][p];
      c[2].textContent = D.names[D.position[step][p]];
      c[3].textContent = out ? 'bankrupt' : (D.jailed[step][p] ? 'in jail' : '');
      c[4].textContent = b[1].filter(function (o) { return o === p; }).length;
      var t = document.getElementById('tok' + p);
      t.style.display = out ? 'none' : '';
      if (!out) place(p, D.position[step][p], p);
    }
    for (var e = 0; e < items.length; e++) items[e].classList.toggle('now', e === step - 1);
    if (step > 0) items[step - 1].scrollIntoView({block: 'nearest'});
    document.getElementById('step').textContent = step;
    document.getElementById('turn').textContent = D.turn[step];
    document.getElementById('slider').value = step;
    history.replaceState(null, '', '#step=' + step + (before ? '&before=1' : ''));
  }
  function play() {
    if (timer) { clearInterval(timer); timer = null; return; }
    timer = setInterval(function () { if (step >= last) play(); else show(step + 1); }, 120);
  }
  document.getElementById('slider').max = last;
  document.getElementById('slider').oninput = function () { show(+this.value); };
  document.getElementById('first').onclick = function () { show(0); };
  document.getElementById('back').onclick = function () { show(step - 1); };
  document.getElementById('fwd').onclick = function () { show(step + 1); };
  document.getElementById('end').onclick = function () { show(last); };
  document.getElementById('play').onclick = play;
  document.getElementById('goturn').onsubmit = function (ev) {
    ev.preventDefault();
    var want = +document.getElementById('turnbox').value;
    var s = D.turn.findIndex(function (t) { return t >= want; });
    show(s < 0 ? last : s);
  };
  for (var i = 0; i < items.length; i++) {
    items[i].onclick = (function (k) { return function () { show(k + 1); }; })(i);
  }
  var before = false, btn = document.getElementById('before');
  function board(was) {  // the squares a novelty changed, as played or as the rules had them
    before = was;
    document.querySelectorAll('.square.changed').forEach(function (g) {
      g.querySelector('.face.now').style.display = was ? 'none' : '';
      g.querySelector('.face.was').style.display = was ? '' : 'none';
      g.setAttribute('data-shown', was ? g.dataset.wasName : g.dataset.name);
    });
    if (btn) btn.textContent = was ? 'the board in this game' : 'the board before the novelty';
    if (started) show(step);  // the address says which board is shown
  }
  if (btn) btn.onclick = function () { board(!before); };
  var m = /step=(\d+)/.exec(location.hash), started = false;
  board(/before=1/.test(location.hash));
  started = true;
  show(m ? +m[1] : 0);
})();
"""


_CSS = """
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}
.wrap{display:flex;gap:16px;align-items:flex-start} h1{font-size:18px;margin:0 0 4px}
.sub{color:#666;margin:0 0 10px} table{border-collapse:collapse}
td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left}
#events{height:560px;overflow:auto;width:420px;margin:0;padding-left:42px;font-size:12px}
#events li.now{background:#ffe9a8} #events li{cursor:pointer}
.controls{margin:8px 0} .controls button{min-width:34px} .mark{color:#d33}
#slider{width:460px}
"""


def render(header: dict[str, Any], events: Sequence[dict[str, Any]],
           result: dict[str, Any] | None, info: dict[str, Any],
           before: dict[str, Any] | None = None,
           truth: Sequence[dict[str, Any]] | None = None) -> str:
    """The page as text. `info`: title, notes (the novelty and the first report);
    `before`: the rules' schema before the novelty; `truth`: the novelty's ground truth
    (its changes to squares are outlined even where the schema shows none)."""
    schema = header["schema"]
    names = [s["name"] for s in schema["squares"]]
    by_square = truth_by_square(list(truth or []), names)
    toggle = bool(changed_squares(schema, before, by_square))
    n = header["players"]
    states = fold(header, events)
    hotel = (schema["bank"].get("max_houses") or 4) + 1
    data = {**states, "players": n, "names": names, "hotel": hotel,
            "colours": list(SEAT_COLOURS[:n])}
    agents = header.get("seats") or list(range(n))
    who = info.get("seat_names") or [f"agent {agents[s]}" for s in range(n)]
    rows = "".join(
        f'<tr><td><span style="color:{SEAT_COLOURS[s % 8]}">●</span> P{s} '
        f"{html.escape(str(who[s]))}</td><td class=num></td><td></td><td></td><td></td></tr>"
        for s in range(n))
    evs = "".join(f"<li>{html.escape(_describe(e, names))}</li>" for e in events)
    notes = "".join(f"<p class=mark>{html.escape(t)}</p>" for t in info.get("notes", []))
    winner = ""
    if result is not None:
        r = result["result"]
        winner = f" · winner P{r['winner_seat']} ({r['end_reason']}, {r['turns']} turns)"
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return f"""<!doctype html><html lang=en><head><meta charset=utf-8>
<title>{html.escape(info.get('title', 'replay'))}</title><style>{_CSS}</style></head><body>
<h1>{html.escape(info.get('title', 'Game replay'))}</h1>
<p class=sub>seed {_e(header['seed'])} · {_e(n)} players · {len(events)} events{html.escape(winner)}</p>
{notes}
<div class=controls><button id=first title="opening">|&lt;</button>
<button id=back title="one event back">&lt;</button><button id=play>play</button>
<button id=fwd title="one event on">&gt;</button><button id=end title="the end">&gt;|</button>
<input id=slider type=range min=0 value=0> step <b id=step>0</b> · turn <b id=turn>0</b>
<form id=goturn style="display:inline"> · go to turn <input id=turnbox size=4></form>
{'<button id=before>the board before the novelty</button>' if toggle else ''}</div>
<div class=wrap><div>{_board_svg(schema, before, n, by_square)}
<table id=players><thead><tr><th>player</th><th>cash</th><th>square</th><th></th>
<th>properties</th></tr></thead><tbody>{rows}</tbody></table></div>
<ol id=events>{evs}</ol></div>
<script type="application/json" id=data>{blob}</script>
<script>{_JS}</script></body></html>
"""
