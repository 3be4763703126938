"""The coverage script (codegen/backends/c/coverage.py): what it counts as a use of the ACL API, how it compares
prototypes, and — where a checkout of CANN's ops-nn is at hand ($OPGEN_OPS_NN) — that the examples of the
catalog's operators use no ACL name our headers lack, that cann.py agrees with CANN's headers, and that our
prototypes are CANN's, parameter by parameter."""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from codegen.backends.c import coverage as cov

OPS_NN = Path(os.environ.get("OPGEN_OPS_NN", "/work/.mirror/hicann+ops-nn/repo"))

PROGRAM = r'''
#include "aclnnop/aclnn_foo.h"
#define ACL_CHECK(x) do { (void)(x); } while (0)
bool aclInitOk{false};
void aclCreateTensorP(int n) { (void)n; }
int main() {
    aclIntArray *a = aclCreateIntArray(nullptr, 0);      // a call: a use
    printf("aclrtMemset failed\n");                      // a string: not a use
    /* aclFloat16ToFloat in a comment */
    uint64_t ws = 0; aclOpExecutor *ex = nullptr;
    auto ret = aclnnFooGetWorkspaceSize(a, &ws, &ex);   // the program's operator: not the runtime's
    ret = aclnnFoo(nullptr, ws, ex, nullptr);
    ret = aclnnBarGetWorkspaceSize;                      // another operator's API: not the runtime's
    return ret == ACL_ERROR_FAILURE ? aclDestroyIntArray(a) : ACLNN_SUCCESS;
}
'''


def test_names_used_are_the_runtime_names_a_program_calls_and_does_not_define():
    assert cov.names_used(PROGRAM) == {"aclIntArray", "aclCreateIntArray", "aclOpExecutor", "ACL_ERROR_FAILURE",
                                       "aclDestroyIntArray", "ACLNN_SUCCESS"}


def test_prototypes_compare_types_qualifiers_and_names():
    cann = "ACLNN_API aclnnStatus aclnnFoo(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,\n" \
           "                               const aclrtStream stream);"
    ours = "ACLNN_API aclnnStatus aclnnFoo(\n    void              *workspace,\n    uint64_t           workspaceSize," \
           "\n    aclOpExecutor     *executor,\n    const aclrtStream  stream);"
    assert cov.prototype(cann, "aclnnFoo") == cov.prototype(ours, "aclnnFoo") == [
        ("void*", "workspace"), ("uint64_t", "workspaceSize"), ("aclOpExecutor*", "executor"),
        ("const aclrtStream", "stream")]
    assert cov.prototype(ours.replace("const aclrtStream ", "aclrtStream       "), "aclnnFoo") != \
        cov.prototype(cann, "aclnnFoo")


@pytest.mark.skipif(not OPS_NN.exists(), reason=f"no ops-nn checkout at {OPS_NN} (set OPGEN_OPS_NN)")
def test_the_catalogs_examples_find_every_name_in_our_headers():
    out = io.StringIO()
    status = cov.report(OPS_NN, out=out)
    text = out.getvalue()
    assert "1. ACL names the catalog's examples use that our headers lack: 0" in text, text
    assert "2. catalog header facts that cann.py has wrong: 0" in text, text
    compared = re.search(r"3\. our prototypes that differ from CANN's headers: 0 \((\d+) operators compared\)", text)
    assert compared and int(compared.group(1)) >= 5, text   # the five seed ops at least
    assert status == 0
