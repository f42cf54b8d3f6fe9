# A NumPy stand-in for the few torch functions the exported PyTorch program uses, so that the
# export tests can run that program where torch is not installed (it is not on the project's
# machines). It follows torch's documented semantics for this subset only: default float32
# for Python floats, int64 for integers, dim/keepdim arguments, max(dim) -> (values, indices),
# argmax -> the first maximum. It is a test double, not PyTorch: export_check.py says which ran.
import contextlib
from collections import namedtuple

import numpy as np

# torch computes NaN and ±inf silently (-inf - -inf is NaN without a word): so does NumPy here,
# so that a program's standard error holds only what the program itself says.
np.seterr(all="ignore")

float32 = np.float32
float64 = np.float64
int64 = np.int64
bool = np.bool_  # noqa: A001  (torch.bool)

_MaxResult = namedtuple("_MaxResult", ["values", "indices"])


class Tensor(np.ndarray):
    def double(self):
        return self.astype(np.float64).view(Tensor)

    def masked_fill(self, mask, value):
        return np.where(np.asarray(mask), value, np.asarray(self)).astype(self.dtype).view(Tensor)

    def max(self, dim=None, keepdim=False, **numpy_kwargs):
        if numpy_kwargs or dim is None:
            return np.ndarray.max(self, **numpy_kwargs)
        values = np.ndarray.max(self, axis=dim, keepdims=keepdim)
        indices = np.argmax(np.asarray(self), axis=dim)
        return _MaxResult(values.view(Tensor), _wrap(indices))

    def sum(self, dim=None, keepdim=False, **numpy_kwargs):
        if numpy_kwargs:
            return np.ndarray.sum(self, **numpy_kwargs)
        return np.ndarray.sum(self, axis=dim, keepdims=keepdim)


def _wrap(a):
    return np.asarray(a).view(Tensor)


def tensor(data, dtype=None):
    a = np.array(data)
    if dtype is None:
        dtype = np.float32 if a.dtype.kind == "f" else np.int64 if a.dtype.kind in "iu" else None
    return _wrap(a.astype(dtype) if dtype is not None else a)


def zeros(*size, dtype=np.float32):
    return _wrap(np.zeros(size, dtype=dtype))


def zeros_like(a):
    return _wrap(np.zeros_like(np.asarray(a)))


def ones_like(a):
    return _wrap(np.ones_like(np.asarray(a)))


def arange(n, dtype=np.int64):
    return _wrap(np.arange(n, dtype=dtype))


def where(condition, a, b):
    return _wrap(np.where(np.asarray(condition), np.asarray(a), np.asarray(b)))


def stack(tensors):
    return _wrap(np.stack([np.asarray(t) for t in tensors]))


def cat(tensors, dim=0):
    return _wrap(np.concatenate([np.asarray(t) for t in tensors], axis=dim))


def argmax(a):
    return _wrap(np.argmax(np.asarray(a)))  # the first maximum, as torch documents


def isnan(a):
    return _wrap(np.isnan(np.asarray(a)))


def _unary(f):
    return lambda a: _wrap(f(np.asarray(a)))


exp, tanh, sin, cos, abs = (_unary(f) for f in (np.exp, np.tanh, np.sin, np.cos, np.abs))  # noqa: A001


class linalg:
    @staticmethod
    def norm(a, dim=None, keepdim=False):
        return _wrap(np.linalg.norm(np.asarray(a), axis=dim, keepdims=keepdim))


@contextlib.contextmanager
def no_grad():
    yield
