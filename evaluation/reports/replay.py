"""A game replay in the browser: `replay-K.html` from a kept game log.

    python -m evaluation.replay RUN_DIR game=K

reads `RUN_DIR/logs/game-K.jsonl` (a trial keeps the logs of the games around the
injection: `keep_logs`) and writes `RUN_DIR/replay-K.html`, one self-contained
page: the board drawn from the game's own schema (a novelty's board as it was played,
its changed squares outlined, and a button that shows them as the rules had them), the
players' cash, positions, holdings and buildings after every event, the event list,
and controls to step, jump to a turn or play. `#step=N` in the address opens step N.

The states are computed here, in Python, by folding the logged events from the opening
position (`fold`); the page only shows them. `tests/test_replay_page.py` checks the fold
against the engine replaying the same log at every decision, and the page in headless
Chromium.
"""

from __future__ import annotations

import html
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

from pydantic import Field

from openmono_cli import Options, UsageError, read_options

from evaluation.reports import event_text
from evaluation.store.atomic import atomic_write, read_regular
from evaluation.store.report_files import LOGS, kept_logs

BANK = -1
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                "#e377c2", "#17becf")


def log_path(run_dir: str | Path, game: int) -> Path:
    return Path(run_dir) / LOGS / f"game-{game}.jsonl"


def page_path(run_dir: str | Path, game: int) -> Path:
    return Path(run_dir) / f"replay-{game}.html"


# -- the states ------------------------------------------------------------------------------
def fold(header: dict[str, Any], events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Cash and positions after every event (step 0: the opening), and the board
    (owner, level, mortgaged) at each step where it changed."""
    schema = header["schema"]
    n_sq, n = len(schema["squares"]), header["players"]
    go = next((i for i, s in enumerate(schema["squares"]) if s["kind"] == "go"), 0)
    cash = [schema["bank"]["starting_cash"]] * n
    pos, jailed, out = [go] * n, [False] * n, [False] * n
    owner, level, mortgaged = [-1] * n_sq, [0] * n_sq, [False] * n_sq
    steps = {"cash": [list(cash)], "position": [list(pos)], "jailed": [list(jailed)],
             "out": [list(out)], "board": [[0, list(owner), list(level), list(mortgaged)]],
             "turn": [0]}
    turn = 0
    for i, e in enumerate(events, start=1):
        kind = e["kind"]
        board = False
        if kind == "payment":
            if e["payer"] != BANK:
                cash[e["payer"]] -= e["amount"]
            if e["payee"] != BANK:
                cash[e["payee"]] += e["amount"]
        elif kind == "moved":
            pos[e["seat"]] = e["end"]
        elif kind == "jailed":
            jailed[e["seat"]] = True
        elif kind == "released":
            jailed[e["seat"]] = False
        elif kind == "bankrupt":
            out[e["seat"]] = True
        elif kind == "turn_started":
            turn = e["turn"]
        elif kind == "property_transferred":
            owner[e["square"]], board = e["to_seat"], True
        elif kind == "building_changed":
            level[e["square"]], board = e["level"], True
        elif kind == "mortgage_changed":
            mortgaged[e["square"]], board = e["mortgaged"], True
        steps["cash"].append(list(cash))
        steps["position"].append(list(pos))
        steps["jailed"].append(list(jailed))
        steps["out"].append(list(out))
        steps["turn"].append(turn)
        if board:
            steps["board"].append([i, list(owner), list(level), list(mortgaged)])
    return steps


def read_log(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """(header, events, result) of a game log; one-line errors for a bad file."""
    try:
        lines = read_regular(path).decode("utf-8", "replace").splitlines()  # no link, FIFO
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return read_log_lines(lines, str(path))


def read_log_lines(lines: Sequence[str], path: str = "log") -> tuple[
        dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    header, events, result = None, [], None
    for k, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise UsageError(f"{path}:{k}: not a JSON line") from None
        if rec.get("type") == "header":
            header = rec
        elif rec.get("type") == "event":
            events.append(rec)
        elif rec.get("type") == "result":
            result = rec
    if header is None:
        raise UsageError(f"{path}: not a game log (no header line)")
    return header, events, result


# -- the page ---------------------------------------------------------------------------------
def _layout(n: int) -> list[tuple[int, int]]:
    """Grid cells (column, row) of the squares around a square board, GO at the bottom
    right, then clockwise as on the printed board."""
    side = math.ceil(n / 4)
    cells = []
    for i in range(n):
        edge, k = divmod(i, side)
        if edge == 0:
            cells.append((side - k, side))
        elif edge == 1:
            cells.append((0, side - k))
        elif edge == 2:
            cells.append((k, 0))
        else:
            cells.append((side, k))
    return cells


def _e(value: Any) -> str:
    """Any value from a log or a schema as HTML text or an attribute value: a kept log
    or a plugin's schema may hold anything, so nothing reaches the page unescaped."""
    return html.escape(str(value), quote=True)


SIZE = 76  # a square's side in the board's SVG
LINE_CHARS = 13  # about what fits on one line of a square at FONT
FONT = 8.5
TEXT_WIDTH = SIZE - 6


def wrap(name: str, lines: int = 3) -> list[str]:
    """A square's name on up to `lines` lines, broken between words; a word longer than
    a line is kept whole (the SVG squeezes it: `_text`). Nothing is cut off."""
    out: list[str] = []
    for word in str(name).split():
        if out and len(out[-1]) + 1 + len(word) <= LINE_CHARS:
            out[-1] += " " + word
        else:
            out.append(word)
    if len(out) > lines:
        out = out[:lines - 1] + [" ".join(out[lines - 1:])]
    return out or [""]


def _text(cls: str, x: float, y: float, text: str, extra: str = "") -> str:
    """One line of a square; one likely wider than the square is squeezed to fit it
    (`textLength`), never drawn over its neighbour."""
    fit = (f' textLength="{TEXT_WIDTH}" lengthAdjust="spacingAndGlyphs"'
           if len(text) * FONT * 0.56 > TEXT_WIDTH else "")
    return (f'<text class="{cls}" x="{x}" y="{y}" font-size="{FONT}"{fit}{extra}>'
            f"{_e(text)}</text>")


def _short(value: Any) -> str:
    """A changed value in a few characters: a list by its first entry."""
    if isinstance(value, list) and value:
        return f"{_short(value[0])}…"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def truth_by_square(truth: Sequence[dict[str, Any]], names: Sequence[str]
                    ) -> dict[int, list[dict[str, Any]]]:
    """The novelty's ground-truth changes of each square (entity `square:NAME`), by index:
    a change the schema does not show (a rent charged, not printed) still marks its
    square."""
    index = {str(n): i for i, n in enumerate(names)}
    out: dict[int, list[dict[str, Any]]] = {}
    for c in truth if isinstance(truth, list) else []:
        if not isinstance(c, dict):
            continue
        kind, _, name = str(c.get("entity", "")).partition(":")
        if kind == "square" and name in index:
            out.setdefault(index[name], []).append(c)
    return out


def changed_squares(schema: dict[str, Any], before: dict[str, Any] | None,
                    truth: dict[int, list[dict[str, Any]]]) -> set[int]:
    """The squares a novelty changed: in the schema against the rules before it, or named
    by its ground truth."""
    squares = schema["squares"]
    old = before["squares"] if before and len(before["squares"]) == len(squares) else None
    diff = {i for i, sq in enumerate(squares) if old is not None and old[i] != sq}
    return diff | set(truth)


def _face(cls: str, x: int, y: int, sq: dict[str, Any], band: str,
          note: str, hidden: bool) -> str:
    """A square's printed face: colour band, name, price and the novelty's change."""
    price = f"${sq['price']}" if sq.get("price") else ""
    lines = "".join(_text(f"t{k + 1}", x + 3, y + 19 + 9 * k, line)
                    for k, line in enumerate(wrap(sq["name"])))
    hide = ' style="display:none"' if hidden else ""
    return (f'<g class="{cls}"{hide}>'
            f'<rect class="band" x="{x}" y="{y}" width="{SIZE}" height="9" fill="{_e(band)}"/>'
            + lines + _text("tp", x + 3, y + 47, price, ' fill="#555"')
            + (_text("tn", x + 3, y + 56, note, ' fill="#d33"') if note else "") + "</g>")


def _board_svg(schema: dict[str, Any], before: dict[str, Any] | None, players: int,
               truth: dict[int, list[dict[str, Any]]] | None = None) -> str:
    """The board: every square's face as played and, where the novelty changed it (in
    the schema, or in the ground truth: a rent charged but not printed), outlined, with
    its face as the rules had it before (shown by the "before" button)."""
    squares = schema["squares"]
    truth = truth or {}
    colour = {g["name"]: g.get("color") or "#ccc" for g in schema.get("groups", [])}
    cells = _layout(len(squares))
    side = max(max(c) for c in cells) + 1
    old = before["squares"] if before and len(before["squares"]) == len(squares) else None
    old_colour = {g["name"]: g.get("color") or "#ccc" for g in (before or {}).get("groups", [])}
    parts = []
    for i, (sq, (cx, cy)) in enumerate(zip(squares, cells)):
        x, y = cx * SIZE, cy * SIZE
        was_sq = old[i] if old is not None and old[i] != sq else None
        changes = truth.get(i, [])
        changed = was_sq is not None or bool(changes)
        band = colour.get(sq.get("group"), "#fff") if sq.get("group") else "#fff"
        attr = lambda c: str(c.get("attribute", "")).split(" (")[0]  # noqa: E731
        now_note = "; ".join(f"{attr(c)} {_short(c.get('new'))}" for c in changes[:1])
        was_note = "; ".join(f"{attr(c)} {_short(c.get('old'))}" for c in changes[:1])
        face = _face("face now", x, y, sq, band, now_note, False)
        if changed:
            old_sq = was_sq or sq
            old_band = (old_colour.get(old_sq.get("group"), band) if old_sq.get("group")
                        else "#fff")
            face += _face("face was", x, y, old_sq, old_band, was_note, True)
        why = "; ".join(f"{c.get('attribute')}: {_short(c.get('old'))} → "
                        f"{_short(c.get('new'))}" for c in changes)
        title = f"{i}: {sq['name']}" + (f" (novelty: {why or 'changed'})" if changed else "")
        was_name = f' data-was-name="{_e((was_sq or sq)["name"])}"' if changed else ""
        parts.append(
            f'<g class="square{" changed" if changed else ""}" id="sq{i}" '
            f'data-name="{_e(sq["name"])}"{was_name}><title>{_e(title)}</title>'
            f'<rect x="{x}" y="{y}" width="{SIZE}" height="{SIZE}" '
            f'fill="{"#fff2f2" if changed else "#fff"}" stroke="{"#d33" if changed else "#999"}"'
            f' stroke-width="{2.5 if changed else 1}"/>{face}'
            f'<rect class="own" x="{x + 2}" y="{y + SIZE - 8}" width="{SIZE - 4}" height="6" '
            f'fill="none"/><text class="lvl" x="{x + SIZE - 4}" y="{y + 47}" font-size="9" '
            f'text-anchor="end"></text></g>')
    tokens = "".join(f'<circle class="token" id="tok{s}" r="6" fill="{SEAT_COLOURS[s % 8]}" '
                     f'stroke="#000" stroke-width="0.5"/>' for s in range(players))
    return (f'<svg id=board width="{side * SIZE}" height="{side * SIZE}" '
            f'viewBox="0 0 {side * SIZE} {side * SIZE}">{"".join(parts)}{tokens}</svg>')


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


def write(run_dir: str | Path, game: int) -> Path:
    """replay-K.html for game K of a trial folder (its kept log, its record)."""
    run = Path(run_dir)
    header, events, result = read_log(log_path(run, game))
    info: dict[str, Any] = {"title": f"Game {game}", "notes": []}
    record, summary = _record(run, game), _summary(run)
    before, truth = None, None
    if record is not None:
        info["title"] = (f"Game {game} of {summary.get('agent', 'the trial')} vs "
                         f"{', '.join(summary.get('opponents', []))}")
        info["seat_names"] = [record["seats"][s] if s < len(record.get("seats", [])) else s
                              for s in range(header["players"])]
        info["notes"].append(f"the evaluated agent sits at P{record['agent_seat']}")
    if summary.get("injected_at") is not None and record is not None:
        inj = summary["injected_at"]
        if record.get("novelty_active"):
            before, truth = _base_schema(run), summary.get("ground_truth") or []
            names = [s["name"] for s in header["schema"]["squares"]]
            count = len(changed_squares(header["schema"], before,
                                        truth_by_square(truth, names)))
            outlined = (f"the {count} squares it changed are outlined in red (the button "
                        "shows them as the rules had them)" if count else
                        "it changes no square: see the events")
            info["notes"].append(f"novelty {summary.get('novelty')} active in this game "
                                 f"(injected before game {inj}); {outlined}")
        else:
            info["notes"].append(f"before the novelty (injected before game {inj})")
    if summary.get("first_detection") == game:
        info["notes"].append("the agent first reported a novelty after this game")
    path = page_path(run, game)
    atomic_write(path, render(header, events, result, info, before, truth))
    return path


def _summary(run: Path) -> dict[str, Any]:
    try:
        return json.loads(read_regular(run / "summary.json").decode("utf-8"))
    except (OSError, ValueError):
        return {}


def _record(run: Path, game: int) -> dict[str, Any] | None:
    try:
        for line in read_regular(run / "games.jsonl").decode("utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("game") == game:
                return rec
    except (OSError, ValueError):
        pass
    return None


def _base_schema(run: Path) -> dict[str, Any] | None:
    """The trial's rules before the novelty (its rule set), as JSON data."""
    try:
        rules = json.loads(read_regular(run / "trial.json").decode("utf-8")).get(
            "rules", "standard")
        from openmono import rules_schema

        return json.loads(rules_schema(rules).to_json())
    except Exception:  # noqa: BLE001 - no comparison board is no reason to fail the page
        return None


def kept_games(run_dir: str | Path) -> list[int]:
    """The games whose log the trial folder keeps (`logs/game-K.jsonl`)."""
    return kept_logs(run_dir)


class ReplayOptions(Options):
    """A game replay in the browser: RUN_DIR/replay-K.html from a kept game log."""

    positional = ("run",)
    run: str = Field(description="a trial folder")
    game: int = Field(-1, description="a game whose log the trial kept (keep_logs)")


def main(argv: list[str] | None = None) -> int:
    cfg = read_options(ReplayOptions, argv, "python -m evaluation.replay")
    if isinstance(cfg, int):
        return cfg
    try:
        run = Path(cfg.run)
        kept = kept_games(run)
        if cfg.game not in kept:
            raise UsageError(f"{run}: no log of game {cfg.game}; kept: "
                             f"{', '.join(map(str, kept)) or 'none'} (keep_logs)")
        path = write(run, cfg.game)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)  # one line, no traceback
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
