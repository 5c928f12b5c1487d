"""The CTranslate2 model-file reader on files written here in the format of
``ctranslate2.specs.model_spec.ModelSpec._serialize`` (binary version 6) and of the older
versions the C++ loader accepts, and its errors on damaged files."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from companion.llm.ctranslate2_file import read_model


def _s(x: str) -> bytes:
    return struct.pack("<H", len(x) + 1) + x.encode() + b"\0"


_IDS = {"float32": 0, "int8": 1, "int16": 2, "int32": 3, "float16": 4}


def write(variables: dict, aliases=(), *, version=6, spec="WhisperSpec", revision=3) -> bytes:
    """A model file the way CTranslate2's Python serializer writes it."""
    out = struct.pack("<I", version)
    if version >= 2:
        out += _s(spec) + struct.pack("<I", revision)
    out += struct.pack("<I", len(variables))
    for name, arr in variables.items():
        arr = np.asarray(arr, order="C")
        out += _s(name) + struct.pack("<B", arr.ndim) + struct.pack(f"<{arr.ndim}I", *arr.shape)
        if version >= 4:
            out += struct.pack("<BI", _IDS[arr.dtype.name], arr.nbytes)
        else:
            out += struct.pack("<BI", arr.itemsize, arr.size)
        out += arr.tobytes()
    if version >= 3:
        out += struct.pack("<I", len(aliases))
        for a, t in aliases:
            out += _s(a) + _s(t)
    return out


@pytest.fixture
def vars_(rng):
    return {
        "decoder/embeddings/weight": rng.standard_normal((5, 4)).astype(np.float16),
        "decoder/layer_norm/gamma": rng.standard_normal(4).astype(np.float32),
        "decoder/num_heads": np.array(8, dtype=np.int16),
        "encoder/conv1/weight": rng.standard_normal((4, 3, 3)).astype(np.float16),
        "decoder/mask": np.arange(6, dtype=np.int32).reshape(2, 3),
    }


def test_round_trip_every_dtype_and_alias(vars_, tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(write(vars_, [("decoder/projection/weight", "decoder/embeddings/weight")]))
    f = read_model(path)
    assert (f.binary_version, f.spec, f.revision) == (6, "WhisperSpec", 3)
    assert list(f.variables) == list(vars_)  # file order kept
    for name, arr in vars_.items():
        assert f.variables[name].dtype == arr.dtype and f.dtypes[name] == arr.dtype.name
        np.testing.assert_array_equal(f.variables[name], arr)
    assert f.aliases == {"decoder/projection/weight": "decoder/embeddings/weight"}
    assert f.n_params == 20 + 4 + 36 + 6  # scalars not counted
    assert f.n_bytes == path.stat().st_size


def test_parts_read_as_one_file(vars_, tmp_path):
    raw = write(vars_)
    (tmp_path / "a").write_bytes(raw[:50])
    (tmp_path / "b").write_bytes(raw[50:])
    f = read_model([tmp_path / "a", tmp_path / "b"])
    np.testing.assert_array_equal(
        f.variables["encoder/conv1/weight"], vars_["encoder/conv1/weight"]
    )


def test_bfloat16_is_widened_exactly():
    x = np.array([1.0, -2.5, 3.140625], dtype=np.float32)  # exact in bfloat16
    bf = (x.view(np.uint32) >> 16).astype(np.uint16)
    raw = bytearray(write({"w": bf.view(np.int16)}))
    raw[raw.index(b"w\0") + 2 + 1 + 4] = 5  # dtype id int16 -> bfloat16
    f = read_model(bytes(raw))
    assert f.dtypes["w"] == "bfloat16"
    np.testing.assert_array_equal(f.variables["w"], x)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_binary_versions(version):
    v = {"w": np.arange(3, dtype=np.float32), "n": np.array(2, dtype=np.int16)}
    f = read_model(write(v, version=version))
    assert f.binary_version == version and f.spec == ("" if version == 1 else "WhisperSpec")
    np.testing.assert_array_equal(f.variables["w"], v["w"])
    assert int(f.variables["n"]) == 2


def test_truncated_file_names_the_bytes(vars_):
    raw = write(vars_)
    with pytest.raises(ValueError, match=r"^`path` must be a complete CTranslate2 model file; "):
        read_model(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match=rf"got {len(raw) - 3:,} of {len(raw):,} bytes"):
        read_model(raw[:-3], expected_bytes=len(raw))


def test_damaged_headers_fail_clearly(vars_):
    raw = write(vars_)
    with pytest.raises(ValueError, match="binary version 1-6\\); got binary version 7"):
        read_model(struct.pack("<I", 7) + raw[4:])
    with pytest.raises(ValueError, match="bytes follow its alias table"):
        read_model(raw + raw)  # parts joined twice
    bad = bytearray(raw)
    bad[bad.index(b"decoder/layer_norm/gamma\0") + 25 + 1 + 4] = 9  # dtype id 9
    with pytest.raises(ValueError, match="has dtype id 9"):
        read_model(bytes(bad))
    bad = bytearray(raw)
    at = bad.index(b"decoder/layer_norm/gamma\0") + 25 + 1 + 4 + 1
    bad[at : at + 4] = struct.pack("<I", 15)  # byte count disagrees with shape x dtype
    with pytest.raises(ValueError, match="needs 16 bytes, its header says 15"):
        read_model(bytes(bad))
    with pytest.raises(ValueError, match="names 'nope', which is not a stored variable"):
        read_model(write(vars_, [("x", "nope")]))
