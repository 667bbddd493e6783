// SPDX-License-Identifier: MIT
/* The boxed CPU fallback (hpu_tensor.cpp), for ops that decline inputs they cannot run. */
#ifndef HPU_FALLBACK_H
#define HPU_FALLBACK_H

#include <ATen/core/dispatch/Dispatcher.h>

namespace hpu {

void fallback(const c10::OperatorHandle &op, torch::jit::Stack *stack);
/* A device tensor copied to a new host tensor. */
at::Tensor to_host(const at::Tensor &t);

} // namespace hpu

#endif
