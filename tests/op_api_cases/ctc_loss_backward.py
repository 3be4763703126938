"""aclnnCtcLossBackward: CANN's op_api unit tests as data.

One test. It runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); the file sets none (it includes
opdev/platform.h but never changes the SoC). The test's shape constants are T = 12, N = 4, C = 5, S = 7 (a fifth,
C_V3 = 20000, is unused). No case compares values.
"""
from tests.op_api_cases import IntArray, T, case

OP = "aclnnCtcLossBackward"
SOURCE = "loss/ctc_loss_v2_grad/tests/ut/op_api/test_aclnn_ctclossbackward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_T, _N, _C, _S = 12, 4, 5, 7

CASES = [
    case("test_ctc_loss_backward_float_target_is_bool",
         gradOut=T((_N,), "FLOAT", "ND", value_range=(-10, 10), values=(1.0,) * _N),
         logProbs=T((_T, _N, _C), "FLOAT", "ND", value_range=(-10, 10)),
         targets=T((_N, _S), "BOOL", "ND", value_range=(-1, 1)),
         inputLengths=IntArray((_T,) * _N), targetLengths=IntArray((_S,) * _N),
         negLogLikelihood=T((_N,), "FLOAT", "ND", value_range=(-10, 10)),
         logAlpha=T((_N, _T, 2 * _S + 1), "FLOAT", "ND", value_range=(-10, 10)),
         blank=0, zeroInfinity=False, out=T((_T, _N, _C), "FLOAT", "ND"),
         expect="ACLNN_SUCCESS",
         note="BOOL targets are accepted (cast to INT64); logAlpha's last dim 15 = 2*S + 1; gradOut has both a "
              "value range and explicit values in the test (the values win)"),
]
