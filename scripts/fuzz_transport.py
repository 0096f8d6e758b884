"""Fuzz every decoder of the transport: frames, message payloads, the three handshake
messages, records, and the whole receive pipeline (frames -> records -> messages).

Inputs are random bytes and mutations (bit flips, byte changes, cuts, insertions, splices,
length-header edits) of valid inputs, from a seeded generator, so a run is reproducible.
Only the documented errors (FrameError, HandshakeError, RecordError, each with a known code)
may come out; anything else, a broken invariant, or one input running over the hang limit, is
a failure: the input is saved to a file, printed as hex, and the exit status is 1.

    scripts/fuzz_transport [N] [--seed S] [--max-seconds T] [--hang-seconds H] [--out DIR]

N defaults to 1,000,000. Not run in CI; tests/net/test_fuzz_transport.py runs a few thousand.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import random
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from p2puno.log import Identity, Player, make_genesis
from p2puno.net.frames import (
    FrameDecoder,
    FrameError,
    FrameErrorCode,
    MsgType,
    decode_bye,
    decode_fetch,
    decode_message,
    decode_ping,
    decode_sync,
    encode_bye,
    encode_fetch,
    encode_frame,
    encode_message,
    encode_ping,
    encode_sync,
)
from p2puno.net.handshake import (
    HandshakeError,
    HandshakeErrorCode,
    Initiator,
    RecordError,
    RecordErrorCode,
    RecordReceiver,
    RecordSender,
    Responder,
    encode_alert,
)
from p2puno.node.lobby import LobbyError, Seat, _check_start, check_join, make_options
from p2puno.session import Timing
from p2puno.wire import EncodingError, JSONValue, decode, encode


class LobbyReject(Exception):
    """A lobby message refused the documented way (a reason for a join, LobbyError for a
    start, EncodingError for bytes that are not canonical JSON)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


DOCUMENTED = (FrameError, HandshakeError, RecordError, LobbyReject)
CODES = (
    {c.value for c in FrameErrorCode}
    | {c.value for c in HandshakeErrorCode}
    | {c.value for c in RecordErrorCode}
    | {"join_refused", "start_refused", "not_json"}
)
GAME = hashlib.sha256(b"fuzz game").digest()
ALICE = Identity.from_test_seed(b"fuzz alice")
BOB = Identity.from_test_seed(b"fuzz bob")
RECORD_KEY = hashlib.sha256(b"fuzz record key").digest()
SMALL_CAP = 512


class Invariant(AssertionError):
    """A decoder accepted something it must not, or returned something inconsistent."""


def _fixed_rng(seed: bytes) -> Callable[[int], bytes]:
    stream = hashlib.sha256(seed).digest() * 4

    def rng(n: int) -> bytes:
        return stream[:n]

    return rng


class _Forger:
    """Claims ``claim``'s key but signs with ``signer``: a message that decrypts, then lies."""

    def __init__(self, claim: Identity, signer: Identity) -> None:
        self.sign_pk = claim.sign_pk
        self._signer = signer

    def sign(self, message: bytes, /) -> bytes:
        return self._signer.sign(message)


# X25519 public values of small order (the shared secret is all zero): a dictionary for mutation
LOW_ORDER = [
    bytes(32),
    b"\x01" + bytes(31),
    bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
    bytes.fromhex("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
    b"\xec" + b"\xff" * 30 + b"\x7f",
]


class Targets:
    """Each target takes one input and either returns (accepted) or raises."""

    def __init__(self) -> None:
        init = Initiator(ALICE, GAME, rng=_fixed_rng(b"i"))
        self.msg1 = init.start()
        resp = Responder(BOB, GAME, rng=_fixed_rng(b"r"))
        self.msg2 = resp.hello(self.msg1)
        self.init_waiting = copy.copy(init)  # a started initiator, cloned per input
        self.resp_waiting = copy.copy(resp)  # a responder that sent msg2, cloned per input
        self.msg3, _ = init.finish(self.msg2)
        # decrypts under the right keys, signed by someone else: only bad_signature can stop it
        forged_resp = Responder(_Forger(BOB, ALICE), GAME, rng=_fixed_rng(b"r"))
        self.forged_msg2 = forged_resp.hello(self.msg1)
        forger = Initiator(_Forger(ALICE, BOB), GAME, rng=_fixed_rng(b"i"))
        forger.start()
        self.forged_msg3, _ = forger.finish(self.msg2)
        sender = RecordSender(RECORD_KEY, max_frame=SMALL_CAP)
        hashes = [hashlib.sha256(bytes([i])).digest() for i in range(3)]
        self.messages = [
            encode_message(MsgType.PING, encode_ping(7)),
            encode_message(MsgType.PONG, encode_ping(2**63)),
            encode_message(MsgType.BYE, encode_bye("game over ✓")),
            encode_message(MsgType.ENTRY, b'{"v":1,"seq":3}'),
            encode_message(MsgType.FETCH, encode_fetch(hashes)),
            encode_message(MsgType.SYNC, encode_sync(12)),
            encode_message(MsgType.LOBBY, b'{"seat":1}'),
        ]
        self.records = [sender.seal(m) for m in self.messages]
        # the lobby: a genuine join and start, from fixed keys (p2puno/node/lobby.py)
        self.seat0 = Seat("Host", ALICE.sign_pk, ALICE.dh_pk, b"\x01" * 32, "bot", "self", "@", 9)
        self.joins: list[dict[str, JSONValue]] = [
            {
                "t": "join", "v": 1, "name": "Bob", "sign": BOB.sign_pk.hex(),
                "dh": BOB.dh_pk.hex(), "nonce": "02" * 32, "port": 4000, "kind": "bot",
                "runner": "self",
            }
        ]  # fmt: skip
        options = make_options(2, [], "standard", 100, Timing())
        players = [
            Player("Host", ALICE.sign_pk, ALICE.dh_pk),
            Player("Bob", BOB.sign_pk, BOB.dh_pk),
        ]
        genesis = make_genesis(ALICE, 0, players, options, [b"\x01" * 32, b"\x02" * 32])
        self.shown: dict[str, JSONValue] = {
            "t": "table", "name": "t", "options": options, "size": 2, "lobby": "00" * 32,
            "seats": [{"name": "Host"}, {"name": "Bob"}],
        }  # fmt: skip
        self.start_msg: dict[str, JSONValue] = {
            "t": "start", "genesis": genesis.decode(), "addresses": [["@", 9], ["@", 4000]],
            "table": self.shown,
        }  # fmt: skip
        self.stream = b"".join(self.records)
        alert = encode_alert("busy")
        assert alert is not None
        self.seeds: dict[str, list[bytes]] = {
            "frames": [encode_frame(m) for m in self.messages] + [self.stream, b""],
            "message": self.messages,
            "fetch": [m[1:] for m in self.messages if m[0] == MsgType.FETCH],
            "sync": [encode_sync(0), encode_sync(2**32 - 1)],
            "bye": [encode_bye(""), encode_bye("é ok"), b"x" * 200],
            "ping": [encode_ping(0)],
            "hs_msg1": [self.msg1],
            "hs_msg2": [self.msg2, alert, self.forged_msg2],
            "hs_msg3": [self.msg3, self.forged_msg3],
            "record": [r[4:] for r in self.records[:1]],
            "pipeline": [self.stream, self.records[0], self.records[0] * 2],
            "lobby_join": [encode(j) for j in self.joins],
            "lobby_start": [encode(self.start_msg)],
        }
        self.run: dict[str, Callable[[bytes, random.Random], None]] = {
            "frames": self.frames,
            "message": self.message,
            "fetch": self.fetch,
            "sync": self.sync,
            "bye": self.bye,
            "ping": self.ping,
            "hs_msg1": self.hs_msg1,
            "hs_msg2": self.hs_msg2,
            "hs_msg3": self.hs_msg3,
            "record": self.record,
            "pipeline": self.pipeline,
            "lobby_join": self.lobby_join,
            "lobby_start": self.lobby_start,
        }

    @staticmethod
    def frames(data: bytes, rnd: random.Random) -> None:
        cap = rnd.choice((1, 16, SMALL_CAP, 320 * 1024))
        dec = FrameDecoder(cap)
        pos = 0
        while pos < len(data):
            step = rnd.randint(1, 64)
            for body in dec.feed(data[pos : pos + step]):
                if not 1 <= len(body) <= cap:
                    raise Invariant(f"a frame of {len(body)} bytes under cap {cap}")
            pos += step
            if dec.pending > cap + 4:
                raise Invariant(f"{dec.pending} bytes buffered under cap {cap}")
        dec.eof()

    @staticmethod
    def message(data: bytes, rnd: random.Random) -> None:
        msg = decode_message(data)
        if encode_message(msg.type, msg.payload) != data:
            raise Invariant("a decoded message does not re-encode to its bytes")

    @staticmethod
    def fetch(data: bytes, rnd: random.Random) -> None:
        if encode_fetch(decode_fetch(data)) != data:
            raise Invariant("FETCH round trip")

    @staticmethod
    def sync(data: bytes, rnd: random.Random) -> None:
        if encode_sync(decode_sync(data)) != data:
            raise Invariant("SYNC round trip")

    @staticmethod
    def bye(data: bytes, rnd: random.Random) -> None:
        if encode_bye(decode_bye(data)) != data:
            raise Invariant("BYE round trip")

    @staticmethod
    def ping(data: bytes, rnd: random.Random) -> None:
        if encode_ping(decode_ping(data)) != data:
            raise Invariant("PING round trip")

    def hs_msg1(self, data: bytes, rnd: random.Random) -> None:
        out = Responder(BOB, GAME, rng=_fixed_rng(b"r")).hello(data)
        if data != self.msg1 and len(out) != len(self.msg2):
            raise Invariant("msg2 of the wrong size")

    def hs_msg2(self, data: bytes, rnd: random.Random) -> None:
        copy.copy(self.init_waiting).finish(data)
        if data != self.msg2:
            raise Invariant("the initiator accepted a msg2 that is not the responder's")

    def hs_msg3(self, data: bytes, rnd: random.Random) -> None:
        copy.copy(self.resp_waiting).finish(data)
        if data != self.msg3:
            raise Invariant("the responder accepted a msg3 that is not the initiator's")

    def record(self, data: bytes, rnd: random.Random) -> None:
        RecordReceiver(RECORD_KEY).open(data)
        if data != self.records[0][4:]:
            raise Invariant("a forged record opened")

    def lobby_join(self, data: bytes, rnd: random.Random) -> None:
        try:
            msg = decode(data)
        except EncodingError:
            raise LobbyReject("not_json") from None
        if not isinstance(msg, dict):
            raise LobbyReject("join_refused")
        reason = check_join(msg, BOB.sign_pk, [self.seat0], 2, False)
        if reason is not None:
            raise LobbyReject("join_refused")
        if not isinstance(reason, str | None):
            raise Invariant("check_join returned something else than a reason")

    def lobby_start(self, data: bytes, rnd: random.Random) -> None:
        try:
            msg = decode(data)
        except EncodingError:
            raise LobbyReject("not_json") from None
        if not isinstance(msg, dict):
            raise LobbyReject("start_refused")
        try:
            _check_start(msg, BOB, b"\x02" * 32, 1, self.shown, "127.0.0.1")  # type: ignore[arg-type]
        except LobbyError:
            raise LobbyReject("start_refused") from None

    def pipeline(self, data: bytes, rnd: random.Random) -> None:
        """What a link's reader does with a byte stream after the handshake."""
        dec = FrameDecoder(SMALL_CAP)
        rx = RecordReceiver(RECORD_KEY)
        opened = 0
        pos = 0
        while pos < len(data):
            step = rnd.randint(1, 200)
            for body in dec.feed(data[pos : pos + step]):
                decode_message(rx.open(body))
                opened += 1
            pos += step
        dec.eof()
        # every record that opened must be the genuine one at its place
        genuine = b"".join(self.records[:opened])
        if opened > len(self.records) or data[: len(genuine)] != genuine:
            raise Invariant("a forged, replayed or reordered record went through")


def mutate(seed: bytes, rnd: random.Random, pool: list[bytes]) -> bytes:
    data = bytearray(seed)
    for _ in range(rnd.choice((1, 1, 1, 2, 3, 8))):
        op = rnd.randrange(11)
        n = len(data)
        if op == 0 and n:
            i = rnd.randrange(n)
            data[i] ^= 1 << rnd.randrange(8)
        elif op == 1 and n:
            data[rnd.randrange(n)] = rnd.choice((0, 1, 0x7F, 0x80, 0xFF, rnd.randrange(256)))
        elif op == 2 and n:
            del data[rnd.randrange(n) :]
        elif op == 3:
            i = rnd.randrange(n + 1)
            data[i:i] = rnd.randbytes(rnd.randint(1, 16))
        elif op == 4 and n:
            i = rnd.randrange(n)
            del data[i : i + rnd.randint(1, 16)]
        elif op == 5 and n:
            i = rnd.randrange(n)
            j = rnd.randrange(n)
            data[i:i] = data[j : j + rnd.randint(1, 32)]
        elif op == 6:
            other = rnd.choice(pool)
            cut = rnd.randint(0, len(data))
            data = data[:cut] + other[rnd.randint(0, len(other)) :]
        elif op == 7 and n >= 4:
            i = rnd.randrange(n - 3)
            v = rnd.choice((0, 1, 2**31, 2**32 - 1, SMALL_CAP, SMALL_CAP + 1, rnd.randrange(2**32)))
            data[i : i + 4] = v.to_bytes(4, "big")
        elif op == 8 and n:
            i = rnd.randrange(n)
            data[i : i + 1] = bytes([data[i]]) * rnd.randint(2, 64)
        elif op == 9 and n >= 32:
            i = rnd.choice((6, 39, rnd.randrange(n - 31)))  # the ephemerals' offsets, or anywhere
            data[i : i + 32] = rnd.choice(LOW_ORDER)
        else:
            data += rnd.randbytes(rnd.randint(0, 8))
    return bytes(data)


class Hang(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


def run(
    n: int,
    *,
    seed: int = 1,
    max_seconds: float = 1800.0,
    hang_seconds: float = 5.0,
    out: Path | None = None,
    report: Callable[[str], None] = print,
) -> dict[str, object]:
    """Run ``n`` inputs; returns counts. On a failure, saves the input (if ``out``) and
    returns at once with ``crash`` set."""
    targets = Targets()
    names = list(targets.run)
    pool = [s for seeds in targets.seeds.values() for s in seeds]
    rnd = random.Random(seed)
    outcomes: Counter[str] = Counter()
    slowest = 0.0
    use_alarm = hasattr(signal, "setitimer") and hang_seconds > 0
    old = signal.signal(signal.SIGALRM, _alarm) if use_alarm else None
    start = time.perf_counter()
    done = 0
    crash: dict[str, object] | None = None
    try:
        for done in range(1, n + 1):
            name = names[done % len(names)]
            seeds = targets.seeds[name]
            kind = rnd.random()
            if kind < 0.15:
                data = rnd.randbytes(
                    rnd.choice((0, 1, 4, 7, 40, 103, 118, 214, rnd.randrange(600)))
                )
            elif kind < 0.20:
                data = rnd.choice(seeds)
            else:
                seed_input = rnd.choice(seeds)
                data = mutate(seed_input, rnd, pool)
                if name.startswith("hs_") and rnd.random() < 0.5:  # keep the size: go deeper
                    data = data[: len(seed_input)].ljust(len(seed_input), b"\x00")
            case_rnd = random.Random(done)
            t0 = time.perf_counter()
            try:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, hang_seconds)
                try:
                    targets.run[name](data, case_rnd)
                finally:
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                outcomes[f"{name}: accepted"] += 1
            except DOCUMENTED as e:
                if e.code not in CODES:
                    crash = {"target": name, "error": f"undocumented code {e.code!r}"}
                else:
                    outcomes[f"{name}: {e.code}"] += 1
            except Hang:
                crash = {"target": name, "error": f"hang: over {hang_seconds} s"}
            except BaseException as e:
                if isinstance(e, KeyboardInterrupt):
                    raise
                crash = {"target": name, "error": "".join(traceback.format_exception(e))}
            elapsed = time.perf_counter() - t0
            slowest = max(slowest, elapsed)
            if crash is not None:
                crash["input"] = data.hex()
                crash["index"] = done
                if out is not None:
                    out.mkdir(parents=True, exist_ok=True)
                    path = out / f"fuzz-transport-{name}-{done}.bin"
                    path.write_bytes(data)
                    crash["saved"] = str(path)
                break
            if time.perf_counter() - start > max_seconds:
                report(f"time bound of {max_seconds} s reached after {done} inputs")
                break
            if done % 100_000 == 0:
                rate = done / (time.perf_counter() - start)
                report(f"  {done:>9,} inputs, {rate:,.0f}/s")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    seconds = time.perf_counter() - start
    return {
        "inputs": done,
        "seconds": seconds,
        "rate": done / seconds if seconds else 0.0,
        "slowest": slowest,
        "outcomes": outcomes,
        "crash": crash,
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("n", nargs="?", type=int, default=1_000_000, help="inputs (1,000,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=1800.0, help="stop after (1800)")
    ap.add_argument("--hang-seconds", type=float, default=5.0, help="one input over: a hang")
    ap.add_argument("--out", type=Path, default=Path("."), help="where a failing input goes")
    args = ap.parse_args(argv)
    print(f"fuzzing the transport: {args.n:,} inputs, seed {args.seed}")
    res = run(
        args.n,
        seed=args.seed,
        max_seconds=args.max_seconds,
        hang_seconds=args.hang_seconds,
        out=args.out,
    )
    outcomes: Counter[str] = res["outcomes"]  # type: ignore[assignment]
    print(
        f"{res['inputs']:,} inputs in {res['seconds']:.1f} s: {res['rate']:,.0f} inputs/s "
        f"(slowest input {float(res['slowest']) * 1000:.1f} ms)"  # type: ignore[arg-type]
    )
    by_code: Counter[str] = Counter()
    for key, count in outcomes.items():
        by_code[key.split(": ", 1)[1]] += count
    print("outcomes by code (all targets; everything but 'accepted' is a rejection):")
    for code, count in sorted(by_code.items(), key=lambda kv: -kv[1]):
        print(f"  {code:<20} {count:>9,}")
    print("by target and outcome:")
    for key, count in sorted(outcomes.items()):
        print(f"  {key:<36} {count:>9,}")
    crash = res["crash"]
    if crash is not None:
        assert isinstance(crash, dict)
        print(f"FAILURE at input {crash['index']} ({crash['target']}): {crash['error']}")
        print(f"input (hex): {crash['input']}")
        if "saved" in crash:
            print(f"saved to {crash['saved']}")
        return 1
    print("0 crashes, 0 hangs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
