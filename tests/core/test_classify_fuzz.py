"""classify() against generated frames: whatever the bytes, it never raises, the
kind is a frame kind, and an invalid frame always says why."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_inspector.core.base.jsonrpc import Kind, classify

FRAME_KINDS = {Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR, Kind.BATCH, Kind.INVALID}
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1e-400", "9" * 500, "-0", "0.0e0"]),
)
ids = st.one_of(
    st.integers(min_value=-(2**60), max_value=2**60),
    st.text(max_size=8),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=10), st.floats(allow_nan=False, allow_infinity=False)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=15,
)


@st.composite
def messages(draw) -> dict:
    """Envelope-shaped objects, right and wrong."""
    message: dict = {}
    if draw(st.booleans()):
        message["jsonrpc"] = draw(st.sampled_from(["2.0", "1.0", 2.0, None]))
    for key, strategy in (
        ("id", ids),
        ("method", st.one_of(st.text(max_size=12), scalars)),
        ("params", values),
        ("result", values),
        ("error", st.one_of(values, st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=5)}))),
        ("extra", scalars),
    ):
        if draw(st.integers(0, 3)) == 0:
            message[key] = draw(strategy)
    return message


def encode(value) -> str:
    return json.dumps(value, allow_nan=False)


@st.composite
def frames(draw) -> bytes:
    shape = draw(st.sampled_from(["message", "batch", "deep", "number", "bytes", "encoded", "big", "duplicate"]))
    if shape == "message":
        text = encode(draw(messages()))
    elif shape == "batch":
        text = encode(draw(st.lists(st.one_of(messages(), values), max_size=5)))
    elif shape == "deep":
        # Uniform integers rarely go deep: name the interesting depths outright.
        depth = draw(st.one_of(st.integers(0, 300), st.sampled_from([127, 128, 129, 999, 1000, 1001, 3000, 100_000])))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        inner = draw(st.sampled_from(["1", "", '{"jsonrpc":"2.0","method":"x"}']))
        text = opener * depth + inner + closer * draw(st.integers(0, depth))
    elif shape == "number":
        text = f'{{"jsonrpc":"2.0","id":{draw(numbers)},"result":{{"n":{draw(numbers)}}}}}'
    elif shape == "big":
        text = encode({"jsonrpc": "2.0", "id": 1, "result": {"text": "x" * draw(st.integers(0, 200_000))}})
    elif shape == "duplicate":
        text = '{"jsonrpc":"2.0","id":1,"id":"1","result":{},"result":[]}'
    elif shape == "bytes":
        return draw(st.binary(max_size=300))
    else:  # "encoded": an envelope in another encoding, below
        text = ""
    raw = text.encode("utf-8")
    if shape == "encoded" or draw(st.integers(0, 9)) == 0:
        base = encode(draw(messages()))
        codec = draw(
            st.sampled_from(["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "latin-1"])
        )
        raw = base.encode(codec, errors="replace")
    if draw(st.integers(0, 9)) == 0:  # cut somewhere, or garbage inserted
        cut = draw(st.integers(0, len(raw)))
        raw = raw[:cut] + draw(st.binary(max_size=4)) + raw[cut:] if draw(st.booleans()) else raw[:cut]
    return raw


def check(raw: bytes) -> None:
    info = classify(raw)
    assert info.kind in FRAME_KINDS
    if info.kind is Kind.INVALID:
        assert isinstance(info.problem, str) and info.problem
    if info.kind in (Kind.REQUEST, Kind.NOTIFICATION):
        assert isinstance(info.method, str)
    if info.kind is Kind.BATCH:
        assert isinstance(info.message, list) and info.message


@SETTINGS
@given(raw=frames())
def test_classify_never_raises_on_generated_frames(raw: bytes) -> None:
    check(raw)


@SETTINGS
@given(raw=st.binary(max_size=2000))
def test_classify_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    check(raw)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from('[]{}",:0123456789.eE+-tfnrulasNIy \\'), max_size=200))
def test_classify_never_raises_on_json_like_noise(text: str) -> None:
    check(text.encode())
