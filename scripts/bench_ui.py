"""Key handling and rendering cost of the table, and the CPU it uses while idle.

The real :class:`~p2puno.ui.app.TableUI` (prompt-toolkit, the same Application as at a table)
with a game on one engine against bots (p2puno.ui.local: no network, so what is timed is the
UI), keys fed through prompt-toolkit's pipe input, the screen written as VT100 to a sink that
keeps only a byte count (a terminal's own drawing is not ours to time).

- key to screen: the time from writing a key (← or →, which moves the hand's cursor and so
  changes the screen) into the input to the end of the redraw it caused (``after_render``),
  over ``--keys`` presses; median and p99, at 80x24 and at 200x60.
- idle CPU: CPU seconds per wall second of this process while the table sits waiting for the
  person's decision (its countdown redraws twice a second) and while it waits for other seats
  (the spinner), over ``--idle`` seconds each.

Anchors, measured in the same run the same way: a bare prompt-toolkit Application whose only
content is a counter that each key bumps (prompt-toolkit's own key-to-redraw floor), the same
app with a whole screen of text of the terminal's size around the counter (the floor for a
screen that fills every cell, as the table does), and the bare app's idle CPU.

Usage: scripts/bench_ui [--keys 300] [--idle 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output.vt100 import Vt100_Output

from p2puno.engine.actions import Kind
from p2puno.engine.game import Game, Phase
from p2puno.engine.options import Options
from p2puno.ui.app import TableUI
from p2puno.ui.local import LocalTable

LEFT, RIGHT = "\x1b[D", "\x1b[C"


class Sink:
    """A terminal that counts what it is sent."""

    encoding = "utf-8"

    def __init__(self, cols: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=cols)
        self.bytes = 0

    def write(self, data: str) -> int:
        self.bytes += len(data)
        return len(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    def output(self) -> Vt100_Output:
        return Vt100_Output(self, lambda: self.size, term="xterm", enable_cpr=False)  # type: ignore[arg-type]


async def key_latency(
    pipe: PipeInput, rendered: list[float], keys: int, settle: Callable[[], bool]
) -> list[float]:
    """Send ``keys`` cursor keys one at a time; each: seconds from the write to its redraw."""
    out: list[float] = []
    for i in range(keys):
        before = len(rendered)
        t0 = time.perf_counter()
        pipe.send_text(RIGHT if (i // 4) % 2 == 0 else LEFT)
        for _ in range(2000):  # at most 2 s
            if len(rendered) > before and settle():
                break
            await asyncio.sleep(0.0005)
        else:
            raise RuntimeError("no redraw after a key")
        out.append(rendered[before] - t0)
        await asyncio.sleep(0.002)
    return out


async def idle_cpu(seconds: float) -> float:
    c0, w0 = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    return (time.process_time() - c0) / (time.perf_counter() - w0)


def my_turn(g: Game, kind: str, actions: list[object]) -> bool:
    return (
        kind == "turn"
        and g.phase is Phase.TURN
        and sum(1 for a in actions if getattr(a, "kind", None) is Kind.PLAY) >= 1
        and len(g.hands[0]) >= 5
    )


async def bench_table(cols: int, rows: int, keys: int, idle: float) -> dict[str, float]:
    sink = Sink(cols, rows)
    with create_pipe_input() as pipe:
        ui = TableUI(name="You", input=pipe, output=sink.output())
        rendered: list[float] = []
        ui.on_rendered = lambda: rendered.append(time.perf_counter())
        local = LocalTable(ui, Options(4), "bench", hand_over=my_turn)  # type: ignore[arg-type]
        app = asyncio.ensure_future(ui.app.run_async())
        ticker = asyncio.ensure_future(ui.ticker())
        play = asyncio.ensure_future(local.play())
        for _ in range(500):
            if ui.prompt is not None:
                break
            await asyncio.sleep(0.01)
        assert ui.prompt is not None, "no decision came to the person"
        await asyncio.sleep(0.3)
        lat = await key_latency(pipe, rendered, keys, lambda: True)
        n0, b0 = ui.rendered, sink.bytes
        cpu_prompt = await idle_cpu(idle)
        redraws = (ui.rendered - n0) / idle
        bytes_s = (sink.bytes - b0) / idle
        # waiting for the other seats: answer with a draw and let the bots think slowly
        local.pace = 3600.0
        a = next(x for x in ui.prompt.actions if x.kind is Kind.DRAW)
        ui.answer(a)
        await asyncio.sleep(0.3)
        cpu_wait = await idle_cpu(idle)
        play.cancel()
        ticker.cancel()
        ui.close()
        await asyncio.wait_for(app, 5)
    return {
        "median_ms": statistics.median(lat) * 1000,
        "p99_ms": sorted(lat)[int(0.99 * (len(lat) - 1))] * 1000,
        "cpu_prompt": cpu_prompt,
        "cpu_wait": cpu_wait,
        "redraws_s": redraws,
        "bytes_s": bytes_s,
    }


async def bench_bare(cols: int, rows: int, keys: int, idle: float, full: bool) -> dict[str, float]:
    """A bare app: one line with a counter, or (``full``) a whole screen of styled text of
    the terminal's size (the table draws every cell) with the counter in it."""
    sink = Sink(cols, rows)
    count = [0]
    filler = [("", "x" * (cols - 1) + "\n"), ("bold", "y" * (cols - 1) + "\n")] * (rows // 2 - 1)

    def content() -> object:
        if not full:
            return f"keys: {count[0]}"
        return [("reverse", f"keys: {count[0]}".ljust(cols - 1) + "\n"), *filler]

    kb = KeyBindings()

    @kb.add("<any>")
    def _(event: KeyPressEvent) -> None:
        count[0] += 1

    rendered: list[float] = []
    with create_pipe_input() as pipe:
        app: Application[None] = Application(
            layout=Layout(
                Window(FormattedTextControl(content, show_cursor=False))  # type: ignore[arg-type]
            ),
            key_bindings=kb,
            full_screen=True,
            input=pipe,
            output=sink.output(),
            after_render=lambda _: rendered.append(time.perf_counter()),
        )
        app.ttimeoutlen = 0.05
        task = asyncio.ensure_future(app.run_async())
        await asyncio.sleep(0.3)
        lat = await key_latency(pipe, rendered, keys, lambda: True)
        cpu = await idle_cpu(idle)
        app.exit()
        await asyncio.wait_for(task, 5)
    return {
        "median_ms": statistics.median(lat) * 1000,
        "p99_ms": sorted(lat)[int(0.99 * (len(lat) - 1))] * 1000,
        "cpu_idle": cpu,
    }


async def main_async(keys: int, idle: float) -> None:
    print(f"bench_ui: {keys} key presses per case, {idle:.0f} s per idle measurement")
    print()
    print(f"{'case':<44} {'median':>9} {'p99':>9}")
    results = {}
    for cols, rows in ((80, 24), (200, 60)):
        bare = await bench_bare(cols, rows, keys, idle, full=False)
        full = await bench_bare(cols, rows, keys, idle, full=True)
        table = await bench_table(cols, rows, keys, idle)
        results[(cols, rows)] = (bare, table)
        print(
            f"{'anchor: bare app, one line ' + f'{cols}x{rows}':<44} "
            f"{bare['median_ms']:>7.2f}ms {bare['p99_ms']:>7.2f}ms"
        )
        print(
            f"{'anchor: bare app, a full screen of text ' + f'{cols}x{rows}':<44} "
            f"{full['median_ms']:>7.2f}ms {full['p99_ms']:>7.2f}ms"
        )
        print(
            f"{'table: key -> screen updated ' + f'{cols}x{rows}':<44} "
            f"{table['median_ms']:>7.2f}ms {table['p99_ms']:>7.2f}ms"
        )
    print()
    print("idle CPU (CPU seconds per wall second of this process)")
    for (cols, rows), (bare, table) in results.items():
        print(f"  {cols}x{rows}: anchor (bare app, nothing moves)      {bare['cpu_idle']:.4f}")
        print(
            f"  {cols}x{rows}: table, your decision (countdown)      {table['cpu_prompt']:.4f}"
            f"   ({table['redraws_s']:.1f} redraws/s, {table['bytes_s'] / 1000:.1f} kB/s written)"
        )
        print(f"  {cols}x{rows}: table, waiting for others (spinner)  {table['cpu_wait']:.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description="the table's key-to-screen time and idle CPU")
    ap.add_argument("--keys", type=int, default=300)
    ap.add_argument("--idle", type=float, default=5.0)
    args = ap.parse_args()
    asyncio.run(main_async(args.keys, args.idle))


if __name__ == "__main__":
    main()
