"""BLAS and LAPACK routines for compiled kernels, from scipy's Fortran-ABI function pointers.

``scipy.linalg.cython_blas`` and ``cython_lapack`` export the addresses of the routines
scipy links against.  Wrapped as ctypes functions whose every argument is a pointer,
they can be passed to a numba kernel *as arguments* (a global would keep numba from
caching the kernel) and called there on ``array.ctypes``: scalars travel in small
arrays, characters as their ASCII codes in ``uint8`` arrays, integers as ``int32``
(the ``int`` of scipy's wrappers).  Arrays are column-major to Fortran, so a
C-ordered ``(rows, cols)`` array is its ``(cols, rows)`` transpose there.
"""

from __future__ import annotations

import ctypes

from numba.extending import get_cython_function_address


def _routine(module: str, name: str, arguments: int) -> ctypes._CFuncPtr:
    """``name`` of ``scipy.linalg.<module>`` as a ctypes function of ``arguments`` pointers."""
    prototype = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * arguments)
    return prototype(get_cython_function_address(f"scipy.linalg.{module}", name))


#: ASCII codes of the flags the routines below take: the upper triangle, no transpose
UPPER, NO_TRANSPOSE = ord("U"), ord("N")
#: ``dsyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)``: ``C = alpha A A' + beta C`` on the
#: ``uplo`` triangle of the ``n x n`` matrix ``C``, ``A`` being ``n x k`` (``trans = 'N'``)
SYRK = _routine("cython_blas", "dsyrk", 10)
#: ``dposv(uplo, n, nrhs, a, lda, b, ldb, info)``: solves ``A X = B`` for symmetric positive definite
#: ``A`` (read from its ``uplo`` triangle) by Cholesky; ``X`` overwrites ``B``, ``info > 0`` if ``A`` is not
#: positive definite
POSV = _routine("cython_lapack", "dposv", 8)
