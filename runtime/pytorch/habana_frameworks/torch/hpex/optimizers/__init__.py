"""Habana's fused optimizers on the hpu: each step of a parameter group is
one launch of libhlrt's fused-optimizer nodes, updating the weights and
the optimizer state in place in device memory."""
import torch

from habana_frameworks.torch import _load

_load()

_SGD, _ADAMW, _ADAGRAD, _LAMB = 0, 1, 2, 3


class _Fused(torch.optim.Optimizer):
    KIND = None
    STATE = ()          # state tensors per parameter, in the runtime's order
    STEP_COUNT = False  # an INT32 update count shared by the group

    def _hyper(self, group):
        raise NotImplementedError

    def _init_state(self, name, p, group):
        return torch.zeros_like(p)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            for p in params:
                if p.device.type != "hpu":
                    raise RuntimeError(f"{type(self).__name__} updates hpu tensors only")
            state = []
            for p in params:
                st = self.state[p]
                for name in self.STATE:
                    if name not in st:
                        st[name] = self._init_state(name, p, group)
                    state.append(st[name])
            step = None
            if self.STEP_COUNT:
                if "step_count" not in group:
                    group["step_count"] = torch.zeros(1, dtype=torch.int32, device=params[0].device)
                step = group["step_count"]
            lr = torch.tensor([group["lr"]], dtype=torch.float32).to(params[0].device)
            grads = [p.grad.contiguous() for p in params]
            torch.ops.hpu_bridge.fused_step(self.KIND, params, grads, state, step, lr,
                                            self._hyper(group))
        return loss


class FusedSGD(_Fused):
    KIND = _SGD

    def __init__(self, params, lr=0.01, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False):
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    @property
    def STATE(self):
        return ("momentum_buffer",) if self.defaults["momentum"] else ()

    def _hyper(self, g):
        return [g["weight_decay"], g["momentum"], g["dampening"], float(g["nesterov"])]


class FusedAdamW(_Fused):
    KIND = _ADAMW
    STATE = ("exp_avg", "exp_avg_sq")
    STEP_COUNT = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def _hyper(self, g):
        return [g["betas"][0], g["betas"][1], g["eps"], g["weight_decay"]]


class FusedAdagrad(_Fused):
    KIND = _ADAGRAD
    STATE = ("sum",)

    def __init__(self, params, lr=1e-2, weight_decay=0.0, initial_accumulator_value=0.0,
                 eps=1e-10):
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, eps=eps,
                                      initial_accumulator_value=initial_accumulator_value))

    def _init_state(self, name, p, group):
        return torch.full_like(p, group["initial_accumulator_value"])

    def _hyper(self, g):
        return [g["eps"], g["weight_decay"], g["initial_accumulator_value"]]


class FusedLamb(_Fused):
    KIND = _LAMB
    STATE = ("exp_avg", "exp_avg_sq")
    STEP_COUNT = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def _hyper(self, g):
        return [g["betas"][0], g["betas"][1], g["eps"], g["weight_decay"]]
