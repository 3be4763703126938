// opgen's level-2 helpers for the generated op_api layers (op_api/aclnn_opgen_*.cpp), on CANN's opdev API:
//
//   * the parameter checks of opgen's Python and C checkers (codegen/runtime/checks.py, opgen_check.c): same
//     verdicts, same status codes (161001 null pointer, 161002 invalid), a null optional tensor skipped as there;
//   * the preparation of one kernel operand, as CANN's l2 layer does it before an AI Core kernel: l0
//     Contiguous, Cast, BroadcastTo and, for a row op, Transpose (the reduced axis moved last); for a class-index
//     op (codegen/spec/classes.py), a Reshape onto the (sample, class) grid first, and the class coordinate.
//
// Copied verbatim into every generated project.  C++17, as CANN's opdev headers need.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "aclnn_kernels/cast.h"
#include "aclnn_kernels/contiguous.h"
#include "aclnn_kernels/reshape.h"
#include "aclnn_kernels/transpose.h"
#include "level0/arange.h"
#include "level0/broadcast_to.h"
#include "level0/concat.h"
#include "level0/less.h"
#include "level0/reduce_sum_op.h"
#include "level0/select.h"
#include "level0/split_v.h"
#include "level0/zero_op.h"
#include "opdev/common_types.h"
#include "opdev/data_type_utils.h"
#include "opdev/format_utils.h"
#include "opdev/op_executor.h"
#include "opdev/op_log.h"
#include "opdev/platform.h"
#include "opdev/shape_utils.h"

namespace opgen_l2 {
using op::DataType;

// ---- a double scalar as two FLOAT attributes ------------------------------------------------------------------
// The OpDef's attributes are FLOAT; a scalar that a pair sum's constants are computed from also goes as its lo
// part, the double less its FLOAT value (0 where that is not finite), which the tiling adds back in double.
inline float LoPart(double value)
{
    const double rest = value - static_cast<double>(static_cast<float>(value));
    return rest - rest == 0.0 ? static_cast<float>(rest) : 0.0F;
}

// ---- null ----------------------------------------------------------------------------------------------------
inline bool NotNull(const void* value, const char* name)
{
    if (value == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "%s must not be null", name);
        return false;
    }
    return true;
}

// ---- dtype -----------------------------------------------------------------------------------------------------
inline bool DtypeSupported(const aclTensor* t, const char* name, const std::initializer_list<DataType>& allowed,
                           const char* opName)
{
    if (t == nullptr || op::CheckType(t->GetDataType(), allowed)) {
        return true;
    }
    if (allowed.size() == 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s does not run on this SoC: %s cannot be checked there", opName, name);
    } else {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, not supported by %s on this SoC (supported: %s)", name,
                op::ToString(t->GetDataType()).GetString(), opName, op::ToString(allowed).GetString());
    }
    return false;
}

inline bool DtypeSame(const aclTensor* ref, const char* refName, const aclTensor* t, const char* name)
{
    if (ref == nullptr || t == nullptr || ref->GetDataType() == t->GetDataType()) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have the same dtype as %s: got %s, %s is %s", name, refName,
            op::ToString(t->GetDataType()).GetString(), refName, op::ToString(ref->GetDataType()).GetString());
    return false;
}

// The spec language's FormatSame: the storage formats (aclFormat labels) must be equal, as CANN's own checks compare them.
inline bool FormatSame(const aclTensor* ref, const char* refName, const aclTensor* t, const char* name)
{
    if (ref == nullptr || t == nullptr || ref->GetStorageFormat() == t->GetStorageFormat()) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have the same format as %s: got %s, %s is %s", name, refName,
            op::ToString(t->GetStorageFormat()).GetString(), refName, op::ToString(ref->GetStorageFormat()).GetString());
    return false;
}

// The spec language's FormatNotPrivate: CANN's own op::IsPrivateFormat on the storage format.
inline bool FormatNotPrivate(const aclTensor* t, const char* name)
{
    if (t == nullptr || !op::IsPrivateFormat(t->GetStorageFormat())) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must not have a private format: got %s", name,
            op::ToString(t->GetStorageFormat()).GetString());
    return false;
}

// aclnn's CanCast, as the spec language's DtypeCastable (codegen/spec/dtypes.py: can_cast).
inline bool DtypeCastable(const aclTensor* src, const char* srcName, const aclTensor* t, const char* name)
{
    if (src == nullptr || t == nullptr || op::CanCast(src->GetDataType(), t->GetDataType())) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s's dtype %s cannot be cast to from %s's dtype %s", name,
            op::ToString(t->GetDataType()).GetString(), srcName, op::ToString(src->GetDataType()).GetString());
    return false;
}

// The present operands' dtypes promoted (PromoteType); DT_UNDEFINED when two do not promote or none is present.
inline DataType PromotedOf(const std::initializer_list<const aclTensor*>& operands, bool& any)
{
    DataType dtype = DataType::DT_UNDEFINED;
    any = false;
    for (const aclTensor* t : operands) {
        if (t == nullptr) {
            continue;
        }
        dtype = !any ? t->GetDataType() : (dtype == DataType::DT_UNDEFINED ? dtype : op::PromoteType(dtype, t->GetDataType()));
        any = true;
    }
    return dtype;
}

// The spec language's PromotedSupported: the operands promote to a dtype of the table (codegen/runtime/checks.py).
inline bool PromotedSupported(const std::initializer_list<const aclTensor*>& operands, const char* name,
                              const char* names, const std::initializer_list<DataType>& allowed, const char* opName)
{
    bool any = false;
    const DataType dtype = PromotedOf(operands, any);
    if (!any) {
        return true;
    }
    if (dtype == DataType::DT_UNDEFINED) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the dtypes of %s do not promote to a common dtype (reported on %s)", names,
                name);
        return false;
    }
    if (op::CheckType(dtype, allowed)) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the dtypes of %s promote to %s, not supported by %s on this SoC (supported: %s)",
            names, op::ToString(dtype).GetString(), opName, op::ToString(allowed).GetString());
    return false;
}

// PromotedCastable / PromotedSame: `t`'s dtype can be cast to from (is) the operands' promoted dtype.
inline bool PromotedCastable(const aclTensor* t, const char* name, const std::initializer_list<const aclTensor*>& operands,
                             const char* names, bool same)
{
    bool any = false;
    const DataType dtype = PromotedOf(operands, any);
    if (t == nullptr || !any || dtype == DataType::DT_UNDEFINED ||
        (same ? t->GetDataType() == dtype : op::CanCast(dtype, t->GetDataType()))) {
        return true;
    }
    // (two calls: OP_LOGE joins its format to a literal, so the format cannot be a ?: of two)
    if (same) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have %s, the promoted dtype of %s: got %s", name,
                op::ToString(dtype).GetString(), names, op::ToString(t->GetDataType()).GetString());
    } else {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s's dtype cannot be cast to from %s, the promoted dtype of %s: got %s",
                name, op::ToString(dtype).GetString(), names, op::ToString(t->GetDataType()).GetString());
    }
    return false;
}

// The last check: no tensor has a dtype no kernel reads or writes (complex, unless the op computes it).
inline bool KernelDtypes(const std::initializer_list<const aclTensor*>& tensors, const char* opName, bool complexOk)
{
    for (const aclTensor* t : tensors) {
        if (t == nullptr) {
            continue;
        }
        const DataType d = t->GetDataType();
        const bool isComplex = d == DataType::DT_COMPLEX64 || d == DataType::DT_COMPLEX128;
        if ((isComplex && !complexOk) || d == DataType::DT_UNDEFINED) {
            OP_LOGE(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "%s has no kernel reading or writing %s", opName,
                    op::ToString(d).GetString());
            return false;
        }
    }
    return true;
}

// EmptyReturns: one of the operands has no elements, so the call succeeds with nothing to do (the later checks
// do not run: the caller returns ACLNN_SUCCESS when this is true).
inline bool AnyEmpty(const std::initializer_list<const aclTensor*>& operands, const char* /* reported */)
{
    for (const aclTensor* t : operands) {
        if (t != nullptr && t->IsEmpty()) {
            return true;
        }
    }
    return false;
}

// ---- shape -----------------------------------------------------------------------------------------------------
inline bool MaxRank(const aclTensor* t, const char* name, size_t n)
{
    if (t == nullptr || t->GetViewShape().GetDimNum() <= n) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s has %zu dimensions, more than %zu", name, t->GetViewShape().GetDimNum(), n);
    return false;
}

inline bool MinRank(const aclTensor* t, const char* name, size_t n)
{
    if (t == nullptr || t->GetViewShape().GetDimNum() >= n) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s has %zu dimensions, fewer than %zu", name, t->GetViewShape().GetDimNum(), n);
    return false;
}

inline bool DimAtMost(const aclTensor* t, const char* name, int64_t dim, int64_t n)
{
    if (t == nullptr) {
        return true;
    }
    const int64_t rank = static_cast<int64_t>(t->GetViewShape().GetDimNum());
    if (dim < -rank || dim >= rank) {
        return true;
    }
    const int64_t size = t->GetViewShape().GetDim(dim < 0 ? dim + rank : dim);
    if (size <= n) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dimension %ld of %s is %ld, more than %ld", static_cast<long>(dim), name,
            static_cast<long>(size), static_cast<long>(n));
    return false;
}

inline bool ShapeSame(const aclTensor* ref, const char* refName, const aclTensor* t, const char* name)
{
    if (ref == nullptr || t == nullptr || ref->GetViewShape() == t->GetViewShape()) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have the shape of %s %s, got %s", name, refName,
            op::ToString(ref->GetViewShape()).GetString(), op::ToString(t->GetViewShape()).GetString());
    return false;
}

// `t` broadcasts to exactly `target`'s shape.
inline bool BroadcastsTo(const aclTensor* t, const char* name, const aclTensor* target, const char* targetName)
{
    if (t == nullptr || target == nullptr) {
        return true;
    }
    op::Shape shape;
    if (op::BroadcastInferShape(t->GetViewShape(), target->GetViewShape(), shape) &&
        shape == target->GetViewShape()) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to %s's shape %s", name,
            op::ToString(t->GetViewShape()).GetString(), targetName, op::ToString(target->GetViewShape()).GetString());
    return false;
}

// ... along the listed axes of `target` only (negative from the end): along every other axis `t` has target's
// size, a missing leading axis counting as 1 (ScaledMaskedSoftmaxBackward's mask [B|1, N|1, S1, S2]).
inline bool BroadcastsTo(const aclTensor* t, const char* name, const aclTensor* target, const char* targetName,
                         const std::initializer_list<int64_t>& axes)
{
    if (!BroadcastsTo(t, name, target, targetName)) {
        return false;
    }
    if (t == nullptr || target == nullptr) {
        return true;
    }
    const op::Shape& ts = t->GetViewShape();
    const op::Shape& ds = target->GetViewShape();
    const int64_t nt = static_cast<int64_t>(ds.GetDimNum());
    const int64_t lead = nt - static_cast<int64_t>(ts.GetDimNum());
    for (int64_t i = 0; i < nt; i++) {
        bool free = false;
        for (int64_t a : axes) {
            free = free || (-nt <= a && a < nt && (a < 0 ? a + nt : a) == i);
        }
        if (!free && (i < lead || ts.GetDim(i - lead) != ds.GetDim(i))) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s of shape %s may broadcast to %s's shape %s only along the listed axes",
                    name, op::ToString(ts).GetString(), targetName, op::ToString(ds).GetString());
            return false;
        }
    }
    return true;
}

inline bool Broadcastable(const aclTensor* a, const char* aName, const aclTensor* t, const char* name)
{
    if (a == nullptr || t == nullptr || op::CheckBroadcastShape(a->GetViewShape(), t->GetViewShape())) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast with %s of shape %s", name,
            op::ToString(t->GetViewShape()).GetString(), aName, op::ToString(a->GetViewShape()).GetString());
    return false;
}

// `t` broadcasts with the broadcast shape of the `n` operands (which broadcast: an earlier check says so).
inline bool BroadcastableWith(const aclTensor* t, const char* name, const aclTensor* const* operands, size_t n,
                              const char* names)
{
    if (t == nullptr) {
        return true;
    }
    op::Shape shape;
    for (size_t i = 0; i < n; ++i) {
        if (operands[i] == nullptr) {
            return true;
        }
        op::Shape next;
        if (i == 0) {
            shape = operands[i]->GetViewShape();
        } else if (op::BroadcastInferShape(shape, operands[i]->GetViewShape(), next)) {
            shape = next;
        } else {
            return true;
        }
    }
    if (op::CheckBroadcastShape(shape, t->GetViewShape())) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast with the broadcast shape %s of %s", name,
            op::ToString(t->GetViewShape()).GetString(), op::ToString(shape).GetString(), names);
    return false;
}

// `t` broadcasts to exactly the broadcast shape of the `n` operands, without enlarging it.
inline bool BroadcastsInto(const aclTensor* t, const char* name, const aclTensor* const* operands, size_t n,
                           const char* names)
{
    if (t == nullptr) {
        return true;
    }
    op::Shape shape;
    for (size_t i = 0; i < n; ++i) {
        if (operands[i] == nullptr) {
            return true;
        }
        op::Shape next;
        if (i == 0) {
            shape = operands[i]->GetViewShape();
        } else if (op::BroadcastInferShape(shape, operands[i]->GetViewShape(), next)) {
            shape = next;
        } else {
            return true;
        }
    }
    op::Shape joint;
    if (op::BroadcastInferShape(shape, t->GetViewShape(), joint) && joint == shape) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to the broadcast shape %s of %s", name,
            op::ToString(t->GetViewShape()).GetString(), op::ToString(shape).GetString(), names);
    return false;
}

// `t` has the broadcast shape of the `n` operands (which broadcast: an earlier check says so).
inline bool IsBroadcastOf(const aclTensor* t, const char* name, const aclTensor* const* operands, size_t n)
{
    if (t == nullptr) {
        return true;
    }
    op::Shape shape;
    for (size_t i = 0; i < n; ++i) {
        if (operands[i] == nullptr) {
            return true;
        }
        op::Shape next;
        if (i == 0) {
            shape = operands[i]->GetViewShape();
        } else if (op::BroadcastInferShape(shape, operands[i]->GetViewShape(), next)) {
            shape = next;
        } else {
            return true;
        }
    }
    if (t->GetViewShape() == shape) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have the broadcast shape %s of its operands, got %s", name,
            op::ToString(shape).GetString(), op::ToString(t->GetViewShape()).GetString());
    return false;
}

// ---- values ----------------------------------------------------------------------------------------------------
// An aclScalar read as a real number (not a bool, not a complex).
inline bool RealScalar(const aclScalar* s, const char* name)
{
    if (s == nullptr || op::IsRealNumberType(s->GetDataType())) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must be a real number, got %s", name, op::ToString(s->GetDataType()).GetString());
    return false;
}

inline bool DimInRange(int64_t dim, const char* name, const aclTensor* t, const char* tensorName)
{
    if (t == nullptr) {
        return true;
    }
    const int64_t rank = static_cast<int64_t>(t->GetViewShape().GetDimNum());
    const int64_t n = rank > 1 ? rank : 1;
    if (-n <= dim && dim <= n - 1) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must be in [%ld, %ld] for %s of rank %ld, got %ld", name,
            static_cast<long>(-n), static_cast<long>(n - 1), tensorName, static_cast<long>(rank),
            static_cast<long>(dim));
    return false;
}

// `dim` wrapped into [0, n) for a tensor of rank n (rank 0 counts as 1), as Python's dim % n.
inline int64_t WrapDim(int64_t dim, size_t rank)
{
    const int64_t n = rank > 1 ? static_cast<int64_t>(rank) : 1;
    return ((dim % n) + n) % n;
}

// `t`'s size along `dim` is even: it is split in halves there (a DimInRange ran before).
inline bool DimEven(const aclTensor* t, const char* name, int64_t dim, const char* dimName)
{
    if (t == nullptr) {
        return true;
    }
    const op::Shape& shape = t->GetViewShape();
    const int64_t size = shape.GetDimNum() == 0 ? 1 : shape.GetDim(WrapDim(dim, shape.GetDimNum()));
    if (size % 2 == 0) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s is split in halves along %s=%ld: its size there must be even, got %ld in %s",
            name, dimName, static_cast<long>(dim), static_cast<long>(size), op::ToString(shape).GetString());
    return false;
}

// `t` has `ref`'s shape with dimension `dim` halved (`ref` split in halves along it).
inline bool ShapeHalved(const aclTensor* t, const char* name, const aclTensor* ref, const char* refName, int64_t dim,
                        const char* dimName)
{
    if (t == nullptr || ref == nullptr) {
        return true;
    }
    op::Shape want = ref->GetViewShape();
    if (want.GetDimNum() != 0) {
        const int64_t d = WrapDim(dim, want.GetDimNum());
        want.SetDim(d, want.GetDim(d) / 2);
    }
    if (t->GetViewShape() == want) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have the shape of %s %s with %s=%ld halved, %s, got %s", name, refName,
            op::ToString(ref->GetViewShape()).GetString(), dimName, static_cast<long>(dim),
            op::ToString(want).GetString(), op::ToString(t->GetViewShape()).GetString());
    return false;
}

// ---- class-index ops (codegen/spec/classes.py): the grid's class axis is 1, or 0 for a 1-D tensor ------------
// `ref`'s shape without its class axis (a 1-D `ref` is one sample: rank 0).
inline op::Shape WithoutClass(const op::Shape& ref)
{
    op::Shape want;
    want.SetDimNum(0);
    if (ref.GetDimNum() > 1) {
        for (size_t i = 0; i < ref.GetDimNum(); ++i) {
            if (i != 1) {
                want.AppendDim(ref.GetDim(i));
            }
        }
    }
    return want;
}

// `t` holds one class index per sample of `ref` (a 1-D `ref`: one element of rank 0 or 1).
inline bool ClassTarget(const aclTensor* t, const char* name, const aclTensor* ref, const char* refName)
{
    if (t == nullptr || ref == nullptr) {
        return true;
    }
    const op::Shape& r = ref->GetViewShape();
    const op::Shape& s = t->GetViewShape();
    if (r.GetDimNum() <= 1 && s.GetDimNum() <= 1 && s.GetShapeSize() == 1) {
        return true;
    }
    const op::Shape want = WithoutClass(r);
    if (r.GetDimNum() > 1 && s == want) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must hold one class index per sample of %s %s: shape %s%s, got %s", name,
            refName, op::ToString(r).GetString(), op::ToString(want).GetString(),
            r.GetDimNum() <= 1 ? " (or (1))" : "", op::ToString(s).GetString());
    return false;
}

// `t` has one element per class of `ref` (its size along dimension 1, or 0 for a 1-D `ref`).
inline bool ClassCount(const aclTensor* t, const char* name, const aclTensor* ref, const char* refName)
{
    if (t == nullptr || ref == nullptr) {
        return true;
    }
    const op::Shape& r = ref->GetViewShape();
    const int64_t classes = r.GetDimNum() >= 2 ? r.GetDim(1) : (r.GetDimNum() ? r.GetDim(0) : 1);
    if (t->GetViewShape().GetShapeSize() == classes) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have one element per class of %s %s, %ld, got %ld in %s", name, refName,
            op::ToString(r).GetString(), static_cast<long>(classes),
            static_cast<long>(t->GetViewShape().GetShapeSize()), op::ToString(t->GetViewShape()).GetString());
    return false;
}

// `t` holds one value per channel of `ref` (PerChannel): 1 element, or as many as `ref` has along `dim`.
inline bool PerChannel(const aclTensor* t, const char* name, const aclTensor* ref, const char* refName, int64_t dim)
{
    if (t == nullptr || ref == nullptr || t->GetViewShape().GetShapeSize() == 1) {
        return true;
    }
    const op::Shape& r = ref->GetViewShape();
    const bool has = r.GetDimNum() > static_cast<size_t>(dim);
    if (has && t->GetViewShape().GetShapeSize() == r.GetDim(dim)) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have one element per channel of %s %s (dimension %ld) or a single one: "
            "%s%ld%s elements, got %ld in %s", name, refName, op::ToString(r).GetString(), static_cast<long>(dim),
            has ? "1 or " : "1 (", static_cast<long>(has ? r.GetDim(dim) : 0), has ? "" : " has no such dimension)",
            static_cast<long>(t->GetViewShape().GetShapeSize()), op::ToString(t->GetViewShape()).GetString());
    return false;
}

// The gradient `t` of a per-channel `w` of `ref` (ChannelGrad): [C] when `w` has C != 1 elements, else w's shape.
inline bool ChannelGrad(const aclTensor* t, const char* name, const aclTensor* w, const char* wName,
                        const aclTensor* ref, const char* refName, int64_t dim)
{
    if (t == nullptr || w == nullptr || ref == nullptr) {
        return true;
    }
    const bool one = w->GetViewShape().GetShapeSize() == 1;
    op::Shape want;
    if (one) {
        want = w->GetViewShape();
    } else {
        want.SetDimNum(1);
        want.SetDim(0, ref->GetViewShape().GetDimNum() > static_cast<size_t>(dim) ? ref->GetViewShape().GetDim(dim) : -1);
    }
    if (t->GetViewShape() == want) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have shape %s (%s%s%s), got %s", name, op::ToString(want).GetString(),
            one ? wName : "[C], C = ", one ? "'s shape, as it has one element" : refName,
            one ? "" : "'s size along the channel dimension", op::ToString(t->GetViewShape()).GetString());
    return false;
}

// A per-channel tensor (PerChannel) as the kernel reads it: its elements, contiguous, reshaped to [1, C, 1, ...] of
// `rank` dimensions along `dim` (a single element: every extent 1).
inline const aclTensor* ChannelView(const aclTensor* t, size_t rank, int64_t dim, aclOpExecutor* executor)
{
    const aclTensor* c = l0op::Contiguous(t, executor);
    if (c == nullptr) {
        return nullptr;
    }
    op::FVector<int64_t, op::MAX_DIM_NUM> dims(rank, 1);
    if (t->GetViewShape().GetShapeSize() != 1) {
        dims[dim] = t->GetViewShape().GetShapeSize();
    }
    return l0op::Reshape(c, executor->AllocIntArray(dims.data(), dims.size()), executor);
}

// `t` has exactly `target`'s shape, or exactly one element (ShapeSameOrOneElement).
inline bool ShapeSameOrOne(const aclTensor* t, const char* name, const aclTensor* target, const char* targetName)
{
    if (t == nullptr || target == nullptr || t->GetViewShape() == target->GetViewShape() ||
        t->GetViewShape().GetShapeSize() == 1) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have the shape of %s %s or exactly one element, got %s", name, targetName,
            op::ToString(target->GetViewShape()).GetString(), op::ToString(t->GetViewShape()).GetString());
    return false;
}

inline bool OneElement(const aclTensor* t, const char* name)
{
    if (t == nullptr || t->GetViewShape().GetShapeSize() == 1) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have exactly one element, got %s", name,
            op::ToString(t->GetViewShape()).GetString());
    return false;
}

// A loss gradient over `ref`'s samples: per sample for reduction none (`none`) and a `ref` of rank 2 or more, else
// one element of rank 0 or 1.
inline bool SampleShaped(const aclTensor* t, const char* name, const aclTensor* ref, const char* refName, bool none)
{
    if (t == nullptr || ref == nullptr) {
        return true;
    }
    const op::Shape& s = t->GetViewShape();
    if (none && ref->GetViewShape().GetDimNum() >= 2) {
        const op::Shape want = WithoutClass(ref->GetViewShape());
        if (s == want) {
            return true;
        }
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have one element per sample of %s %s for reduction none, %s, got %s",
                name, refName, op::ToString(ref->GetViewShape()).GetString(), op::ToString(want).GetString(),
                op::ToString(s).GetString());
        return false;
    }
    if (s.GetDimNum() <= 1 && s.GetShapeSize() == 1) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must be one element of rank 0 or 1 (a reduced loss's gradient, or a single "
            "sample's), got %s", name, op::ToString(s).GetString());
    return false;
}

enum GridKind { SAMPLE, CLASS, SCALAR };

inline aclIntArray* ShapeArray(const op::Shape& shape, aclOpExecutor* executor);   // (below: used before it)

// The shape of a `kind` tensor of `shape`'s view on the grid `grid`: target's with a class axis of 1 inserted,
// C along the class axis, or one element (all ones).
inline op::Shape GridShape(GridKind kind, const op::Shape& shape, const op::Shape& grid)
{
    const size_t axis = grid.GetDimNum() >= 2 ? 1 : 0;
    op::Shape v;
    v.SetDimNum(0);
    for (size_t i = 0; i < grid.GetDimNum(); ++i) {
        int64_t d = 1;
        if (kind == SAMPLE && shape.GetShapeSize() != 1 && i != axis) {
            d = grid.GetDim(i);
        } else if (kind == CLASS && i == axis) {
            d = grid.GetDim(i);
        }
        v.AppendDim(d);
    }
    return v;
}

// One kernel operand of a class-index op: Contiguous, Cast, Reshape onto the grid, BroadcastTo the grid's shape.
inline const aclTensor* GridOperand(const aclTensor* x, GridKind kind, DataType dtype, const op::Shape& grid,
                                    const aclIntArray* gridArray, aclOpExecutor* executor)
{
    const aclTensor* y = l0op::Contiguous(x, executor);
    if (y != nullptr && y->GetDataType() != dtype) {
        y = l0op::Cast(y, dtype, executor);
    }
    if (y != nullptr) {
        y = l0op::Reshape(y, ShapeArray(GridShape(kind, x->GetViewShape(), grid), executor), executor);
    }
    if (y != nullptr && y->GetViewShape() != grid) {
        y = l0op::BroadcastTo(y, gridArray, executor);
    }
    return y;
}

// The class coordinate 0 .. C-1 along the grid's class axis, in `dtype`, of the grid's shape.
inline const aclTensor* ClassIndex(DataType dtype, const op::Shape& grid, const aclIntArray* gridArray,
                                   aclOpExecutor* executor)
{
    const size_t axis = grid.GetDimNum() >= 2 ? 1 : 0;
    const int64_t classes = grid.GetDimNum() ? grid.GetDim(axis) : 1;
    op::FVector<int64_t> values;
    for (int64_t c = 0; c < classes; ++c) {
        values.push_back(c);
    }
    const aclIntArray* arange = executor->AllocIntArray(values.data(), values.size());
    const aclTensor* y = arange == nullptr ? nullptr : executor->ConvertToTensor(arange, DataType::DT_INT64);
    if (y != nullptr && dtype != DataType::DT_INT64) {
        y = l0op::Cast(y, dtype, executor);
    }
    if (y != nullptr) {
        y = l0op::Reshape(y, ShapeArray(GridShape(CLASS, grid, grid), executor), executor);
    }
    if (y != nullptr && y->GetViewShape() != grid) {
        y = l0op::BroadcastTo(y, gridArray, executor);
    }
    return y;
}

inline bool OneOf(int64_t value, const char* name, const std::initializer_list<int64_t>& values)
{
    for (int64_t v : values) {
        if (v == value) {
            return true;
        }
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must be one of the allowed values, got %ld", name, static_cast<long>(value));
    return false;
}

// A string attribute (C string) is one of the accepted strings.
inline bool OneOfString(const char* value, const char* name, const std::initializer_list<const char*>& values)
{
    for (const char* v : values) {
        if (std::strcmp(v, value) == 0) {
            return true;
        }
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must be one of the allowed values, got %s", name, value);
    return false;
}

inline bool Requires(bool ok, const char* name, const char* condition, double value)
{
    if (!ok) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must satisfy %s, got %g", name, condition, value);
    }
    return ok;
}

// ---- kernel operands -------------------------------------------------------------------------------------------
// The dtype aclnn promotes the present operands to (PromoteType), FLOAT where no kernel reads that dtype.
inline DataType Promoted(const std::initializer_list<const aclTensor*>& operands,
                         const std::initializer_list<DataType>& kernelDtypes)
{
    DataType dtype = DataType::DT_UNDEFINED;
    for (const aclTensor* t : operands) {
        if (t != nullptr) {
            dtype = dtype == DataType::DT_UNDEFINED ? t->GetDataType() : op::PromoteType(dtype, t->GetDataType());
        }
    }
    return op::CheckType(dtype, kernelDtypes) ? dtype : DataType::DT_FLOAT;
}

// The broadcast shape of the present tensors (which broadcast: an earlier check says so).
inline op::Shape BroadcastShape(std::initializer_list<const aclTensor*> tensors)
{
    op::Shape shape;
    bool first = true;
    for (const aclTensor* t : tensors) {
        if (t == nullptr) {
            continue;
        }
        op::Shape next;
        if (first) {
            shape = t->GetViewShape();
            first = false;
        } else if (op::BroadcastInferShape(shape, t->GetViewShape(), next)) {
            shape = next;
        }
    }
    return shape;
}

// The axes along which `to` was broadcast to `from`: the leading ones broadcasting added and those where `to`
// has 1 (the adjoint of broadcasting sums over them); null when there are none.
inline aclIntArray* BroadcastAxes(const op::Shape& from, const op::Shape& to, aclOpExecutor* executor)
{
    const size_t lead = from.GetDimNum() - to.GetDimNum();
    op::FVector<int64_t, op::MAX_DIM_NUM> axes;
    for (size_t i = 0; i < from.GetDimNum(); ++i) {
        if (i < lead || (to.GetDim(i - lead) == 1 && from.GetDim(i) != 1)) {
            axes.push_back(static_cast<int64_t>(i));
        }
    }
    return axes.empty() ? nullptr : executor->AllocIntArray(axes.data(), axes.size());
}

inline aclIntArray* ShapeArray(const op::Shape& shape, aclOpExecutor* executor)
{
    op::FVector<int64_t, op::MAX_DIM_NUM> dims = op::ToShapeVector(shape);
    return executor->AllocIntArray(dims.data(), dims.size());
}

// Every axis of a tensor of `rank` dimensions, 0 .. rank-1 (a ReduceSum over the whole tensor).
inline aclIntArray* AxisRange(size_t rank, aclOpExecutor* executor)
{
    op::FVector<int64_t, op::MAX_DIM_NUM> axes;
    for (size_t i = 0; i < rank; ++i) {
        axes.push_back(static_cast<int64_t>(i));
    }
    return executor->AllocIntArray(axes.data(), axes.size());
}

// The permutation that moves `axis` (in [-rank, rank)) last, or back from last; null when nothing moves.
inline aclIntArray* AxisPermutation(int64_t axis, size_t rank, bool toLast, aclOpExecutor* executor)
{
    const int64_t n = static_cast<int64_t>(rank);
    const int64_t a = axis < 0 ? axis + n : axis;
    if (n <= 1 || a == n - 1) {
        return nullptr;
    }
    op::FVector<int64_t, op::MAX_DIM_NUM> perm;
    for (int64_t i = 0; i < n; ++i) {
        if (toLast) {
            perm.push_back(i < a ? i : (i == n - 1 ? a : i + 1));
        } else {
            perm.push_back(i < a ? i : (i == a ? n - 1 : i - 1));
        }
    }
    return executor->AllocIntArray(perm.data(), perm.size());
}

// One kernel operand from an aclnn tensor: contiguous, in `dtype`, of the output's shape `shape` (its values
// `shapeArray`), and its axes permuted by `perm` (null: none).  A null optional tensor stays null.
inline const aclTensor* KernelOperand(const aclTensor* x, DataType dtype, const op::Shape& shape,
                                      const aclIntArray* shapeArray, const aclIntArray* perm, aclOpExecutor* executor)
{
    if (x == nullptr) {
        return nullptr;
    }
    const aclTensor* y = l0op::Contiguous(x, executor);
    if (y != nullptr && y->GetDataType() != dtype) {
        y = l0op::Cast(y, dtype, executor);
    }
    if (y != nullptr && y->GetViewShape().GetShapeSize() == 1 && y->GetViewShape().GetDimNum() > shape.GetDimNum()) {
        // one element of a higher rank than the output (ShapeSameOrOneElement admits any rank): rank 0 first
        op::Shape scalar;
        y = l0op::Reshape(y, ShapeArray(scalar, executor), executor);
    }
    if (y != nullptr && y->GetViewShape() != shape) {
        y = l0op::BroadcastTo(y, shapeArray, executor);
    }
    if (y != nullptr && perm != nullptr) {
        y = l0op::Transpose(y, perm, executor);
    }
    return y;
}

// The two halves of `x` along `dim` (wrapped), contiguous, in `dtype`, as CANN's l2 layers cut a GLU input: l0
// SplitV.  False when a step fails.
inline bool Halves(const aclTensor* x, DataType dtype, int64_t dim, const aclTensor** first, const aclTensor** second,
                   aclOpExecutor* executor)
{
    const op::Shape& shape = x->GetViewShape();
    const int64_t d = WrapDim(dim, shape.GetDimNum());
    const aclTensor* y = l0op::Contiguous(x, executor);
    if (y != nullptr && y->GetDataType() != dtype) {
        y = l0op::Cast(y, dtype, executor);
    }
    const int64_t half = shape.GetDimNum() == 0 ? 0 : shape.GetDim(d) / 2;
    const int64_t sizes[] = {half, half};
    const aclIntArray* splitSize = executor->AllocIntArray(sizes, 2);
    if (y == nullptr || splitSize == nullptr) {
        return false;
    }
    const aclTensorList* parts = l0op::SplitV(y, splitSize, d, executor);
    if (parts == nullptr || parts->Size() != 2) {
        return false;
    }
    *first = (*parts)[0];
    *second = (*parts)[1];
    return true;
}

// `first` and `second` concatenated along `dim` (wrapped into the rank of `first`): l0 ConcatD.
inline const aclTensor* Concat(const aclTensor* first, const aclTensor* second, int64_t dim, aclOpExecutor* executor)
{
    const aclTensor* parts[] = {first, second};
    const aclTensorList* list = executor->AllocTensorList(parts, 2);
    if (list == nullptr) {
        return nullptr;
    }
    return l0op::ConcatD(list, WrapDim(dim, first->GetViewShape().GetDimNum()), executor);
}

// ---- a split op read as rows (codegen/spec/split.py's interleaved= and rows=) ----------------------------------

// `t` viewed as [pre, n] from `dim` (wrapped) on, pre the product of the axes before it: l0 Contiguous, Reshape.
inline const aclTensor* AsRows(const aclTensor* t, int64_t dim, aclOpExecutor* executor)
{
    const op::Shape& shape = t->GetViewShape();
    const int64_t d = WrapDim(dim, shape.GetDimNum());
    int64_t dims[] = {1, 1};
    for (size_t i = 0; i < shape.GetDimNum(); ++i) {
        dims[static_cast<int64_t>(i) < d ? 0 : 1] *= shape.GetDim(i);
    }
    const aclTensor* y = l0op::Contiguous(t, executor);
    return y == nullptr ? nullptr : l0op::Reshape(y, executor->AllocIntArray(dims, 2), executor);
}

// The two halves of each row of `x` (AsRows), in `dtype`, each [pre, cut/2]: the even and the odd elements
// (interleaved: the rows as [pre, cut/2, 2] split along the last axis, l0 SplitV) or the front and back halves
// (as [pre, 2, cut/2] split along axis 1).  False when a step fails.
inline bool RowHalves(const aclTensor* x, DataType dtype, int64_t dim, bool interleaved, const aclTensor** first,
                      const aclTensor** second, aclOpExecutor* executor)
{
    const aclTensor* y = AsRows(x, dim, executor);
    if (y != nullptr && y->GetDataType() != dtype) {
        y = l0op::Cast(y, dtype, executor);
    }
    if (y == nullptr) {
        return false;
    }
    const int64_t pre = y->GetViewShape().GetDim(0);
    const int64_t half = y->GetViewShape().GetDim(1) / 2;
    const int64_t paired[] = {pre, interleaved ? half : 2, interleaved ? 2 : half};
    y = l0op::Reshape(y, executor->AllocIntArray(paired, 3), executor);
    const int64_t sizes[] = {1, 1};
    const aclIntArray* splitSize = executor->AllocIntArray(sizes, 2);
    if (y == nullptr || splitSize == nullptr) {
        return false;
    }
    const aclTensorList* parts = l0op::SplitV(y, splitSize, interleaved ? 2 : 1, executor);
    if (parts == nullptr || parts->Size() != 2) {
        return false;
    }
    const int64_t rows[] = {pre, half};
    *first = l0op::Reshape((*parts)[0], executor->AllocIntArray(rows, 2), executor);
    *second = l0op::Reshape((*parts)[1], executor->AllocIntArray(rows, 2), executor);
    return *first != nullptr && *second != nullptr;
}

// The halves' results `first` and `second` ([pre, cut/2]) put back where RowHalves took them: [pre, cut].
inline const aclTensor* RowConcat(const aclTensor* first, const aclTensor* second, bool interleaved,
                                  aclOpExecutor* executor)
{
    const int64_t pre = first->GetViewShape().GetDim(0);
    const int64_t half = first->GetViewShape().GetDim(1);
    const int64_t paired[] = {pre, interleaved ? half : 1, interleaved ? 1 : half};
    const aclTensor* a = l0op::Reshape(first, executor->AllocIntArray(paired, 3), executor);
    const aclTensor* b = l0op::Reshape(second, executor->AllocIntArray(paired, 3), executor);
    const aclTensor* y = (a == nullptr || b == nullptr) ? nullptr : Concat(a, b, interleaved ? 2 : 1, executor);
    const int64_t rows[] = {pre, 2 * half};
    return y == nullptr ? nullptr : l0op::Reshape(y, executor->AllocIntArray(rows, 2), executor);
}

// `rows` ([pre, cut]) with each row from sum(counts) on set to 0, as the library's kernel writes them (a null
// `counts`: every row kept); the sum is read on the device: l0 ReduceSumOp, Arange, Less, ZerosLike, SelectV2.
inline const aclTensor* KeepRows(const aclTensor* rows, const aclTensor* counts, aclOpExecutor* executor)
{
    if (counts == nullptr) {
        return rows;
    }
    const int64_t pre = rows->GetViewShape().GetDim(0);
    const int64_t axis[] = {0};
    const aclTensor* c = l0op::Contiguous(counts, executor);
    const aclTensor* total = c == nullptr ? nullptr : l0op::ReduceSumOp(c, executor->AllocIntArray(axis, 1), true,
                                                                          executor);   // [1]
    op::Shape indexShape;
    indexShape.AppendDim(pre);
    const aclTensor* index = l0op::Arange(executor->AllocScalar(static_cast<int64_t>(0)), executor->AllocScalar(pre),
                                          executor->AllocScalar(static_cast<int64_t>(1)),
                                          executor->AllocTensor(indexShape, DataType::DT_INT64), false, executor);
    const aclTensor* keep = (total == nullptr || index == nullptr) ? nullptr : l0op::Less(index, total, executor);
    const int64_t column[] = {pre, 1};
    keep = keep == nullptr ? nullptr : l0op::Reshape(keep, executor->AllocIntArray(column, 2), executor);
    const aclTensor* zeros = l0op::ZerosLike(rows, executor);
    return (keep == nullptr || zeros == nullptr) ? nullptr : l0op::SelectV2(keep, rows, zeros, executor);
}
// ---- aclIntArray (codegen/spec/rules.py ArrayLength, ArrayInRange; opgen_check.c's checks, same messages) ------
// `a` has as many values as `ref` has elements along dimension `dim` (which it must have).
inline bool ArrayLength(const aclIntArray* a, const char* name, const aclTensor* ref, const char* refName, int64_t dim)
{
    if (a == nullptr || ref == nullptr) {
        return true;
    }
    const op::Shape& shape = ref->GetViewShape();
    if (static_cast<int64_t>(shape.GetDimNum()) <= dim) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s's length must be %s's size along dimension %ld, but %s %s has no "
                "dimension %ld", name, refName, static_cast<long>(dim), refName, op::ToString(shape).GetString(),
                static_cast<long>(dim));
        return false;
    }
    if (static_cast<int64_t>(a->Size()) != shape.GetDim(dim)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s must have %ld values (%s's size along dimension %ld), got %lu", name,
                static_cast<long>(shape.GetDim(dim)), refName, static_cast<long>(dim),
                static_cast<unsigned long>(a->Size()));
        return false;
    }
    return true;
}

// A bound dim_size(ref, axis): ref's extent along axis (a rank-0 shape counts as (1,), an axis past the rank as 1).
inline int64_t ArrayBound(const aclTensor* ref, int64_t axis)
{
    if (ref == nullptr || ref->GetViewShape().GetDimNum() == 0) {
        return 1;
    }
    const op::Shape& shape = ref->GetViewShape();
    return axis < static_cast<int64_t>(shape.GetDimNum()) ? shape.GetDim(axis) : 1;
}

// Every value of `a` lies in [low, high] (a bound without has_ is not checked).
inline bool ArrayInRange(const aclIntArray* a, const char* name, bool hasLow, int64_t low, bool hasHigh, int64_t high)
{
    if (a == nullptr) {
        return true;
    }
    for (uint64_t i = 0; i < a->Size(); ++i) {
        const int64_t v = (*a)[i];
        if ((hasLow && v < low) || (hasHigh && v > high)) {
            char lo[32];
            char hi[32];
            snprintf(lo, sizeof lo, "%ld", static_cast<long>(low));
            snprintf(hi, sizeof hi, "%ld", static_cast<long>(high));
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "%s[%lu] = %ld is outside [%s, %s]", name, static_cast<unsigned long>(i),
                    static_cast<long>(v), hasLow ? lo : "-inf", hasHigh ? hi : "inf");
            return false;
        }
    }
    return true;
}

// The sequence mask (codegen/spec/sequence.py) after the kernel, as KeepRows: `result` with 0 wherever its coordinate
// t along `time` is at or past lengths[b], b its coordinate along `batch`.  Less(t, lengths) of an arange [T] laid
// along `time` and the lengths [N] laid along `batch` (1 on every other axis), broadcast by SelectV2 to the result.
inline const aclTensor* KeepSequence(const aclTensor* result, const aclIntArray* lengths, int64_t time, int64_t batch,
                                     aclOpExecutor* executor)
{
    const op::Shape& shape = result->GetViewShape();
    op::Shape timeShape;
    op::Shape batchShape;
    for (size_t d = 0; d < shape.GetDimNum(); ++d) {
        timeShape.AppendDim(static_cast<int64_t>(d) == time ? shape.GetDim(d) : 1);
        batchShape.AppendDim(static_cast<int64_t>(d) == batch ? shape.GetDim(d) : 1);
    }
    op::Shape steps;
    steps.AppendDim(shape.GetDim(time));
    const aclTensor* t = l0op::Arange(executor->AllocScalar(static_cast<int64_t>(0)),
                                      executor->AllocScalar(shape.GetDim(time)),
                                      executor->AllocScalar(static_cast<int64_t>(1)),
                                      executor->AllocTensor(steps, DataType::DT_INT64), false, executor);
    const aclTensor* n = executor->ConvertToTensor(lengths, DataType::DT_INT64);
    t = t == nullptr ? nullptr : l0op::Reshape(t, ShapeArray(timeShape, executor), executor);
    n = n == nullptr ? nullptr : l0op::Reshape(n, ShapeArray(batchShape, executor), executor);
    const aclTensor* keep = (t == nullptr || n == nullptr) ? nullptr : l0op::Less(t, n, executor);
    const aclTensor* zeros = l0op::ZerosLike(result, executor);
    return (keep == nullptr || zeros == nullptr) ? nullptr : l0op::SelectV2(keep, result, zeros, executor);
}
}  // namespace opgen_l2
