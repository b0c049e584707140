#!/usr/bin/env python3
"""A stand-in for seed 004's phase-1 agent, for the xcs-cost analyze tests: given a kernel
name (the last argument) it prints that kernel's intermediate cost JSON (a GPT-2 block over
the hand-written kernels of kernels/). `--log FILE` appends each name it is asked about;
the kernels Broken, Liar and Fails misbehave on purpose."""
import json
import sys

E = "config.n_embd"
BS = "batch_size*seq_len"


def child(kernel, count=1, **bindings):
    return {"kernel": kernel, "bindings": bindings, "count": count}


KERNELS = {
    "GPT2Model": {
        "h": child("GPT2Block", "config.num_hidden_layers"),
        "ln_f": child("F.layer_norm", num_rows=BS, normalized_size=E),
    },
    "GPT2Block": {
        "ln_1": child("F.layer_norm", num_rows=BS, normalized_size=E),
        "attn": child("GPT2Attention"),
        "residual_1": child("torch.add", num_elements=f"{BS}*{E}", read_elements=f"2*{BS}*{E}"),
        "ln_2": child("F.layer_norm", num_rows=BS, normalized_size=E),
        "mlp": child("GPT2MLP"),
        "residual_2": child("torch.add", num_elements=f"{BS}*{E}", read_elements=f"2*{BS}*{E}"),
    },
    "GPT2Attention": {
        "c_attn": child("Conv1D", nf=f"3*{E}", nx=E),
        "qk_matmul": child("torch.matmul", M=f"batch_size*config.n_head*seq_len", K=f"{E}//config.n_head", N="cache_len"),
        "softmax": child("F.softmax", num_rows="batch_size*config.n_head*seq_len", row_size="cache_len"),
        "av_matmul": child("torch.matmul", M=f"batch_size*config.n_head*seq_len", K="cache_len", N=f"{E}//config.n_head"),
        "c_proj": child("Conv1D", nf=E, nx=E),
    },
    "GPT2MLP": {
        "c_fc": child("Conv1D", nf=f"4*{E}", nx=E),
        "act": child("F.gelu", num_elements=f"4*{BS}*{E}", read_elements=f"4*{BS}*{E}"),
        "c_proj": child("Conv1D", nf=E, nx=f"4*{E}"),
    },
    "Conv1D": ("init", ["nf", "nx"], {"addmm": child("torch.addmm", M=BS, K="nx", N="nf")}),
    "UsesBroken": {"b": child("Broken")},
    "UsesLiar": {"l": child("Liar")},
    "UsesFails": {"f": child("Fails")},
}


def main():
    args = sys.argv[1:]
    name = args[-1]
    if len(args) >= 3 and args[0] == "--log":
        with open(args[1], "a") as f:
            f.write(name + "\n")
    if name == "Broken":
        print('{"kernel_name": "Broken", "init_params": [], "forward_params": [], "children": {}}')
        return 0
    if name == "Liar":
        print('{"kernel_name": "SomeoneElse", "init_params": [], "forward_params": [], '
              '"flops": "1", "memory_read": "0", "memory_write": "0"}')
        return 0
    if name not in KERNELS:
        print(f"analyzer: no source for '{name}'", file=sys.stderr)
        return 3
    k = KERNELS[name]
    init = []
    if isinstance(k, tuple):
        _, init, k = k
    print(json.dumps({"kernel_name": name, "init_params": init, "forward_params": [], "children": k}, indent=2))
    return 0


sys.exit(main())
