#!/usr/bin/env python3
"""Writes the JAX-generated conformance corpus, tests/conformance/<family>/<op>.mlir.

Each test case applies one jax.lax / jax.numpy operation to fixed inputs
(edge values such as NaN, +-Inf, -0.0, subnormals and integer extremes, and
seeded random data), runs it with jax.jit on the CPU (XLA) to get the expected
outputs, and writes it in the `kiln test` format:

  func.func @<case>() {                       // runs it, checks the results
    %x0 = stablehlo.constant dense<...> : ...  // inputs, bit-exact literals
    %r = func.call @<case>_compute(%x0) : ...
    %e0 = stablehlo.constant dense<...> : ...  // XLA's result
    stablehlo.custom_call @check.expect_eq(%r, %e0) {has_side_effect = true} : ...
    func.return
  }
  func.func private @<case>_compute(...)      // jax.jit(f).lower(...)'s main,
                                              // chlo ops legalized to stablehlo

Cases are separated by `// -----`. Every chunk is parsed back with jaxlib's
MLIR parser before it is written, and every literal must parse back to the
same bits.

Each result is also computed by the StableHLO reference interpreter that ships
in jaxlib (run in a child process: it aborts on ops it lacks). That second
opinion decides how strictly a float result is checked (see `choose_check`),
and shows where XLA:CPU departs from the specification: XLA flushes f32/f64
subnormals to zero, so elementwise cases drop the positions where that changes
a result; any other disagreement is kept, noted in the chunk and summarized.

  scripts/gen_conformance.py                       regenerate everything
  scripts/gen_conformance.py --only 'reduce/*'     regenerate matching files
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import fnmatch
import math
import pathlib
import pickle
import re
import select
import subprocess
import struct
import sys
import zlib
from typing import Callable, Iterator, Sequence

import numpy as np

import jax

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402  (after the configuration above)
import ml_dtypes  # noqa: E402
from jax import lax  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jaxlib.mlir import ir, passmanager  # noqa: E402
from jaxlib.mlir._mlir_libs import _stablehlo as stablehlo_lib  # noqa: E402

np.seterr(all="ignore")  # edge values overflow and make NaNs on purpose

REPO = pathlib.Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "tests" / "conformance"
MAX_FILE_BYTES = 300_000
SEPARATOR = "\n// -----\n\n"

# ===========================================================================
# Element types

BF16 = np.dtype(ml_dtypes.bfloat16)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
I8, I16, I32, I64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
U8, U16, U32, U64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
I2, I4, U2, U4 = (np.dtype(t) for t in (ml_dtypes.int2, ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.uint4))
BOOL = np.dtype(np.bool_)
# The 8- and 4-bit floats XLA:CPU can convert to and from (not the f6 types).
SMALL_FLOATS = [np.dtype(getattr(ml_dtypes, name)) for name in (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
    "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn")]

FLOATS = [F32, F64, F16, BF16]
NARROW_INTS = [I4, I2, U4, U2]  # JAX supports them in basic arithmetic and conversions
SIGNED = [I8, I16, I32, I64, I4, I2]
UNSIGNED = [U8, U16, U32, U64, U4, U2]
INTS = SIGNED + UNSIGNED
COMPLEX = [C64, C128]

SHORT_NAME = {F16: "f16", BF16: "bf16", F32: "f32", F64: "f64", C64: "c64", C128: "c128",
              I8: "i8", I16: "i16", I32: "i32", I64: "i64",
              U8: "u8", U16: "u16", U32: "u32", U64: "u64", BOOL: "bool",
              I2: "i2", I4: "i4", U2: "u2", U4: "u4"}
MLIR_NAME = {F16: "f16", BF16: "bf16", F32: "f32", F64: "f64",
             C64: "complex<f32>", C128: "complex<f64>",
             I8: "i8", I16: "i16", I32: "i32", I64: "i64",
             U8: "ui8", U16: "ui16", U32: "ui32", U64: "ui64", BOOL: "i1",
             I2: "i2", I4: "i4", U2: "ui2", U4: "ui4"}
SHORT_NAME.update({dtype: dtype.name.replace("float", "f").replace("_", "") for dtype in SMALL_FLOATS})
MLIR_NAME.update({dtype: "f" + dtype.name.removeprefix("float").replace("_e", "E").upper() for dtype in SMALL_FLOATS})
# The unsigned integer type with the same storage size, to read a float's bits.
BITS_TYPE = {F16: U16, BF16: U16, F32: U32, F64: U64, **{dtype: U8 for dtype in SMALL_FLOATS}}


def without_narrow_ints(dtypes):
  return [dtype for dtype in dtypes if dtype not in NARROW_INTS]


def is_float(dtype) -> bool:
  return dtype in BITS_TYPE


def is_complex(dtype) -> bool:
  return dtype in (C64, C128)


def component_type(dtype):
  """The float type of a complex type's parts; the type itself otherwise."""
  return {C64: F32, C128: F64}.get(dtype, dtype)


def tensor_type(shape: Sequence[int], dtype) -> str:
  return "tensor<" + "".join(f"{d}x" for d in shape) + MLIR_NAME[np.dtype(dtype)] + ">"


# ===========================================================================
# Literals: every element written so that MLIR's parser gives back its bits.

def float_literal(x) -> str:
  dtype = np.dtype(type(x)) if not isinstance(x, np.ndarray) else x.dtype
  bits = np.array(x, dtype).view(BITS_TYPE[dtype]).item()
  if not np.isfinite(np.float64(x)):
    return f"0x{bits:0{dtype.itemsize * 2}X}"
  # The shortest decimal that converts back to the same value.
  for digits in range(1, 18):
    text = f"{float(x):.{digits}g}"
    if np.array(float(text), dtype).view(BITS_TYPE[dtype]).item() == bits:
      break
  text = repr(float(text))  # positional where that is short: 10.0, not 1e+01
  mantissa, _, exponent = text.partition("e")
  if "." not in mantissa:
    mantissa += ".0"  # MLIR reads a literal without '.' as an integer
  return mantissa + ("e" + exponent if exponent else "")


def element_literal(x, dtype) -> str:
  if dtype == BOOL:
    return "true" if x else "false"
  if is_complex(dtype):
    part = component_type(dtype).type
    return f"({float_literal(part(x.real))}, {float_literal(part(x.imag))})"
  if is_float(dtype):
    return float_literal(dtype.type(x))
  return str(int(x))


def dense_literal(array: np.ndarray) -> str:
  dtype = array.dtype
  if array.size == 0:
    return "dense<>"
  flat = [element_literal(x, dtype) for x in array.reshape(-1)]
  if array.ndim == 0 or len(set(flat)) == 1:
    return f"dense<{flat[0]}>"

  def nest(items: list[str], shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
      return "[" + ", ".join(items) + "]"
    step = len(items) // shape[0]
    return "[" + ", ".join(nest(items[i:i + step], shape[1:]) for i in range(0, len(items), step)) + "]"

  return f"dense<{nest(flat, array.shape)}>"


def constant_line(name: str, array: np.ndarray) -> str:
  return f"  {name} = stablehlo.constant {dense_literal(array)} : {tensor_type(array.shape, array.dtype)}"


def assert_literals_round_trip(parsed: ir.Module, arrays: Sequence[np.ndarray]) -> None:
  """Each array, made an attribute by MLIR itself, must print as part of the
  parsed module: then the literal we wrote parsed back to the same bits."""
  printed = str(parsed)
  for array in arrays:
    attr = jax_mlir._numpy_array_attribute(np.array(array, order="C"))  # keeps 0-d arrays 0-d
    if f"stablehlo.constant {attr}" not in printed:
      raise AssertionError(f"literal does not round-trip: {dense_literal(array)[:200]}")


# ===========================================================================
# Test inputs

def float_edges(dtype) -> np.ndarray:
  info = ml_dtypes.finfo(dtype)
  values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 10.0, math.pi, -math.pi / 2,
            float(info.max), -float(info.max), float(info.tiny), -float(info.tiny),
            float(info.smallest_subnormal), -float(info.smallest_subnormal),
            math.inf, -math.inf, math.nan]
  return np.array(values, dtype)


def int_edges(dtype) -> np.ndarray:
  info = ml_dtypes.iinfo(dtype)
  values = [0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.max // 2 + 1, -1, -2, -7, info.min, info.min + 1]
  in_range = [v for v in values if info.min <= v <= info.max]
  return np.array(list(dict.fromkeys(in_range)), dtype)  # unique, in order


def make_complex(real: np.ndarray, imag: np.ndarray, dtype) -> np.ndarray:
  """Assembles parts without arithmetic (1j * inf would make a NaN real part)."""
  z = np.empty(real.shape, dtype)
  z.real, z.imag = real, imag
  return z


def edges(dtype) -> np.ndarray:
  if dtype == BOOL:
    return np.array([False, True])
  if is_complex(dtype):
    parts = np.array([0.0, -0.0, 1.0, -2.5, 0.5, math.inf, -math.inf, math.nan], component_type(dtype))
    return make_complex(*pairs(parts, parts), dtype)
  return float_edges(dtype) if is_float(dtype) else int_edges(dtype)


def random_array(rng: np.random.Generator, shape, dtype, low=-4.0, high=4.0) -> np.ndarray:
  """Seeded values in [low, high) (integers clipped to the type's range)."""
  if dtype == BOOL:
    return rng.integers(0, 2, shape).astype(bool)
  if is_complex(dtype):
    part = component_type(dtype)
    return make_complex(random_array(rng, shape, part, low, high), random_array(rng, shape, part, low, high), dtype)
  if is_float(dtype):
    return rng.uniform(low, high, shape).astype(dtype)
  info = ml_dtypes.iinfo(dtype)
  return rng.integers(max(int(low), info.min), min(int(high), info.max) + 1, shape).astype(dtype)


def wide_array(rng: np.random.Generator, shape, dtype) -> np.ndarray:
  """Values of every magnitude: floats sign * 10**U(-8, 8) (overflowing to
  inf in narrow types), integers uniform over the whole range."""
  if dtype == BOOL:
    return random_array(rng, shape, dtype)
  if is_complex(dtype):
    part = component_type(dtype)
    return make_complex(wide_array(rng, shape, part), wide_array(rng, shape, part), dtype)
  if is_float(dtype):
    return (rng.choice([-1.0, 1.0], shape) * 10.0 ** rng.uniform(-8, 8, shape)).astype(dtype)
  info = ml_dtypes.iinfo(dtype)
  wide_enough = np.uint64 if info.min == 0 else np.int64
  return rng.integers(info.min, info.max, shape, dtype=wide_enough, endpoint=True).astype(dtype)


def pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """Every (a[i], b[j]) combination, as two flat arrays."""
  return np.repeat(a, len(b)), np.tile(b, len(a))


def seeded_rng(name: str) -> np.random.Generator:
  return np.random.default_rng(zlib.crc32(name.encode()))


# ===========================================================================
# Cases

EXACT, APPROX, ACCUMULATE = "exact", "approx", "accumulate"


@dataclasses.dataclass
class Case:
  """One test function: fn applied to args, checked against XLA's result."""
  name: str
  fn: Callable
  args: tuple
  # EXACT: XLA's float results are exact (IEEE arithmetic, data movement);
  # APPROX: elementwise functions XLA approximates (exp, sin, erf, ...);
  # ACCUMULATE: sums in an order the implementation chooses (reductions, dot,
  # convolution, FFT, factorizations).
  accuracy: str = EXACT
  # Elementwise cases have 1-D arguments of one length, so positions can be
  # dropped where XLA's flushing of subnormals changes the result.
  elementwise: bool = False
  # The body is lowered for this platform (TPU keeps linear algebra as
  # stablehlo ops where CPU calls LAPACK); the expectation still comes from CPU.
  platform: str = "cpu"
  note: str = ""


class Family:
  """Collects the cases of one file, tests/conformance/<key>.mlir."""

  def __init__(self, key: str):
    self.key = key
    self.cases: list[Case] = []

  def add(self, name: str, fn: Callable, *args, **options) -> None:
    self.cases.append(Case(sanitize(name), fn, tuple(np.asarray(a) for a in args), **options))

  def rng(self, name: str) -> np.random.Generator:
    return seeded_rng(f"{self.key}/{name}")


def sanitize(name: str) -> str:
  return re.sub(r"[^A-Za-z0-9_]", "_", name)


BUILDERS: dict[str, Callable[[Family], None]] = {}


def builds(key: str):
  def register(builder):
    BUILDERS[key] = builder
    return builder
  return register


# ---------------------------------------------------------------------------
# Elementwise operations

def elementwise_unary(f: Family, op: str, fn, dtypes, accuracy=EXACT, low=-4.0, high=4.0) -> None:
  for dtype in dtypes:
    t = SHORT_NAME[dtype]
    f.add(f"{op}_{t}_edges", fn, edges(dtype), accuracy=accuracy, elementwise=True)
    rng = f.rng(f"{op}_{t}")
    # Complex functions grow fast: keep their random inputs near the origin.
    bounds = (max(low, -2), min(high, 2)) if is_complex(dtype) else (low, high)
    f.add(f"{op}_{t}_3x4", fn, random_array(rng, (3, 4), dtype, *bounds), accuracy=accuracy)
    f.add(f"{op}_{t}_wide", fn, wide_array(rng, (12,), dtype), accuracy=accuracy, elementwise=True)
  f.add(f"{op}_{SHORT_NAME[dtypes[0]]}_scalar", fn, random_array(f.rng(op), (), dtypes[0], low, high),
        accuracy=accuracy)
  f.add(f"{op}_{SHORT_NAME[dtypes[0]]}_empty", fn, np.zeros((0, 3), dtypes[0]), accuracy=accuracy)


def elementwise_binary(f: Family, op: str, fn, dtypes, accuracy=EXACT, low=-4.0, high=4.0,
                       rhs_values=None) -> None:
  for dtype in dtypes:
    t = SHORT_NAME[dtype]
    values = edges(dtype)[::4] if is_complex(dtype) else edges(dtype)  # 16 complex values, not 64
    lhs, rhs = pairs(values, values if rhs_values is None else np.asarray(rhs_values(dtype), dtype))
    f.add(f"{op}_{t}_edges", fn, lhs, rhs, accuracy=accuracy, elementwise=True)
    rng = f.rng(f"{op}_{t}")
    f.add(f"{op}_{t}_2x5", fn, random_array(rng, (2, 5), dtype, low, high),
          random_array(rng, (2, 5), dtype, low, high), accuracy=accuracy)
    wide_rhs = wide_array(rng, (12,), dtype) if rhs_values is None else rng.choice(
        np.asarray(rhs_values(dtype), dtype), 12)
    f.add(f"{op}_{t}_wide", fn, wide_array(rng, (12,), dtype), wide_rhs, accuracy=accuracy, elementwise=True)
  dtype = dtypes[0]
  f.add(f"{op}_{SHORT_NAME[dtype]}_broadcast_scalar", lambda x, y: fn(x, jnp.broadcast_to(y, x.shape)),
        random_array(f.rng(op), (2, 3), dtype, low, high), random_array(f.rng(op), (), dtype, low, high),
        accuracy=accuracy)
  f.add(f"{op}_{SHORT_NAME[dtype]}_empty", fn, np.zeros((0, 3), dtype), np.zeros((0, 3), dtype), accuracy=accuracy)


UNARY_EXACT = {
    "abs": (lax.abs, FLOATS + without_narrow_ints(SIGNED) + COMPLEX),
    "negate": (lax.neg, FLOATS + INTS + COMPLEX),
    "sign": (lax.sign, FLOATS + SIGNED + UNSIGNED),
    "floor": (lax.floor, FLOATS),
    "ceil": (lax.ceil, FLOATS),
    "round_nearest_even": (lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), FLOATS),
    "round_nearest_afz": (lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), FLOATS),
    "sqrt": (lax.sqrt, FLOATS),
    "is_finite": (lax.is_finite, FLOATS),
    "not": (lax.bitwise_not, INTS + [BOOL]),
    "popcnt": (lax.population_count, INTS),
    "count_leading_zeros": (lax.clz, INTS),
    "real": (lax.real, COMPLEX),
    "imag": (lax.imag, COMPLEX),
    "conj": (lax.conj, COMPLEX),
    "square": (lax.square, FLOATS + SIGNED),
}

# name: (function, dtypes, low, high) -- the random inputs stay in the domain.
UNARY_APPROX = {
    "exponential": (lax.exp, FLOATS + COMPLEX, -10, 10),
    "exponential_minus_one": (lax.expm1, FLOATS, -3, 3),
    "log": (lax.log, FLOATS + COMPLEX, 0.01, 100),
    "log_plus_one": (lax.log1p, FLOATS, -0.9, 3),
    "logistic": (lax.logistic, FLOATS, -10, 10),
    "rsqrt": (lax.rsqrt, FLOATS, 0.01, 100),
    "cbrt": (lax.cbrt, FLOATS, -100, 100),
    "sine": (lax.sin, FLOATS + COMPLEX, -10, 10),
    "cosine": (lax.cos, FLOATS + COMPLEX, -10, 10),
    "tan": (lax.tan, FLOATS, -1.5, 1.5),
    "tanh": (lax.tanh, FLOATS + COMPLEX, -5, 5),
    "atan": (lax.atan, FLOATS, -10, 10),
    "asin": (lax.asin, FLOATS, -1, 1),
    "acos": (lax.acos, FLOATS, -1, 1),
    "sinh": (lax.sinh, FLOATS, -5, 5),
    "cosh": (lax.cosh, FLOATS, -5, 5),
    "asinh": (lax.asinh, FLOATS, -10, 10),
    "acosh": (lax.acosh, FLOATS, 1, 10),
    "atanh": (lax.atanh, FLOATS, -0.99, 0.99),
    "erf": (lax.erf, FLOATS, -3, 3),
    "erfc": (lax.erfc, [F32, F64], -3, 3),
    "erf_inv": (lax.erf_inv, [F32, F64], -0.99, 0.99),
    "lgamma": (lax.lgamma, [F32, F64], 0.1, 10),
    "digamma": (lax.digamma, [F32, F64], 0.1, 10),
}

for _op, (_fn, _dtypes) in UNARY_EXACT.items():
  builds(f"elementwise_unary/{_op}")(
      lambda f, fn=_fn, dtypes=_dtypes, op=_op: elementwise_unary(f, op, fn, dtypes))

for _op, (_fn, _dtypes, _low, _high) in UNARY_APPROX.items():
  builds(f"elementwise_unary/{_op}")(
      lambda f, fn=_fn, dtypes=_dtypes, op=_op, low=_low, high=_high:
      elementwise_unary(f, op, fn, dtypes, APPROX, low, high))


@builds("elementwise_unary/reduce_precision")
def _reduce_precision(f: Family) -> None:
  for exponent_bits, mantissa_bits in ((5, 10), (8, 7), (4, 3), (5, 2), (11, 52)):
    fn = lambda x, e=exponent_bits, m=mantissa_bits: lax.reduce_precision(x, e, m)
    for dtype in (F32, F64):
      t = SHORT_NAME[dtype]
      values = np.concatenate([edges(dtype), random_array(f.rng(t), (16,), dtype, -1e5, 1e5),
                               np.array([65504, 65520, 1e-5, 6e-8, 3e38, 1.0000001, 2.9e-39], dtype)])
      f.add(f"reduce_precision_e{exponent_bits}m{mantissa_bits}_{t}", fn, values, elementwise=True)


def shift_amounts(dtype) -> list[int]:
  info = ml_dtypes.iinfo(dtype)
  amounts = [0, 1, 3, info.bits - 1, info.bits, info.bits + 1, 2 * info.bits, -1 if info.min < 0 else info.max]
  return [a for a in dict.fromkeys(amounts) if info.min <= a <= info.max]


def nonzero_edges(dtype) -> np.ndarray:
  values = edges(dtype)
  return values[values != 0]


BINARY = {
    # name: (function, dtypes, accuracy, low, high)
    "add": (lax.add, FLOATS + INTS + COMPLEX, EXACT, -4, 4),
    "subtract": (lax.sub, FLOATS + INTS + COMPLEX, EXACT, -4, 4),
    "multiply": (lax.mul, FLOATS + INTS + COMPLEX, EXACT, -4, 4),
    "divide": (lax.div, FLOATS + INTS + COMPLEX, EXACT, -4, 4),
    "remainder": (lax.rem, FLOATS + INTS, EXACT, -20, 20),
    "maximum": (lax.max, FLOATS + INTS + [BOOL], EXACT, -4, 4),
    "minimum": (lax.min, FLOATS + INTS + [BOOL], EXACT, -4, 4),
    "power": (lax.pow, FLOATS, APPROX, 0.1, 3),
    "atan2": (lax.atan2, FLOATS, APPROX, -4, 4),
    "and": (lax.bitwise_and, INTS + [BOOL], EXACT, -100, 100),
    "or": (lax.bitwise_or, INTS + [BOOL], EXACT, -100, 100),
    "xor": (lax.bitwise_xor, INTS + [BOOL], EXACT, -100, 100),
    "next_after": (lax.nextafter, FLOATS, EXACT, -4, 4),
}

for _op, (_fn, _dtypes, _accuracy, _low, _high) in BINARY.items():
  builds(f"elementwise_binary/{_op}")(
      lambda f, fn=_fn, dtypes=_dtypes, op=_op, acc=_accuracy, low=_low, high=_high:
      elementwise_binary(f, op, fn, dtypes, acc, low, high))

for _op, _fn in (("shift_left", lax.shift_left), ("shift_right_arithmetic", lax.shift_right_arithmetic),
                 ("shift_right_logical", lax.shift_right_logical)):
  builds(f"elementwise_binary/{_op}")(
      lambda f, fn=_fn, op=_op: elementwise_binary(f, op, fn, INTS, EXACT, -100, 100, rhs_values=shift_amounts))


@builds("elementwise_binary/integer_pow")
def _integer_pow(f: Family) -> None:
  # x ** n for a static integer n: JAX multiplies (and divides for n < 0).
  for dtype in (F32, F64, F16, I32, I64, U8):
    for n in (0, 2, 3, 5, -2) if is_float(dtype) else (0, 2, 3, 5):
      f.add(f"integer_pow_{n}_{SHORT_NAME[dtype]}".replace("-", "m"), lambda x, n=n: lax.integer_pow(x, n),
            edges(dtype), elementwise=True)


@builds("elementwise_binary/complex")
def _complex(f: Family) -> None:
  for dtype in (F32, F64):
    lhs, rhs = pairs(edges(dtype)[::2], edges(dtype)[1::2])
    f.add(f"complex_{SHORT_NAME[dtype]}", lax.complex, lhs, rhs, elementwise=True)


COMPARISONS = {"eq": lax.eq, "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge}


def compare_builder(direction: str, fn) -> Callable[[Family], None]:
  def build(f: Family) -> None:
    for dtype in FLOATS + INTS + [BOOL]:
      lhs, rhs = pairs(edges(dtype), edges(dtype))
      f.add(f"compare_{direction}_{SHORT_NAME[dtype]}", fn, lhs, rhs, elementwise=True)
      rng = f.rng(SHORT_NAME[dtype])
      f.add(f"compare_{direction}_{SHORT_NAME[dtype]}_wide", fn, wide_array(rng, (12,), dtype),
            wide_array(rng, (12,), dtype), elementwise=True)
    if direction in ("eq", "ne"):  # the only directions defined on complex numbers
      for dtype in COMPLEX:
        lhs, rhs = pairs(edges(dtype)[::3], edges(dtype)[::5])
        f.add(f"compare_{direction}_{SHORT_NAME[dtype]}", fn, lhs, rhs, elementwise=True)
  return build


for _direction, _fn in {"eq": lax.eq, "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge}.items():
  builds(f"compare/{_direction}")(compare_builder(_direction, _fn))


@builds("elementwise_binary/select")
def _select(f: Family) -> None:
  for dtype in FLOATS + INTS + [BOOL, C64]:
    rng = f.rng(SHORT_NAME[dtype])
    pred = random_array(rng, (3, 4), BOOL)
    f.add(f"select_{SHORT_NAME[dtype]}", lax.select, pred, random_array(rng, (3, 4), dtype),
          random_array(rng, (3, 4), dtype))
  rng = f.rng("scalar_pred")
  f.add("select_scalar_pred_f32", jnp.where,
        np.bool_(True), random_array(rng, (2, 3), F32), random_array(rng, (2, 3), F32))
  f.add("select_f32_empty", lax.select, np.zeros((0, 2), bool), np.zeros((0, 2), F32), np.zeros((0, 2), F32))


@builds("elementwise_binary/clamp")
def _clamp(f: Family) -> None:
  for dtype in FLOATS + INTS:
    values = edges(dtype)
    f.add(f"clamp_scalar_bounds_{SHORT_NAME[dtype]}", lambda x, t=dtype.type: lax.clamp(t(1), x, t(7)),
          values, elementwise=True)
    rng = f.rng(SHORT_NAME[dtype])
    low, high = random_array(rng, (8,), dtype, -4, 0), random_array(rng, (8,), dtype, 0, 4)
    f.add(f"clamp_tensor_bounds_{SHORT_NAME[dtype]}", lax.clamp, low, random_array(rng, (8,), dtype, -8, 8), high)


# ---------------------------------------------------------------------------
# Conversions

CONVERT_TYPES = FLOATS + INTS + [BOOL] + COMPLEX


def convert_inputs(dtype, rng) -> np.ndarray:
  extra = random_array(rng, (8,), dtype, -300, 300)
  if is_float(dtype):  # values near the integer types' limits and rounding ties
    near = np.array([127.5, 128.0, -128.5, 255.5, 256.0, 32767.5, 65535.0, 65536.0, 2.5, -2.5, 0.49999997,
                     2147483520.0, 2147483648.0, -2147483904.0, 4294967296.0, 9.3e18, 1.8e19, 1e20, 65519.0,
                     65520.0, 3.4e38, 1e-8, 1e-40, 1e-310], np.float64)
    extra = np.concatenate([extra, near.astype(dtype)])
  return np.concatenate([edges(dtype), extra])


def convert_builder(source) -> Callable[[Family], None]:
  def build(f: Family) -> None:
    values = convert_inputs(source, f.rng("inputs"))
    wide = wide_array(f.rng("wide"), (16,), source)
    for target in CONVERT_TYPES:
      if target == source or (is_complex(source) and not is_complex(target)):
        continue  # complex -> real is not a conversion JAX lowers to convert
      convert = lambda x, t=target: lax.convert_element_type(x, t)
      f.add(f"convert_{SHORT_NAME[source]}_to_{SHORT_NAME[target]}", convert, values, elementwise=True)
      f.add(f"convert_{SHORT_NAME[source]}_to_{SHORT_NAME[target]}_wide", convert, wide, elementwise=True)
  return build


for _source in CONVERT_TYPES:
  builds(f"convert/convert_from_{SHORT_NAME[_source]}")(convert_builder(_source))


def small_float_builder(small) -> Callable[[Family], None]:
  """Decoding every bit pattern of a small float type, and encoding values at,
  between and just beside its representable numbers (rounding ties, overflow)."""
  def build(f: Family) -> None:
    t = SHORT_NAME[small]
    every_value = np.arange(2 ** ml_dtypes.finfo(small).bits, dtype=np.uint8).view(small)
    for target in (F32, F16, BF16):
      f.add(f"convert_{t}_to_{SHORT_NAME[target]}_every_value",
            lambda x, d=target: lax.convert_element_type(x, d), every_value, elementwise=True)
    finite = np.unique(every_value[np.isfinite(every_value.astype(F64))].astype(F64))
    midpoints = ((finite[:-1] + finite[1:]) / 2).astype(F32)
    beyond = np.array([finite[-1] * 1.0625, finite[-1] * 2, finite[0] * 2, finite[-1] + 1], F32)
    encode = np.concatenate([edges(F32), midpoints, np.nextafter(midpoints, F32.type(np.inf)),
                             np.nextafter(midpoints, F32.type(-np.inf)), beyond, wide_array(f.rng(t), (16,), F32)])
    for source in (F32, F64, F16, BF16):
      f.add(f"convert_{SHORT_NAME[source]}_to_{t}", lambda x: lax.convert_element_type(x, small),
            encode.astype(source), elementwise=True)
  return build


for _small in SMALL_FLOATS:
  builds(f"convert/convert_{SHORT_NAME[_small]}")(small_float_builder(_small))


@builds("convert/bitcast_convert")
def _bitcast_convert(f: Family) -> None:
  types = [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64]
  for source in types:
    values = edges(source)
    for target in types:
      if target == source:
        continue
      ratio = source.itemsize / target.itemsize
      shaped = values
      if ratio < 1:  # narrower source: the last dimension is packed into one wider element
        count = int(1 / ratio)
        shaped = np.resize(values, (len(values) // count + 1) * count).reshape(-1, count)
      f.add(f"bitcast_{SHORT_NAME[source]}_to_{SHORT_NAME[target]}",
            lambda x, t=target: lax.bitcast_convert_type(x, t), shaped)


# ---------------------------------------------------------------------------
# Data movement

MOVE_TYPES = [F32, F64, F16, BF16, I8, I32, I64, U8, U32, BOOL, C64]


def each_move_type(f: Family, shape) -> Iterator[tuple[str, np.ndarray, np.random.Generator]]:
  for dtype in MOVE_TYPES:
    rng = f.rng(SHORT_NAME[dtype])
    yield SHORT_NAME[dtype], random_array(rng, shape, dtype, -100, 100), rng


@builds("data_movement/broadcast_in_dim")
def _broadcast(f: Family) -> None:
  for t, x, _ in each_move_type(f, (3, 1)):
    f.add(f"broadcast_in_dim_{t}", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), x)
  x = random_array(f.rng("s"), (), F32)
  f.add("broadcast_in_dim_scalar_f32", lambda x: lax.broadcast_in_dim(x, (2, 2), ()), x)
  f.add("broadcast_in_dim_transposing_f32", lambda x: lax.broadcast_in_dim(x, (2, 4, 3), (2, 0)),
        random_array(f.rng("t"), (3, 2), F32))
  f.add("broadcast_in_dim_to_empty_f32", lambda x: lax.broadcast_in_dim(x, (0, 3), (1,)),
        random_array(f.rng("e"), (3,), F32))


@builds("data_movement/reshape")
def _reshape(f: Family) -> None:
  for t, x, _ in each_move_type(f, (2, 3, 4)):
    f.add(f"reshape_{t}", lambda x: x.reshape(4, 6), x)
    f.add(f"reshape_to_rank1_{t}", lambda x: x.reshape(24), x)
  f.add("reshape_scalar_f32", lambda x: x.reshape(1, 1), random_array(f.rng("s"), (), F32))
  f.add("reshape_empty_f32", lambda x: x.reshape(3, 0, 2), np.zeros((0, 6), F32))


@builds("data_movement/transpose")
def _transpose(f: Family) -> None:
  for t, x, _ in each_move_type(f, (2, 3, 4)):
    for perm in ((1, 0, 2), (2, 0, 1), (0, 2, 1), (2, 1, 0)):
      f.add(f"transpose_{''.join(map(str, perm))}_{t}", lambda x, p=perm: lax.transpose(x, p), x)
  f.add("transpose_empty_f32", lambda x: lax.transpose(x, (1, 0)), np.zeros((0, 3), F32))


@builds("data_movement/slice")
def _slice(f: Family) -> None:
  for t, x, _ in each_move_type(f, (5, 6)):
    f.add(f"slice_{t}", lambda x: lax.slice(x, (1, 2), (4, 6)), x)
    f.add(f"slice_strided_{t}", lambda x: lax.slice(x, (0, 1), (5, 6), (2, 3)), x)
  x = random_array(f.rng("f32"), (5, 6), F32)
  f.add("slice_empty_result_f32", lambda x: lax.slice(x, (2, 0), (2, 6)), x)
  f.add("slice_numpy_negative_step_f32", lambda x: x[::-2, 4:1:-1], x)


@builds("data_movement/dynamic_slice")
def _dynamic_slice(f: Family) -> None:
  # Start indices are clamped so the slice stays inside the operand.
  starts = [(0, 0), (1, 2), (3, 4), (4, 5), (-1, 2), (100, -100), (2**31 - 1, 1)]
  for t, x, _ in each_move_type(f, (5, 6)):
    for i, j in starts:
      name = f"dynamic_slice_{t}_at_{i}_{j}".replace("-", "m")
      f.add(name, lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)), x, np.int32(i), np.int32(j))
  x = random_array(f.rng("u"), (5, 6), F32)
  f.add("dynamic_slice_u8_index", lambda x, i: lax.dynamic_slice(x, (i, i), (2, 3)), x, np.uint8(200))
  f.add("dynamic_slice_i64_index", lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 3)), x, np.int64(-(2**40)))


@builds("data_movement/dynamic_update_slice")
def _dynamic_update_slice(f: Family) -> None:
  starts = [(0, 0), (1, 2), (4, 5), (-1, 2), (100, -100)]
  for t, x, rng in each_move_type(f, (5, 6)):
    update = random_array(rng, (2, 3), x.dtype, -100, 100)
    for i, j in starts:
      name = f"dynamic_update_slice_{t}_at_{i}_{j}".replace("-", "m")
      f.add(name, lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)), x, update, np.int32(i), np.int32(j))
  x = random_array(f.rng("e"), (5, 6), F32)
  f.add("dynamic_update_slice_empty_update_f32", lambda x, u, i: lax.dynamic_update_slice(x, u, (i, i)),
        x, np.zeros((0, 3), F32), np.int32(2))


@builds("data_movement/concatenate")
def _concatenate(f: Family) -> None:
  for t, x, rng in each_move_type(f, (2, 3)):
    y = random_array(rng, (2, 1), x.dtype, -100, 100)
    z = random_array(rng, (4, 3), x.dtype, -100, 100)
    f.add(f"concatenate_dim1_{t}", lambda x, y: lax.concatenate([x, y, x], 1), x, y)
    f.add(f"concatenate_dim0_{t}", lambda x, z: lax.concatenate([z, x], 0), x, z)
  x = random_array(f.rng("e"), (2, 3), F32)
  f.add("concatenate_with_empty_f32", lambda x, e: lax.concatenate([e, x, e], 0), x, np.zeros((0, 3), F32))


@builds("data_movement/pad")
def _pad(f: Family) -> None:
  configs = {"edge": ((1, 2, 0), (0, 1, 0)), "interior": ((0, 0, 1), (1, 1, 2)),
             "negative": ((-1, 1, 0), (2, -2, 0)), "negative_interior": ((-2, -1, 2), (-1, 3, 1)),
             "everything_cut": ((-3, 0, 0), (0, 0, 0))}
  for t, x, rng in each_move_type(f, (3, 4)):
    value = random_array(rng, (), x.dtype, -100, 100)
    for name, config in configs.items():
      f.add(f"pad_{name}_{t}", lambda x, v, c=config: lax.pad(x, v, c), x, value)
  f.add("pad_empty_operand_f32", lambda x, v: lax.pad(x, v, ((1, 1, 0), (0, 0, 3))), np.zeros((0, 2), F32),
        np.float32(7))


@builds("data_movement/reverse")
def _reverse(f: Family) -> None:
  for t, x, _ in each_move_type(f, (2, 3, 4)):
    for dims in ((0,), (2,), (0, 1, 2)):
      f.add(f"reverse_{''.join(map(str, dims))}_{t}", lambda x, d=dims: lax.rev(x, d), x)
  f.add("reverse_empty_f32", lambda x: lax.rev(x, (0, 1)), np.zeros((0, 4), F32))


@builds("data_movement/iota")
def _iota(f: Family) -> None:
  # iota has no operands: the argument only makes the case a function of inputs.
  for dtype in FLOATS + INTS:
    for dim in (0, 1):
      f.add(f"iota_dim{dim}_{SHORT_NAME[dtype]}",
            lambda x, d=dim, t=dtype: lax.broadcasted_iota(t, (3, 5), d) + x, np.zeros((), dtype))
  f.add("iota_u8_wraps", lambda x: lax.iota(U8, 300) + x, np.uint8(0))
  f.add("iota_bf16_inexact", lambda x: lax.iota(BF16, 300) + x, np.zeros((), BF16))


@builds("data_movement/gather")
def _gather(f: Family) -> None:
  for t, x, rng in each_move_type(f, (6, 5)):
    idx = np.array([0, 5, 2, -1, 7, -9], I32)  # jnp wraps negatives, clamps others under jit
    f.add(f"gather_take_rows_{t}", lambda x, i: x[i], x, idx)
    f.add(f"gather_take_columns_{t}", lambda x, i: x[:, i], x, idx[:3])
    f.add(f"gather_points_{t}", lambda x, i, j: x[i, j], x, idx, np.array([0, 4, 1, 1, 3, 2], I32))
  x = random_array(f.rng("g"), (4, 5, 6), F32)
  f.add("gather_take_along_axis_f32", lambda x, i: jnp.take_along_axis(x, i, axis=2), x,
        f.rng("i").integers(0, 6, (4, 5, 2)).astype(I32))
  f.add("gather_fill_mode_f32", lambda x, i: jnp.take(x, i, axis=1, mode="fill", fill_value=-1.0), x,
        np.array([1, 9, -1, 4], I32))
  f.add("gather_slices_f32", lambda x, i: lax.gather(
      x, i, lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(0,), start_index_map=(0, 1)),
      (1, 2, 3), mode=lax.GatherScatterMode.CLIP), x, np.array([[0, 0], [3, 4], [2, 1]], I32))
  f.add("gather_batching_dims_f32", lambda x, i: lax.gather(
      x, i, lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1,),
                                       operand_batching_dims=(0,), start_indices_batching_dims=(0,)),
      (1, 1, 6), mode=lax.GatherScatterMode.CLIP), x, np.array([[1], [0], [4], [2]], I32))
  f.add("gather_empty_indices_f32", lambda x, i: x[i], x, np.zeros((0,), I32))


SCATTER_KINDS = {"set": lambda r, i, u: r.at[i].set(u), "add": lambda r, i, u: r.at[i].add(u),
                 "mul": lambda r, i, u: r.at[i].multiply(u), "min": lambda r, i, u: r.at[i].min(u),
                 "max": lambda r, i, u: r.at[i].max(u)}


@builds("data_movement/scatter")
def _scatter(f: Family) -> None:
  # Repeated indices: add/mul/min/max combine them; set keeps one in an
  # unspecified order, so its cases use distinct indices.
  for kind, fn in SCATTER_KINDS.items():
    for dtype in (F32, F64, I32, U8, BF16, BOOL) if kind in ("set", "max", "min") else (F32, F64, I32, U8, BF16):
      rng = f.rng(f"{kind}_{SHORT_NAME[dtype]}")
      x = random_array(rng, (6, 3), dtype, -10, 10)
      idx = np.array([4, 0, 2], I32) if kind == "set" else np.array([4, 0, 4, 2, 0, 4], I32)
      updates = random_array(rng, (len(idx), 3), dtype, -10, 10)
      f.add(f"scatter_{kind}_rows_{SHORT_NAME[dtype]}", fn, x, idx, updates)
    x = random_array(f.rng(kind), (4, 5), F32)
    f.add(f"scatter_{kind}_points_f32", lambda x, i, j, u, fn=fn: fn(x, (i, j), u), x,
          np.array([0, 3, 1], I32), np.array([4, 0, 1], I32), np.array([1.5, -2.0, 3.0], F32))
    f.add(f"scatter_{kind}_out_of_bounds_dropped_f32", lambda x, i, u, fn=fn: fn(x, i, u), x,
          np.array([1, 7, -9], I32), random_array(f.rng(kind + "oob"), (3, 5), F32))
  x = random_array(f.rng("columns"), (4, 5), F32)
  f.add("scatter_add_columns_f32", lambda x, i, u: x.at[:, i].add(u), x, np.array([1, 3, 1], I32),
        random_array(f.rng("cu"), (4, 3), F32))
  f.add("scatter_add_grad_of_gather_f32", jax.grad(lambda x, i: jnp.sum(jnp.sin(x[i]))), x,
        np.array([0, 2, 2, 3, 0], I32))
  f.add("scatter_batching_dims_f32", lambda x, i, u: lax.scatter_add(
      x, i, u, lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(1,),
                                           scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                                           scatter_indices_batching_dims=(0,)),
      mode=lax.GatherScatterMode.CLIP), random_array(f.rng("b"), (3, 4, 2), F32),
      np.array([[1], [0], [3]], I32), random_array(f.rng("bu"), (3, 2), F32))


# ---------------------------------------------------------------------------
# Reductions

REDUCERS = {
    "sum": (jnp.sum, FLOATS + without_narrow_ints(INTS) + [C64]),
    "prod": (jnp.prod, [F32, F64, I32, U8, C64]),
    "max": (jnp.max, FLOATS + INTS + [BOOL]),
    "min": (jnp.min, FLOATS + INTS + [BOOL]),
    "all": (jnp.all, [BOOL]),
    "any": (jnp.any, [BOOL]),
    "argmax": (jnp.argmax, [F32, F64, BF16, I32, U8]),
    "argmin": (jnp.argmin, [F32, F64, F16, I8, U32]),
}


@builds("reduce/reduce")
def _reduce(f: Family) -> None:
  for name, (fn, dtypes) in REDUCERS.items():
    for dtype in dtypes:
      t = SHORT_NAME[dtype]
      rng = f.rng(f"{name}_{t}")
      x = random_array(rng, (4, 6), dtype, -3, 3)
      # Float sums are reassociated by XLA: approximate for floats.
      accuracy = ACCUMULATE if name in ("sum", "prod") and (is_float(dtype) or is_complex(dtype)) else EXACT
      for axis in (0, 1, None):
        if name.startswith("arg") and axis is None:
          continue
        f.add(f"reduce_{name}_axis{'all' if axis is None else axis}_{t}",
              lambda x, a=axis, fn=fn: fn(x, axis=a), x, accuracy=accuracy)
    if dtypes[0] != BOOL:
      special = edges(dtypes[0])[None, :].repeat(2, axis=0)
      f.add(f"reduce_{name}_edges_{SHORT_NAME[dtypes[0]]}", lambda x, fn=fn: fn(x, axis=1), special)
  for dtype in (F32, I32, U8):
    x = random_array(f.rng(f"3d{SHORT_NAME[dtype]}"), (2, 3, 4), dtype, -3, 3)
    for name in ("sum", "max", "min"):
      f.add(f"reduce_{name}_axes02_{SHORT_NAME[dtype]}", lambda x, fn=REDUCERS[name][0]: fn(x, axis=(0, 2)), x,
            accuracy=ACCUMULATE if name == "sum" and is_float(dtype) else EXACT)
  f.add("reduce_sum_empty_f32", lambda x: jnp.sum(x, axis=0), np.zeros((0, 3), F32))
  f.add("reduce_max_empty_f32", lambda x: jnp.max(x, axis=0, initial=-np.inf), np.zeros((0, 3), F32))
  f.add("reduce_multi_output_variadic_f32", lambda x, y: lax.reduce(
      (x, y), (np.float32(0), np.int32(0)), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,)),
      random_array(f.rng("v"), (3, 4), F32), random_array(f.rng("w"), (3, 4), I32, 1, 3))


@builds("reduce/reduce_window")
def _reduce_window(f: Family) -> None:
  configs = {
      "valid": dict(window=(2, 2), strides=(1, 1), padding="VALID"),
      "strided": dict(window=(2, 3), strides=(2, 2), padding="VALID"),
      "same": dict(window=(3, 3), strides=(1, 1), padding="SAME"),
      "padded": dict(window=(2, 2), strides=(2, 1), padding=((1, 2), (0, 1))),
      "window_dilation": dict(window=(2, 2), strides=(1, 1), padding="VALID", window_dilation=(2, 2)),
      "base_dilation": dict(window=(2, 2), strides=(1, 1), padding="VALID", base_dilation=(2, 1)),
      "all_dilations": dict(window=(2, 3), strides=(2, 1), padding=((1, 0), (2, 1)), base_dilation=(1, 2),
                            window_dilation=(2, 1)),
  }
  ops = {"sum": (lax.add, 0), "max": (lax.max, -np.inf), "min": (lax.min, np.inf)}
  for dtype in (F32, F64, BF16, I32):
    t = SHORT_NAME[dtype]
    x = random_array(f.rng(t), (5, 6), dtype, -10, 10)
    for op_name, (op, init) in ops.items():
      if dtype == I32 and op_name != "sum":
        init = ml_dtypes.iinfo(I32).min if op_name == "max" else ml_dtypes.iinfo(I32).max
      for config_name, config in configs.items():
        def fn(x, op=op, init=init, c=config, dtype=dtype):
          return lax.reduce_window(x, np.array(init, dtype), op, c["window"], c["strides"], c["padding"],
                                   c.get("base_dilation"), c.get("window_dilation"))
        f.add(f"reduce_window_{op_name}_{config_name}_{t}", fn, x,
              accuracy=ACCUMULATE if op_name == "sum" and is_float(dtype) else EXACT)


@builds("reduce/select_and_scatter")
def _select_and_scatter(f: Family) -> None:
  # jax.grad of a max-pool transposes select_and_gather to select_and_scatter.
  configs = {"2x2_stride2": ((2, 2), (2, 2), "VALID"), "3x3_stride1_same": ((3, 3), (1, 1), "SAME"),
             "2x3_stride_1x2": ((2, 3), (1, 2), ((1, 0), (0, 1)))}
  for dtype in (F32, F64, BF16):
    x = random_array(f.rng(SHORT_NAME[dtype]), (6, 7), dtype, -10, 10)
    for name, (window, strides, padding) in configs.items():
      for pool in ("max", "min"):
        op, init = (lax.max, -np.inf) if pool == "max" else (lax.min, np.inf)
        pooled = lambda x, op=op, init=init, w=window, s=strides, p=padding: lax.reduce_window(
            x, np.array(init, x.dtype), op, w, s, p)
        f.add(f"select_and_scatter_{pool}_pool_grad_{name}_{SHORT_NAME[dtype]}",
              lambda x, pooled=pooled: jax.vjp(pooled, x)[1](jnp.ones_like(pooled(x)) * 1.5)[0], x)


@builds("reduce/cumulative")
def _cumulative(f: Family) -> None:
  ops = {"cumsum": (lax.cumsum, [F32, F64, I32, U8]), "cumprod": (lax.cumprod, [F32, I32]),
         "cummax": (lax.cummax, [F32, I32, U32]), "cummin": (lax.cummin, [F64, I8]),
         "cumlogsumexp": (lax.cumlogsumexp, [F32])}
  for name, (fn, dtypes) in ops.items():
    for dtype in dtypes:
      x = random_array(f.rng(f"{name}{SHORT_NAME[dtype]}"), (4, 7), dtype, -3, 3)
      accuracy = ACCUMULATE if is_float(dtype) and name != "cummax" and name != "cummin" else EXACT
      for axis in (0, 1):
        for reverse in (False, True):
          f.add(f"{name}_axis{axis}{'_reverse' if reverse else ''}_{SHORT_NAME[dtype]}",
                lambda x, a=axis, r=reverse, fn=fn: fn(x, axis=a, reverse=r), x, accuracy=accuracy)


# ---------------------------------------------------------------------------
# Sorting

@builds("sort/sort")
def _sort(f: Family) -> None:
  for dtype in FLOATS + INTS + [BOOL]:
    t = SHORT_NAME[dtype]
    values = np.concatenate([edges(dtype), edges(dtype)[::-1]])  # duplicates, NaN, -0.0 and 0.0
    f.add(f"sort_edges_{t}", jnp.sort, values)
    x = random_array(f.rng(t), (3, 8), dtype, -5, 5)
    f.add(f"sort_axis0_{t}", lambda x: jnp.sort(x, axis=0), x)
    f.add(f"sort_descending_{t}", lambda x: jnp.sort(x, axis=1, descending=True), x)
    if dtype not in (I2, U2):  # XLA:CPU fails to compile these ("Inputs must have the same shape")
      f.add(f"argsort_stable_{t}", lambda x: jnp.argsort(x, axis=1, stable=True), x)
  rng = f.rng("multi")
  keys = rng.integers(0, 3, (10,)).astype(I32)
  f.add("sort_two_operands_stable_i32_f32", lambda k, v: lax.sort((k, v), num_keys=1, is_stable=True),
        keys, random_array(rng, (10,), F32))
  f.add("sort_two_keys_i32_i32_u8", lambda a, b, c: lax.sort((a, b, c), num_keys=2, is_stable=True),
        keys, rng.integers(0, 3, (10,)).astype(I32), np.arange(10, dtype=U8))
  f.add("sort_empty_f32", lambda x: jnp.sort(x, axis=0), np.zeros((0, 3), F32))
  f.add("sort_complex_c64", jnp.sort, random_array(rng, (8,), C64).round())


@builds("sort/top_k")
def _top_k(f: Family) -> None:
  for dtype in (F32, F64, BF16, I32, U8):
    x = random_array(f.rng(SHORT_NAME[dtype]), (3, 10), dtype, -5, 5)  # ties among integers
    for k in (1, 3, 10):
      f.add(f"top_k_{k}_{SHORT_NAME[dtype]}", lambda x, k=k: lax.top_k(x, k), x)
  f.add("top_k_edges_f32", lambda x: lax.top_k(x, 8), edges(F32))


# ---------------------------------------------------------------------------
# Linear algebra

@builds("linalg/dot_general")
def _dot_general(f: Family) -> None:
  shapes = {
      "vector_dot": ((7,), (7,), (((0,), (0,)), ((), ()))),
      "matvec": ((3, 7), (7,), (((1,), (0,)), ((), ()))),
      "matmul": ((3, 5), (5, 4), (((1,), (0,)), ((), ()))),
      "matmul_transposed_lhs": ((5, 3), (5, 4), (((0,), (0,)), ((), ()))),
      "batched": ((2, 3, 5), (2, 5, 4), (((2,), (1,)), ((0,), (0,)))),
      "batch_not_leading": ((3, 2, 5), (5, 4, 2), (((2,), (0,)), ((1,), (2,)))),
      "two_contracting": ((2, 3, 4), (3, 4, 5), (((1, 2), (0, 1)), ((), ()))),
      "outer": ((3,), (4,), (((), ()), ((), ()))),
      "empty_contraction": ((3, 0), (0, 2), (((1,), (0,)), ((), ()))),
  }
  for dtype in (F32, F64, F16, BF16, I32, I8, U8, C64):
    exact = not (is_float(dtype) or is_complex(dtype))
    for name, (lhs_shape, rhs_shape, dims) in shapes.items():
      rng = f.rng(f"{name}{SHORT_NAME[dtype]}")
      f.add(f"dot_general_{name}_{SHORT_NAME[dtype]}", lambda a, b, d=dims: lax.dot_general(a, b, d),
            random_array(rng, lhs_shape, dtype, -3, 3), random_array(rng, rhs_shape, dtype, -3, 3),
            accuracy=EXACT if exact else ACCUMULATE)
  mixed = {"bf16_to_f32": (BF16, F32), "f16_to_f32": (F16, F32), "i8_to_i32": (I8, I32), "f32_to_f64": (F32, F64),
           "u8_to_i32": (U8, I32)}
  for name, (source, target) in mixed.items():
    rng = f.rng(name)
    f.add(f"dot_general_preferred_{name}", lambda a, b, t=target: lax.dot_general(
        a, b, (((1,), (0,)), ((), ())), preferred_element_type=t),
        random_array(rng, (4, 16), source, -100, 100), random_array(rng, (16, 3), source, -100, 100),
        accuracy=EXACT if target in INTS else ACCUMULATE)
  rng = f.rng("precision")
  f.add("dot_general_precision_highest_f32", lambda a, b: lax.dot(a, b, precision=lax.Precision.HIGHEST),
        random_array(rng, (3, 4), F32), random_array(rng, (4, 2), F32), accuracy=ACCUMULATE)
  f.add("dot_general_edges_f32", lambda a, b: lax.dot(a, b), np.array([[np.inf, 1.0], [np.nan, 0.0], [-0.0, -0.0]],
        F32), np.array([[0.0, 1.0], [1.0, np.inf]], F32))


@builds("linalg/convolution")
def _convolution(f: Family) -> None:
  configs = {
      # name: (lhs shape, rhs shape, keyword arguments of conv_general_dilated)
      "1d_valid": ((2, 3, 9), (4, 3, 3), dict(window_strides=(1,), padding="VALID")),
      "1d_same_strided": ((2, 3, 9), (4, 3, 3), dict(window_strides=(2,), padding="SAME")),
      "2d_nchw": ((2, 3, 6, 7), (4, 3, 3, 2), dict(window_strides=(1, 1), padding=((1, 1), (0, 2)))),
      "2d_nhwc_hwio": ((2, 6, 7, 3), (3, 2, 3, 4), dict(window_strides=(2, 1), padding="SAME",
                                                      dimension_numbers=("NHWC", "HWIO", "NHWC"))),
      "2d_lhs_dilation": ((1, 2, 5, 5), (3, 2, 3, 3), dict(window_strides=(1, 1), padding=((2, 2), (2, 2)),
                                                         lhs_dilation=(2, 2))),
      "2d_rhs_dilation": ((1, 2, 8, 8), (3, 2, 3, 3), dict(window_strides=(1, 1), padding="VALID",
                                                         rhs_dilation=(2, 3))),
      "2d_negative_padding": ((1, 2, 8, 8), (3, 2, 2, 2), dict(window_strides=(1, 1), padding=((-1, 0), (1, -2)))),
      "2d_feature_groups": ((2, 4, 6, 6), (6, 2, 3, 3), dict(window_strides=(1, 1), padding="SAME",
                                                           feature_group_count=2)),
      "2d_depthwise": ((1, 3, 5, 5), (3, 1, 3, 3), dict(window_strides=(1, 1), padding="SAME",
                                                      feature_group_count=3)),
      "2d_batch_groups": ((4, 2, 5, 5), (4, 2, 2, 2), dict(window_strides=(1, 1), padding="VALID",
                                                         batch_group_count=2)),
      "2d_nhwc_ohwi_nchw": ((2, 5, 5, 3), (4, 3, 3, 3), dict(window_strides=(1, 1), padding="VALID",
                                                           dimension_numbers=("NHWC", "OHWI", "NCHW"))),
      "3d": ((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), dict(window_strides=(1, 2, 1), padding="VALID")),
      "2d_1x1_kernel": ((2, 3, 4, 4), (5, 3, 1, 1), dict(window_strides=(1, 1), padding="VALID")),
  }
  for dtype in (F32, F64, BF16, F16):
    for name, (lhs_shape, rhs_shape, kwargs) in configs.items():
      if dtype != F32 and name not in ("2d_nchw", "1d_same_strided", "2d_feature_groups"):
        continue
      rng = f.rng(f"{name}{SHORT_NAME[dtype]}")
      f.add(f"convolution_{name}_{SHORT_NAME[dtype]}",
            lambda a, b, k=kwargs: lax.conv_general_dilated(a, b, **k),
            random_array(rng, lhs_shape, dtype, -2, 2), random_array(rng, rhs_shape, dtype, -2, 2), accuracy=ACCUMULATE)
  rng = f.rng("int")
  f.add("convolution_2d_i32", lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME"),
        random_array(rng, (1, 2, 4, 4), I32, -5, 5), random_array(rng, (2, 2, 3, 3), I32, -5, 5))
  f.add("convolution_transpose_f32", lambda a, b: lax.conv_transpose(a, b, (2, 2), "SAME",
                                                                     dimension_numbers=("NHWC", "HWIO", "NHWC")),
        random_array(rng, (1, 3, 3, 2), F32), random_array(rng, (3, 3, 2, 3), F32), accuracy=ACCUMULATE)
  f.add("convolution_input_grad_f32", jax.grad(
      lambda x, w: jnp.sum(jnp.sin(lax.conv_general_dilated(x, w, (2, 1), "SAME")))),
      random_array(rng, (1, 2, 5, 5), F32), random_array(rng, (3, 2, 3, 3), F32), accuracy=ACCUMULATE)
  f.add("convolution_kernel_grad_f32", jax.grad(
      lambda x, w: jnp.sum(jnp.sin(lax.conv_general_dilated(x, w, (2, 1), "SAME"))), argnums=1),
      random_array(rng, (2, 2, 5, 5), F32), random_array(rng, (3, 2, 3, 3), F32), accuracy=ACCUMULATE)


@builds("linalg/fft")
def _fft(f: Family) -> None:
  ops = {"fft": jnp.fft.fft, "ifft": jnp.fft.ifft, "fft2": jnp.fft.fft2, "ifft2": jnp.fft.ifft2}
  for dtype in COMPLEX:
    for n in (1, 5, 8, 12):
      z = random_array(f.rng(f"{n}{SHORT_NAME[dtype]}"), (3, n), dtype, -2, 2)
      for name, fn in ops.items():
        f.add(f"{name}_{n}_{SHORT_NAME[dtype]}", fn, z, accuracy=ACCUMULATE)
  for dtype in (F32, F64):
    for n in (1, 6, 7, 16):
      x = random_array(f.rng(f"r{n}{SHORT_NAME[dtype]}"), (2, n), dtype, -2, 2)
      f.add(f"rfft_{n}_{SHORT_NAME[dtype]}", jnp.fft.rfft, x, accuracy=ACCUMULATE)
      f.add(f"rfft2_{n}_{SHORT_NAME[dtype]}", jnp.fft.rfft2, x, accuracy=ACCUMULATE)
      half = random_array(f.rng(f"i{n}{SHORT_NAME[dtype]}"), (2, n // 2 + 1), {F32: C64, F64: C128}[dtype])
      f.add(f"irfft_{n}_{SHORT_NAME[dtype]}", lambda z, n=n: jnp.fft.irfft(z, n=n), half, accuracy=ACCUMULATE)
  f.add("fftn_3d_c64", jnp.fft.fftn, random_array(f.rng("3d"), (2, 3, 4), C64), accuracy=ACCUMULATE)


def well_conditioned_spd(rng, n, dtype, batch=()) -> np.ndarray:
  a = rng.uniform(-1, 1, batch + (n, n))
  return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


@builds("linalg/cholesky")
def _cholesky(f: Family) -> None:
  for dtype in (F32, F64):
    for n in (1, 3, 6):
      rng = f.rng(f"{n}{SHORT_NAME[dtype]}")
      for lower in (True, False):
        f.add(f"cholesky_{n}x{n}_{'lower' if lower else 'upper'}_{SHORT_NAME[dtype]}",
              lambda a, lower=lower: lax.linalg.cholesky(a, symmetrize_input=False) if lower
              else jnp.swapaxes(lax.linalg.cholesky(jnp.swapaxes(a, -1, -2), symmetrize_input=False), -1, -2),
              well_conditioned_spd(rng, n, dtype), accuracy=ACCUMULATE, platform="tpu")
    f.add(f"cholesky_batched_{SHORT_NAME[dtype]}", lambda a: lax.linalg.cholesky(a, symmetrize_input=False),
          well_conditioned_spd(f.rng(f"b{SHORT_NAME[dtype]}"), 3, dtype, (2,)), accuracy=ACCUMULATE, platform="tpu")


@builds("linalg/triangular_solve")
def _triangular_solve(f: Family) -> None:
  for dtype in (F32, F64):
    rng = f.rng(SHORT_NAME[dtype])
    a = (np.tril(rng.uniform(-1, 1, (4, 4))) + 4 * np.eye(4)).astype(dtype)
    for left_side in (True, False):
      b = random_array(rng, (4, 3) if left_side else (3, 4), dtype, -2, 2)
      for lower in (True, False):
        for transpose_a in (False, True):
          for unit_diagonal in (False, True):
            name = (f"triangular_solve_{'left' if left_side else 'right'}_{'lower' if lower else 'upper'}"
                    f"{'_transpose' if transpose_a else ''}{'_unit' if unit_diagonal else ''}_{SHORT_NAME[dtype]}")
            f.add(name, lambda a, b, l=left_side, lo=lower, t=transpose_a, u=unit_diagonal:
                  lax.linalg.triangular_solve(a if lo else a.T, b, left_side=l, lower=lo, transpose_a=t,
                                              unit_diagonal=u),
                  a, b, accuracy=ACCUMULATE, platform="tpu")


# ---------------------------------------------------------------------------
# Random numbers

@builds("random/rng_bit_generator")
def _rng_bit_generator(f: Family) -> None:
  algorithms = {"three_fry": lax.RandomAlgorithm.RNG_THREE_FRY, "philox": lax.RandomAlgorithm.RNG_PHILOX}
  keys = {"key_small": np.array([0, 42], U64), "key_large": np.array([2**64 - 1, 2**63 + 5], U64)}
  for alg_name, algorithm in algorithms.items():
    for key_name, key in keys.items():
      for dtype, shape in ((U32, (2, 5)), (U64, (7,)), (U8, (3, 3)), (U32, (0, 4)), (U64, (2, 2, 2))):
        f.add(f"rng_bit_generator_{alg_name}_{key_name}_{SHORT_NAME[dtype]}_{'x'.join(map(str, shape))}",
              lambda k, a=algorithm, s=shape, d=dtype: lax.rng_bit_generator(k, s, d, algorithm=a), key)


@builds("random/jax_random")
def _jax_random(f: Family) -> None:
  draws = {
      "bits_u32": lambda k: jax.random.bits(k, (2, 5), jnp.uint32),
      "bits_u8": lambda k: jax.random.bits(k, (6,), jnp.uint8),
      "split": lambda k: jax.random.key_data(jax.random.split(jax.random.wrap_key_data(k), 3)),
      "fold_in": lambda k: jax.random.key_data(jax.random.fold_in(jax.random.wrap_key_data(k), 17)),
      "uniform_f32": lambda k: jax.random.uniform(k, (8,)),
      "uniform_bf16": lambda k: jax.random.uniform(k, (8,), jnp.bfloat16),
      "normal_f32": lambda k: jax.random.normal(k, (8,)),
      "bernoulli": lambda k: jax.random.bernoulli(k, 0.3, (10,)),
      "randint_i32": lambda k: jax.random.randint(k, (10,), -5, 50),
      "permutation": lambda k: jax.random.permutation(k, 10),
  }
  for seed in (0, 1234567):
    key = np.asarray(jax.random.key_data(jax.random.PRNGKey(seed)))
    for name, fn in draws.items():
      approx = name.startswith("normal")  # erf_inv: an approximation
      f.add(f"random_{name}_seed{seed}", fn,
            key, accuracy=APPROX if approx else EXACT)


# ---------------------------------------------------------------------------
# Control flow

@builds("control_flow/while")
def _while(f: Family) -> None:
  f.add("while_fori_sum_i32", lambda n: lax.fori_loop(0, n, lambda i, s: s + i * i, np.int32(0)), np.int32(10))
  f.add("while_zero_trips_i32", lambda n: lax.fori_loop(0, n, lambda i, s: s + 1, np.int32(5)), np.int32(-3))
  f.add("while_collatz_steps_i64", lambda x: lax.while_loop(
      lambda s: s[0] != 1, lambda s: (jnp.where(s[0] % 2 == 0, s[0] // 2, 3 * s[0] + 1), s[1] + 1),
      (x, np.int64(0)))[1], np.int64(27))
  f.add("while_newton_sqrt_f32", lambda x: lax.fori_loop(0, 6, lambda i, y: 0.5 * (y + x / y), jnp.ones_like(x)),
        np.array([2.0, 9.0, 0.25], F32))
  f.add("scan_cumulative_f64", lambda xs: lax.scan(lambda c, x: (c * 0.5 + x, c), np.float64(0), xs),
        random_array(f.rng("scan"), (6,), F64))


@builds("control_flow/if")
def _if(f: Family) -> None:
  branch = lambda p, x: lax.cond(p, lambda x: x * 2.0, lambda x: x - 1.0, x)
  for pred in (True, False):
    f.add(f"if_{str(pred).lower()}_f32", branch, np.bool_(pred), np.array([1.5, -2.0], F32))
  f.add("if_multiple_results", lambda p, x, n: lax.cond(p, lambda x, n: (n, x), lambda x, n: (n + 1, -x), x, n),
        np.bool_(False), np.array([1.0, 2.0], F64), np.int32(4))


@builds("control_flow/case")
def _case(f: Family) -> None:
  branches = [lambda x: x + 1, lambda x: x * 10, lambda x: -x]
  for index in (-1, 0, 1, 2, 7):  # out-of-range indices are clamped by lax.switch
    f.add(f"case_index_{index}".replace("-", "m"), lambda i, x: lax.switch(i, branches, x),
          np.int32(index), np.array([3, -4], I32))


@builds("control_flow/composite")
def _composite(f: Family) -> None:
  # stablehlo.composite: its attributes are informative, its decomposition is a helper function.
  scale_shift = lax.composite(lambda x, scale: x * scale + 1, name="kiln.test.scale_shift", version=2)
  f.add("composite_scale_shift_f32", lambda x: scale_shift(x, scale=3.0), np.array([1.5, -2.0, 0.0], F32))
  nested = lax.composite(lambda x: scale_shift(x, scale=0.5) * 2, name="kiln.test.nested")
  f.add("composite_nested_f64", nested, np.array([[1.0, 2.0], [3.0, -4.0]], F64))


@builds("control_flow/optimization_barrier")
def _optimization_barrier(f: Family) -> None:
  f.add("optimization_barrier_f32_i32", lambda x, y: lax.optimization_barrier((x * 2, y)),
        np.array([1.5, -0.0], F32), np.array([7], I32))


# ===========================================================================
# Lowering a case and writing its test function

class Context:
  """The MLIR context (JAX's dialects plus the chlo legalization pass)."""

  def __init__(self):
    stablehlo_lib.register_stablehlo_passes()
    self.mlir = jax_mlir.make_ir_context()

  def parse(self, text: str) -> ir.Module:
    with self.mlir, ir.Location.unknown():
      return ir.Module.parse(text)

  def legalize_chlo(self, module: ir.Module) -> None:
    with self.mlir:
      passmanager.PassManager.parse("builtin.module(func.func(chlo-legalize-to-stablehlo))").run(module.operation)


def lower(context: Context, case: Case) -> ir.Module:
  traced = jax.jit(case.fn, keep_unused=True).trace(*case.args)
  module = context.parse(traced.lower(lowering_platforms=(case.platform,)).as_text())
  context.legalize_chlo(module)
  return module


def compute_functions(context: Context, module: ir.Module, case_name: str) -> tuple[str, ir.FunctionType]:
  """Renames main to @<case>_compute and the helpers to @<case>_<helper>, all private.

  Returns the functions' text and main's function type."""
  with context.mlir:
    renames = {}
    for op in module.body.operations:
      old = ir.StringAttr(op.attributes["sym_name"]).value
      renames[old] = f"{case_name}_compute" if old == "main" else f"{case_name}_{old}"
    for old, new in renames.items():
      ir.SymbolTable.replace_all_symbol_uses(old, new, module.operation)
    main_type = None
    for op in module.body.operations:
      old = ir.StringAttr(op.attributes["sym_name"]).value
      ir.SymbolTable.set_symbol_name(op, renames[old])
      op.attributes["sym_visibility"] = ir.StringAttr.get("private")
      for noise in ("arg_attrs", "res_attrs"):  # jax.result_info, layout modes
        if noise in op.attributes:
          del op.attributes[noise]
      if old == "main":
        main_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
    text = "\n".join(str(op) for op in module.body.operations)
  return text, main_type


@dataclasses.dataclass
class Check:
  kind: str  # expect_eq | expect_close | expect_almost_eq
  max_ulp: int | None = None
  tolerance: float | None = None

  def line(self, got: str, want: str, type_: str) -> str:
    attrs = ["has_side_effect = true"]
    if self.max_ulp is not None:
      attrs.append(f"max_ulp_difference = {self.max_ulp} : i64")
    if self.tolerance is not None:
      attrs.append(f"tolerance = {self.tolerance:.1e} : f64")
    return (f"  stablehlo.custom_call @check.{self.kind}({got}, {want}) {{{', '.join(attrs)}}} : "
            f"({type_}, {type_}) -> ()")


def test_function(case: Case, compute: str, main_type, expected: list[np.ndarray], checks: list[Check]) -> str:
  inputs = [f"%x{i}" for i in range(len(case.args))]
  results = [f"%r#{i}" if len(expected) > 1 else "%r" for i in range(len(expected))]
  result_decl = f"%r:{len(expected)}" if len(expected) > 1 else "%r"
  arg_types = ", ".join(str(t) for t in main_type.inputs)
  result_types = ", ".join(str(t) for t in main_type.results)
  if len(main_type.results) != 1:
    result_types = f"({result_types})"
  lines = [f"// {case.note}"] if case.note else []
  lines.append(f"func.func @{case.name}() {{")
  lines += [constant_line(name, arg) for name, arg in zip(inputs, case.args)]
  lines.append(f"  {result_decl} = func.call @{case.name}_compute({', '.join(inputs)}) : ({arg_types}) -> {result_types}")
  for i, (want, check) in enumerate(zip(expected, checks)):
    lines.append(constant_line(f"%e{i}", want))
    lines.append(check.line(results[i], f"%e{i}", tensor_type(want.shape, want.dtype)))
  lines += ["  func.return", "}", compute]
  return "\n".join(lines) + "\n"


# ===========================================================================
# The second opinion: the StableHLO reference interpreter, in a child process

class ReferenceInterpreter:
  """Runs modules with jaxlib's StableHLO interpreter in a worker process.

  The interpreter aborts the process on ops it does not implement, so a crash
  or a timeout only costs a restart and gives "no opinion" for that case."""

  TIMEOUT_S = 20

  def __init__(self):
    self.worker = None

  def _start(self):
    self.worker = subprocess.Popen([sys.executable, __file__, "--reference-worker"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

  def run(self, module_text: str, args: tuple) -> list[np.ndarray] | None:
    if self.worker is None or self.worker.poll() is not None:
      self._start()
    message = pickle.dumps((module_text, list(args)))
    try:
      self.worker.stdin.write(struct.pack("<Q", len(message)) + message)
      self.worker.stdin.flush()
      ready, _, _ = select.select([self.worker.stdout], [], [], self.TIMEOUT_S)
      if not ready:
        raise TimeoutError
      reply = pickle.loads(read_message(self.worker.stdout))
    except (OSError, EOFError, TimeoutError, pickle.UnpicklingError, struct.error):
      self.worker.kill()
      self.worker.wait()
      self.worker = None
      return None
    return reply

  def close(self):
    if self.worker is not None:
      self.worker.stdin.close()
      self.worker.wait()


def read_message(stream) -> bytes:
  header = stream.read(8)
  if len(header) != 8:
    raise EOFError
  (length,) = struct.unpack("<Q", header)
  return stream.read(length)


def attribute_to_array(attr) -> np.ndarray:
  dense = ir.DenseElementsAttr(attr)
  shape = tuple(dense.type.shape)
  dtype = next(d for d, name in MLIR_NAME.items() if name == str(dense.type.element_type))
  if dtype != BF16 and dtype not in SMALL_FLOATS:
    return np.array(dense).reshape(shape)
  # The bindings do not convert these types: read the printed literal (a hex
  # buffer, or a splat or list of decimal and per-element hex values).
  text = str(attr)
  body = text[text.index("<") + 1:text.rindex("> :")]
  bits = BITS_TYPE[dtype]
  if body.startswith('"0x'):
    return np.frombuffer(bytes.fromhex(body[3:-1]), bits).view(dtype).reshape(shape)
  values = [np.array(int(token, 16), bits).view(dtype) if token.startswith("0x") else np.array(float(token), dtype)
            for token in re.split(r"[\[\],\s]+", body) if token]
  return np.resize(np.array(values, dtype), shape)


def reference_worker() -> None:
  stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
  context = Context()
  while True:
    try:
      module_text, args = pickle.loads(read_message(stdin))
    except EOFError:
      return
    try:
      module = context.parse(module_text)
      with context.mlir, ir.Location.unknown():
        attrs = [jax_mlir._numpy_array_attribute(np.array(a, order="C")) for a in args]
        reply = [attribute_to_array(r) for r in stablehlo_lib.eval_module(module, attrs)]
    except Exception:  # an op the interpreter reports as unsupported
      reply = None
    message = pickle.dumps(reply)
    stdout.write(struct.pack("<Q", len(message)) + message)
    stdout.flush()


# ===========================================================================
# Comparing XLA with the reference interpreter, choosing checks

def ordered_bits(x: np.ndarray) -> np.ndarray:
  """Maps floats to integers whose difference counts ULPs (-0.0 and 0.0 are 0 apart)."""
  sign_bit = ml_dtypes.finfo(x.dtype).bits - 1  # f4 keeps its sign in bit 3 of its byte
  raw = x.view(BITS_TYPE[x.dtype]).astype(np.uint64)
  magnitude = (raw & np.uint64((1 << sign_bit) - 1)).astype(np.int64)
  return np.where((raw >> np.uint64(sign_bit)) & np.uint64(1), -magnitude, magnitude)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
  """Per-element ULP distance of two same-type float arrays; NaN vs NaN is 0, NaN vs number is inf."""
  if is_complex(got.dtype):
    return np.maximum(ulp_distance(got.real.copy(), want.real.copy()), ulp_distance(got.imag.copy(), want.imag.copy()))
  distance = np.abs(ordered_bits(got).astype(np.float64) - ordered_bits(want))
  got_nan, want_nan = np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64))
  distance = np.where(got_nan & want_nan, 0.0, distance)
  return np.where(got_nan != want_nan, np.inf, distance)


def same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
  """Per element: identical, as @check.expect_eq sees it (any NaN equals any NaN)."""
  if is_complex(got.dtype):
    return same_bits(got.real.copy(), want.real.copy()) & same_bits(got.imag.copy(), want.imag.copy())
  if not is_float(got.dtype):
    return got == want
  bits = BITS_TYPE[got.dtype]
  return (got.view(bits) == want.view(bits)) | (np.isnan(got.astype(F64)) & np.isnan(want.astype(F64)))


def is_subnormal(x: np.ndarray) -> np.ndarray:
  if is_complex(x.dtype):
    return is_subnormal(x.real.copy()) | is_subnormal(x.imag.copy())
  if not is_float(x.dtype):
    return np.zeros(x.shape, bool)
  magnitude = np.abs(x.astype(np.float64))
  return (magnitude > 0) & (magnitude < float(ml_dtypes.finfo(x.dtype).tiny))


CLOSE_ULP = 3  # what @check.expect_close allows by default


def choose_check(case: Case, xla: np.ndarray, reference: np.ndarray | None) -> tuple[Check, str]:
  """The check for one result, and a note when XLA and the reference disagree.

  Integers, booleans and exact float operations must match bit for bit.
  Accumulating operations get an absolute tolerance scaled to the result's
  magnitude. For approximated elementwise functions the allowance is
  measured: XLA's distance from the reference interpreter (which evaluates in
  double precision and rounds, as kiln's interpreter does). Within 3 ULP:
  expect_close; up to 4096 ULP: expect_close with that bound rounded up to a
  power of two; beyond (results near zero, where ULPs say little):
  expect_almost_eq with twice the measured absolute error."""
  if not (is_float(xla.dtype) or is_complex(xla.dtype)):
    accuracy = EXACT
  else:
    accuracy = case.accuracy
  if accuracy == ACCUMULATE or (accuracy == APPROX and reference is None):
    return Check("expect_almost_eq", tolerance=magnitude_tolerance(xla)), ""
  if accuracy == EXACT:
    if reference is None:
      return Check("expect_eq"), ""
    same = same_bits(xla, reference)
    if np.all(same):
      return Check("expect_eq"), ""
    where = tuple(int(i) for i in np.argwhere(~same)[0])
    if is_float(xla.dtype) and np.max(ulp_distance(xla, reference)) <= CLOSE_ULP:
      # XLA rewrote the operation (x / y as x * (1 / y), say): not exact, but close.
      return Check("expect_close"), (f"XLA is within {CLOSE_ULP} ULP of the StableHLO reference interpreter "
                                     f"but not exact (first at {list(where)})")
    return Check("expect_eq"), (f"XLA and the StableHLO reference interpreter disagree at {list(where)}: "
                                f"XLA {element_literal(xla[where], xla.dtype)}, "
                                f"reference {element_literal(reference[where], xla.dtype)}")
  worst = float(np.max(ulp_distance(xla, reference), initial=0))
  if worst <= CLOSE_ULP:
    return Check("expect_close"), ""
  if worst <= 1 << 12:
    return Check("expect_close", max_ulp=1 << math.ceil(math.log2(worst))), ""
  if math.isinf(worst):
    return Check("expect_almost_eq", tolerance=magnitude_tolerance(xla)), (
        "XLA and the StableHLO reference interpreter disagree on NaN")
  error = np.nanmax(np.abs(xla.astype(np.complex128) - reference.astype(np.complex128)), initial=0)
  return Check("expect_almost_eq", tolerance=nice_ceiling(2 * error)), ""


# An absolute tolerance per unit of result magnitude, for accumulated results:
# some ULPs of the largest result, for sums of up to ~100 terms.
RELATIVE_TOLERANCE = {F16: 5e-3, BF16: 2e-2, F32: 1e-4, F64: 1e-10}


def magnitude_tolerance(xla: np.ndarray) -> float:
  magnitudes = np.abs(xla.astype(np.complex128))
  scale = max(1.0, float(np.max(magnitudes[np.isfinite(magnitudes)], initial=0)))
  return nice_ceiling(scale * RELATIVE_TOLERANCE[component_type(xla.dtype)])


def nice_ceiling(x: float) -> float:
  """The smallest 1, 2 or 5 times a power of ten that is >= x."""
  exponent = math.floor(math.log10(x)) if x > 0 else -30
  for mantissa in (1, 2, 5, 10):
    if mantissa * 10.0 ** exponent >= x:
      return float(f"{mantissa * 10.0 ** exponent:.1g}")
  raise AssertionError


# ===========================================================================
# Generation

@dataclasses.dataclass
class Stats:
  cases: int = 0
  checks: collections.Counter = dataclasses.field(default_factory=collections.Counter)
  no_reference: list = dataclasses.field(default_factory=list)
  disagreements: list = dataclasses.field(default_factory=list)
  dropped_positions: int = 0
  failures: list = dataclasses.field(default_factory=list)


def xla_outputs(case: Case) -> list[np.ndarray]:
  return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(jax.jit(case.fn, keep_unused=True)(*case.args))]


def drop_flushed_positions(case: Case, xla: list[np.ndarray], reference: list[np.ndarray]) -> Case:
  """Removes the positions of an elementwise case where XLA's flushing of
  subnormals (inputs or results) makes it differ from the reference."""
  keep = np.ones(len(case.args[0]), bool)
  involved = np.zeros_like(keep)
  for arg in case.args:
    involved |= is_subnormal(arg)
  for got, want in zip(xla, reference):
    if case.accuracy == EXACT or not (is_float(got.dtype) or is_complex(got.dtype)):
      differs = ~same_bits(got, want)
    else:
      differs = ulp_distance(got, want) > CLOSE_ULP
    involved_here = involved | is_subnormal(want)
    keep &= ~(differs & involved_here)
  if keep.all():
    return case
  return dataclasses.replace(case, args=tuple(arg[keep] for arg in case.args))


# The reference interpreter aborts on these (each abort costs a restart).
REFERENCE_LACKS = re.compile(r"complex<|stablehlo\.(fft|cholesky|triangular_solve|rng_bit_generator)\b"
                             r"|[<x]u?i[24]>")  # 2- and 4-bit integers


def generate_case(context: Context, reference: ReferenceInterpreter, case: Case, stats: Stats) -> str:
  module = lower(context, case)
  module_text = str(module)
  expected = xla_outputs(case)
  ref = None if REFERENCE_LACKS.search(module_text) else reference.run(module_text, case.args)
  if ref is not None and case.elementwise:
    trimmed = drop_flushed_positions(case, expected, ref)
    if trimmed is not case:
      stats.dropped_positions += len(case.args[0]) - len(trimmed.args[0])
      case = trimmed
      module = lower(context, case)
      module_text = str(module)
      expected = xla_outputs(case)
      ref = reference.run(module_text, case.args)
  if ref is None:
    stats.no_reference.append(case.name)
  notes = []
  checks = []
  for i, want in enumerate(expected):
    check, note = choose_check(case, want, None if ref is None else ref[i])
    checks.append(check)
    stats.checks[check.kind] += 1
    if note:
      notes.append(f"result {i}: {note}")
  if notes:
    stats.disagreements.append((case.name, "; ".join(notes)))
    case = dataclasses.replace(case, note="; ".join(notes))
  compute, main_type = compute_functions(context, module, case.name)
  text = test_function(case, compute, main_type, expected, checks)
  parsed = context.parse(text)  # jaxlib's parser must accept every chunk
  with context.mlir, ir.Location.unknown():
    assert_literals_round_trip(parsed, list(case.args) + expected)
  stats.cases += 1
  return text


def generate_file(context: Context, reference: ReferenceInterpreter, key: str, stats: Stats) -> int:
  family = Family(key)
  BUILDERS[key](family)
  names = collections.Counter(case.name for case in family.cases)
  duplicates = [name for name, count in names.items() if count > 1]
  if duplicates:
    raise AssertionError(f"{key}: duplicate case names {duplicates}")
  chunks = []
  for case in family.cases:
    try:
      chunks.append(generate_case(context, reference, case, stats))
    except Exception as error:  # a case JAX cannot lower or run: report, keep going
      stats.failures.append((case.name, f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"))
  header = (f"// Generated by scripts/gen_conformance.py ({key}); do not edit.\n"
            f"// Expected values computed by XLA:CPU (jax {jax.__version__}).\n\n")
  text = header + SEPARATOR.join(chunks)
  path = OUT_DIR / f"{key}.mlir"
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(text)
  if len(text) > MAX_FILE_BYTES:
    print(f"warning: {path.relative_to(REPO)} is {len(text)} bytes", file=sys.stderr)
  return len(chunks)


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--only", metavar="PATTERN", help="regenerate only files whose <family>/<op> matches")
  parser.add_argument("--reference-worker", action="store_true", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.reference_worker:
    reference_worker()
    return 0
  keys = [key for key in BUILDERS if args.only is None or fnmatch.fnmatch(key, args.only)]
  if not keys:
    print(f"no file matches {args.only!r}; files are: {', '.join(BUILDERS)}", file=sys.stderr)
    return 1
  context, reference, stats = Context(), ReferenceInterpreter(), Stats()
  try:
    for key in keys:
      count = generate_file(context, reference, key, stats)
      print(f"{key}: {count} cases", flush=True)
  finally:
    reference.close()
  print(f"\n{len(keys)} files, {stats.cases} cases; checks: {dict(stats.checks)}")
  print(f"positions dropped where XLA flushes subnormals: {stats.dropped_positions}")
  print(f"cases without a reference-interpreter opinion: {len(stats.no_reference)}")
  for name, note in stats.disagreements:
    print(f"disagreement {name}: {note}")
  for name, error in stats.failures:
    print(f"not generated {name}: {error}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
