# (folder, repo, refs[(label,url)], title, quote, buggy, fix, faithful, kind, dist)
B = []
def add(*a): B.append(a)

add("01_pt_functional_all_gather", "pytorch/pytorch",
    [("issue #73515", "https://github.com/pytorch/pytorch/issues/73515"),
     ("fix PR #79747", "https://github.com/pytorch/pytorch/pull/79747"),
     ("earlier PR #75276", "https://github.com/pytorch/pytorch/pull/75276")],
    "`torch.distributed.nn.functional.all_gather`: Tensors must be contiguous",
    "PR #79747: \"We called `tensor.contiguous()` in the forward pass, however this was after the `out_tensor_list` was built which results in the `out_tensor_list` containing non-contiguous tensors resulting in errors. Fixing this by moving the contiguous call above.\"",
    "`_AllGather.forward` builds `out_tensor_list` with `torch.empty_like(tensor)` and calls `dist.all_gather(out_tensor_list, tensor)` with the caller's transposed feature matrix (`txt_t.t()`), 3 calls away from where `.t()` was taken.",
    "`tensor = tensor.contiguous()` as the first statement of `_AllGather.forward` (before `out_tensor_list` is built), exactly as in #79747.",
    "High for the code path (the `_AllGather` forward/backward and the wrapper are the upstream shape). In the 2022 NCCL the error was raised for the non-contiguous tensors produced by `empty_like`; the emulated current ProcessGroupNCCL checks the list-allgather *input* (outputs go through a flat buffer), so the same call raises on the input. Backward is simplified (grad of the local slot + all_reduce instead of AlltoAll).",
    "nccl collective (all_gather)", "3 (main `.t()` -> contrastive_logits -> all_gather -> _AllGather.forward -> dist.all_gather)")

add("02_pt_nn_all_reduce_clone", "pytorch/pytorch",
    [("issue #144060", "https://github.com/pytorch/pytorch/issues/144060"),
     ("fix PR #144267", "https://github.com/pytorch/pytorch/pull/144267")],
    "Make all-reduce input contiguous in `distributed.nn.all_reduce` (PR title; fixes #144060)",
    "PR #144267 diff in torch/distributed/nn/functional.py: `-        tensor = tensor.clone()` / `+        tensor = tensor.clone().contiguous()`; review: \"```suggestion tensor = tensor.clone(memory_format= torch.contiguous_format)``` Only need to do one copy\". Author: \"I confirmed that the unit test fails without the `.contiguous()` fix.\"",
    "`_AllReduce.forward` clones its input with `tensor.clone()` (preserve_format keeps the transposed strides of `scores.T`) and passes the clone to `dist.all_reduce` -> NCCL \"Tensors must be contiguous\".",
    "`tensor = tensor.clone(memory_format=torch.contiguous_format)` (the reviewer's one-copy form of the merged `.clone().contiguous()`).",
    "High: same autograd.Function and wrapper as torch.distributed.nn.functional; the calling module (a class-statistics reduction over `scores.T`) is invented to supply a transposed input.",
    "nccl collective (all_reduce)", "2 (SyncedCenterLoss.forward `.T` -> all_reduce -> _AllReduce.forward -> dist.all_reduce)")

add("03_fairscale_master_weight_gather", "facebookresearch/fairscale",
    [("PR #1173", "https://github.com/facebookresearch/fairscale/pull/1173")],
    "Make sure that tensor is contiguous before gathering across processes",
    "\"The `get_master_weight()` of the ColumnParallelLinear first applies a transpose to the weights before calling all gather. However all gather requires the tensors to be contiguous. ... `work = group.allgather([tensor_list], [tensor])` `ValueError: Tensors must be contiguous`\"",
    "`ColumnParallelLinear.get_master_weight()` returns `gather_from_model_parallel_region(self.weight.data.transpose(0, 1)).transpose_(0, 1)`; `_gather` hands the transposed shard to `dist.all_gather`.",
    "Make the transposed weight contiguous before it is gathered: `gather_from_model_parallel_region(self.weight.data.transpose(0, 1).contiguous())` (the PR: \"We can ensure this by simply calling it before the all gather\"). The PR is still open upstream.",
    "High: `_gather`/`gather_from_model_parallel_region`/`get_master_weight` follow fairscale/nn/model_parallel (mappings.py, layers.py) closely; world size 2 is simulated in one process (both ranks hold the same shard).",
    "nccl collective (all_gather)", "2 (get_master_weight -> gather_from_model_parallel_region -> _gather -> dist.all_gather)")

add("04_dtensor_reduce_shard_rs", "pytorch/pytorch",
    [("fix PR #115847", "https://github.com/pytorch/pytorch/pull/115847"),
     ("same symptom, issue #130251", "https://github.com/pytorch/pytorch/issues/130251"),
     ("issue #128066", "https://github.com/pytorch/pytorch/issues/128066")],
    "Make input contiguous for DTensor reduce scatter to fix the incorrect numerical values",
    "PR #115847: \"There's no exception thrown during training, but we ran into numerical value correctness issue without the change.\" #130251: \"[funcol] numerical error when reduce-scatter a non-contiguous tensor\" (`x.transpose(1, 2)` -> wrong rows). #128066: \"reduce_scatter_tensor with strided inputs produces corrupted results\".",
    "`Shard._reduce_shard_tensor` (Partial -> Shard(0)) passes a non-contiguous local partial sum (`(W @ x.T).T`) to functional `reduce_scatter_tensor`, which allocates a contiguous output and calls `dist.reduce_scatter_tensor`; ncclReduceScatter reads `input.data_ptr()` densely -> wrong rows, no error.",
    "`elif not tensor.is_contiguous(): tensor = tensor.contiguous()` before the reduce-scatter (the form suggested in review and merged).",
    "High for the control flow of `_reduce_shard_tensor` and the 2.2 funcol wrapper; NCCL's lack of a layout check for `_reduce_scatter_base` matches the ProcessGroupNCCL.cpp version read. World size 4 simulated in-process (every rank contributes the same tensor), which reproduces the #130251 numbers.",
    "nccl collective (reduce_scatter_tensor, silent)", "2 (_reduce_shard_tensor -> funcol_reduce_scatter_tensor -> dist.reduce_scatter_tensor; tensor made in row_parallel_partial)")

add("05_mcore_bridge_fp8_scale_inv_gather", "modelscope/mcore-bridge",
    [("fix PR #197", "https://github.com/modelscope/mcore-bridge/pull/197"),
     ("reported as modelscope/ms-swift#10136", "https://github.com/modelscope/ms-swift/issues/10136")],
    "[bugfix] make fp8 scale_inv contiguous before TP/PP collectives",
    "\"`_get_weight` trims the padding that TE adds to `_rowwise_scale_inv`, and slicing the last dim returns a non-contiguous view. Grouped MoE experts keep the weight as a single 3D tensor, so `mg_scale_inv[0]` preserves that view and hands it straight to `_all_gather_tp`, where ProcessGroupNCCL raises `ValueError: Tensors must be contiguous`.\"",
    "`_get_weight` returns `scale_inv[..., :ceil(k/128)]`; `export_expert` indexes one expert and calls `_all_gather_tp` -> `dist.all_gather`.",
    "\"Call `.contiguous()` at the slice site so both collectives are covered.\" The bug-line marks that slice (where the fix went); the collective is 2 calls further.",
    "Medium-high: names and data flow follow the PR description; the TE Float8 tensor is a small stand-in holding padded row-wise scales.",
    "nccl collective (all_gather)", "2 (slice in _get_weight -> returned to export_expert -> _all_gather_tp -> dist.all_gather)")

add("06_pt_send_recv_transposed", "pytorch/pytorch",
    [("issue #62283", "https://github.com/pytorch/pytorch/issues/62283"),
     ("PR #77809 (validation)", "https://github.com/pytorch/pytorch/pull/77809"),
     ("PR #114982 (relaxed to warning for P2P)", "https://github.com/pytorch/pytorch/pull/114982")],
    "c10d and discontiguous tensors with mismatch strides",
    "\"NCCL gets silent wrong result\" (rank 0 sends `torch.randint(10, [4, 4]).T`, rank 1 receives a scrambled matrix).",
    "Rank 0 `send_forward(t.T)` -> `dist.send`; the emulated NCCL P2P only warns (\"Detected non-contiguous tensor in P2P operations ...\", as after #114982) and ships `numel` elements from `data_ptr()`; rank 1 writes them densely -> transposed values.",
    "Send a contiguous tensor: `dist.send(tensor.contiguous(), dst, tag=128)`.",
    "High: the issue's script, with the send wrapped in a pipeline-style helper; two real processes (torch.multiprocessing spawn), bytes carried through the c10d store.",
    "p2p (send/recv, silent)", "1 (make_activation `.T` -> send_forward -> dist.send)")

add("07_deepspeed_inference_broadcast_expanded", "deepspeedai/DeepSpeed",
    [("issue #1162", "https://github.com/deepspeedai/DeepSpeed/issues/1162"),
     ("fix PR #1168", "https://github.com/deepspeedai/DeepSpeed/pull/1168")],
    "Bug occurs when using the huggingface seq2seq model using the inference engine. / Fix bugs about non-contiguous tensor broadcasting",
    "Issue: `output = model.generate(...)  # <--- problem` -> \"RuntimeError: Tensors must be non-overlapping and dense\". PR: \"Before broadcasting a model's parameter or input tensor, we must make sure it is contiguous. For non-contiguous tensors, the broadcast operation throws an error.\"",
    "InferenceEngine's forward pre-hook broadcasts every tensor kwarg from rank 0; the Bart-style decoder receives an expanded (stride-0) encoder attention mask -> `dist.broadcast` raises.",
    "`kwargs[k] = kwargs[k].contiguous()` before `dist.broadcast` in the pre-forward hook.",
    "Medium: the hook structure and the fix follow the PR description; the thread does not say which generate() input was non-dense, so the re-creation supplies an expanded (overlapping) attention mask, the kind of tensor the \"non-overlapping and dense\" check rejects. The 2021 NCCL message was \"Tensors must be non-overlapping and dense\"; the emulation raises the current \"Tensors must be contiguous\".",
    "nccl collective (broadcast)", "2 (expand_mask -> engine(...) -> Decoder pre-hook -> dist.broadcast)")

add("08_bnb_quantize_4bit_sliced", "bitsandbytes-foundation/bitsandbytes",
    [("issue #1342", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1342"),
     ("issue #1690", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1690"),
     ("fix PR #1859", "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1859")],
    "quantize_4bit/dequantize_4bit gives wrong output on in-contiguous tensor",
    "#1342: \"half of the elements from the quantize/dequantize from the in-contiguous tensor are different from the counterpart of contiguous tensor\" (`non_contiguous_tensor = original_tensor[:, ::2, :]`). #1859: \"The CUDA kernels use raw pointers (`get_ptr()`) which assume contiguous memory layout; non-contiguous inputs (e.g. strided slices) produced silently incorrect results\".",
    "`quantize_4bit` -> CUDA backend `_quantize_4bit_impl` -> `cquantize_blockwise_fp32_nf4(A, ...)`; the native stand-in reads `n` floats from A's data pointer.",
    "`A = A.contiguous()` at the start of `_quantize_4bit_impl` (kernel entry), as in #1859.",
    "High for the layering (functional -> backend op -> native call with raw pointer); NF4 codebook quantization simplified (absmax per 64-block, nearest NF4 code).",
    "raw pointer (native library)", "2 (main slice -> quantize_4bit -> _quantize_4bit_impl -> cquantize_blockwise_fp32_nf4)")

add("09_bnb_cpu_quantize_blockwise", "bitsandbytes-foundation/bitsandbytes",
    [("issue #1995", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1995"),
     ("fix PR #1996", "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1996")],
    "quantize_blockwise / dequantize_blockwise produce incorrect results for non-contiguous CPU inputs (CPU follow-up to #1690)",
    "#1995: \"The CPU backend still exhibits the silent-corruption bug ... `quantize_blockwise` / `dequantize_blockwise` return wrong results for non-contiguous inputs instead of either handling them or raising.\" #1996: \"The CPU `quantize_blockwise` / `dequantize_blockwise` kernels pass raw pointers (`get_ptr`) to the native library, which assumes contiguous memory. Non-contiguous inputs (e.g. strided slices) were read in physical order\".",
    "`A_full[::2, :]` -> functional quantize_blockwise -> CPU backend `quantize_blockwise` -> `cquantize_blockwise_cpu_fp32(code, A, absmax, out, blocksize, n)` reads raw memory.",
    "`A = A.contiguous()` at the start of the CPU `quantize_blockwise` kernel (#1996).",
    "High for the structure; the dynamic 8-bit code map is replaced by a linear 256-level map.",
    "raw pointer (native library)", "2 (main slice -> F_quantize_blockwise -> quantize_blockwise -> native)")

add("10_vllm_mla_rope_slice", "vllm-project/vllm",
    [("issue #16658", "https://github.com/vllm-project/vllm/issues/16658"),
     ("fix PR #17091", "https://github.com/vllm-project/vllm/pull/17091"),
     ("follow-up PR #18046", "https://github.com/vllm-project/vllm/pull/18046")],
    "[Bug]: V0 engines gives incorrect output for Moonlight model / [Bugfix] Add contiguous call inside rope kernel wrapper",
    "#17091: \"a non-contiguous key is also likely to lead to the same issue because the stride along the first dimension is not considered in the kernel. Therefore, I make both query and key contiguous in the wrappers.\" #18046: \"For MLA we end up passing tensor slices to the rotary embeddings, like: `q[..., self.qk_nope_head_dim:], k_pe = self.rotary_emb(positions, q[..., self.qk_nope_head_dim:], k_pe)`\".",
    "MLA calls `rotary_emb.forward_cuda(positions, q[..., nope:], k_pe)`; the wrapper passes the slices to `rotary_embedding`, whose kernel addresses token t at `t*stride(0)` and head h at `h*head_size` (heads assumed densely packed).",
    "`query = query.contiguous(); key = key.contiguous()` inside the kernel wrapper before the op (#17091); results flow back through the caller's slice assignment.",
    "Medium-high: MLA call shape copied from #18046; the kernel's addressing is modeled (token stride honored, per-head stride assumed = head_size), consistent with the PR's description.",
    "kernel (custom op)", "1 (mla_prefill slice -> RotaryEmbedding.forward_cuda -> rotary_embedding)")

add("11_vllm_fp8_per_token_quant_guard", "vllm-project/vllm",
    [("fix PR #19452", "https://github.com/vllm-project/vllm/pull/19452")],
    "[Bugfix] Enforce contiguous input for dynamic_per_token FP8/INT8 quant",
    "\"We require that the inputs are contiguous for both the `dynamic_per_token_scaled_fp8_quant` and `dynamic_scaled_int8_quant` kernels. This PR enforces that as I ran into an error when evaluating a deepseek model.\" Traceback: `fp8_linear.apply` -> `ops.scaled_fp8_quant(` -> `torch.ops._C.dynamic_per_token_scaled_fp8_quant(` -> \"RuntimeError: Expected input.is_contiguous() to be true, bu[t got false]\".",
    "`kv_b_proj(kv_c_normed)` with a last-dim slice of the MLA latent -> `Fp8LinearOp.apply` -> `scaled_fp8_quant(..., use_per_token_if_dynamic=True)` -> `dynamic_per_token_scaled_fp8_quant` TORCH_CHECK.",
    "Pass a contiguous input to the per-token quant kernel inside `scaled_fp8_quant` (`input.contiguous()`).",
    "Medium: the wrapper chain and error follow the PR's traceback; the origin of the non-contiguous activation (an MLA latent slice in DeepSeek-V2-Lite) is a reconstruction.",
    "guard (TORCH_CHECK in custom op)", "3 (mla_compute_kv slice -> Fp8Linear -> Fp8LinearOp.apply -> scaled_fp8_quant -> kernel)")

add("12_vllm_marlin_mla_workspace_slice", "vllm-project/vllm",
    [("fix PR #15319", "https://github.com/vllm-project/vllm/pull/15319"),
     ("report in PR #14447 thread", "https://github.com/vllm-project/vllm/pull/14447"),
     ("context PR #14658", "https://github.com/vllm-project/vllm/pull/14658")],
    "Fix non-contiguous input passed to Marlin kernel",
    "#15319: \"The kv/prefill caching is passing non-contiguous x (input) to lower kernels and some (Marlin) kernels only operate on contiguous memory layout.\" #14447 thread: \"RuntimeError('A is not contiguous')\". #14658: \"MLA chunked prefill requires the quant linear method to support non-contiguous input.\"",
    "MLA context computation slices `workspace[:toks][..., :kv_lora_rank]` and calls `kv_b_proj` -> `apply_gptq_marlin_linear` -> `gptq_marlin_gemm`, whose entry checks `a.is_contiguous()`.",
    "Make the reshaped activation contiguous in the Marlin linear path before `gptq_marlin_gemm` (\"I only fixed the Marlin code path\").",
    "Medium-high: the workspace slicing is modeled on vLLM's MLA context-prefill code (mla/common.py, referenced by #14658); Marlin GEMM replaced by a dequantized matmul behind the same guard.",
    "guard (TORCH_CHECK in custom op)", "2 (compute_prefill_context slice -> MarlinLinear.forward -> apply_gptq_marlin_linear -> gptq_marlin_gemm)")

add("13_te_cross_entropy_stride_guard", "NVIDIA/TransformerEngine",
    [("issue #2734", "https://github.com/NVIDIA/TransformerEngine/issues/2734"),
     ("fix PR #2746", "https://github.com/NVIDIA/TransformerEngine/pull/2746")],
    "[PyTorch] cross_entropy_forward: stride guard misses non-contiguous transposed input",
    "\"If we pass a non-contiguous transposed tensor with `stride(-1) == 1` and `stride(-2) != shape[-1]`, the Triton kernel will use `stride(-2)` for row jumps and reads out of bounds, producing **silently wrong results**\"; #2746: \"Non-contiguous: [2.0794, 2.0794, 2.0794, 2.0794] <- wrong (same values)\".",
    "`parallel_cross_entropy(logits.transpose(0, 1), target)`; `cross_entropy_forward` keeps the view (only `stride(-1)` is checked) and launches the Triton kernel over B*S rows with `X_stride = stride(-2)`.",
    "Guard also on `stride(-2) != shape[-1]` -> `.contiguous()` (#2746). The bug-line marks the kernel launch that receives the view; the fix is the guard line just above it.",
    "High: repro values/shapes from #2734; kernel body reduced to the row-wise logsumexp loss.",
    "triton", "2 (main transpose -> parallel_cross_entropy -> cross_entropy_forward -> kernel launch)")

add("14_te_rocm_ce_backward_broadcast_grad", "ROCm/TransformerEngine",
    [("fix PR #623", "https://github.com/ROCm/TransformerEngine/pull/623")],
    "Fix fused cross-entropy backward with broadcasted grad_output",
    "\"Reductions like `loss.sum()` produce a gradient that is logically all-ones but is physically a single element expanded with stride 0 ... cross_entropy_backward launches element_mul_kernel with a per-row stride of 1 if grad_output.numel() > 1 else 0. ... Rows beyond the first read past the end of the allocation, yielding garbage\".",
    "`CrossEntropyFunction.apply(...).sum().backward()` -> `cross_entropy_backward(dlogits, grad_output)` launches `element_mul_kernel` with the stride-0 grad_output and stride 1.",
    "\"The fix materializes a contiguous grad_output before the kernel launch\" (`grad_output = grad_output.contiguous()`).",
    "High for the launch expression; forward is a plain softmax CE producing the saved dlogits.",
    "triton", "1 (autograd-made expand -> CrossEntropyFunction.backward -> cross_entropy_backward -> launch)")

add("15_unsloth_rmsnorm_strided_grad", "unslothai/unsloth",
    [("fix PR #10617", "https://github.com/unslothai/unsloth/pull/10617")],
    "fix: materialize strided gradients before RMSNorm backward",
    "\"`reshape(-1, dim)` returns a view whenever the flatten is expressible as one, and the Triton kernels address rows as `ptr + row_idx * row_stride + col_offsets`, i.e. they assume unit column stride and a dense, non-overlapping row. So before this PR a strided `X` or `dY` was read at the wrong offsets\".",
    "`Fast_RMS_Layernorm.backward` reshapes dY (a stride-0 grad from `.sum()`) to a view and launches `_rms_layernorm_backward` with only `dY.stride(0)`.",
    "Materialize dY before the launch (`if not dY.is_contiguous(): dY = dY.contiguous()`).",
    "High for the kernel addressing and launch; kernels simplified to Llama-style RMSNorm (no Gemma offset).",
    "triton", "1 (autograd-made expand -> Fast_RMS_Layernorm.backward -> launch)")

add("16_flashattn_bwd_dout_cat", "Dao-AILab/flash-attention",
    [("issue #91", "https://github.com/Dao-AILab/flash-attention/issues/91")],
    "flash attn -> torch.cat results in contiguous error",
    "\"`_, _, _, softmax_d = flash_attn_cuda.bwd(` `RuntimeError: Expected dout.is_contiguous() to be true, but got false.` ... We spot this error when we: concatenate the output of flash attention with something else; feed it into a shared linear layer\"; reporter: \"Works! :) Thanks for the quick fix\".",
    "The block concatenates the attention output with another branch along the feature dim; cat's backward hands a slice of the gradient to `FlashAttnQKVPackedFunc.backward` -> `_flash_attn_backward` -> `flash_attn_cuda.bwd` (TORCH_CHECK).",
    "`dout = dout.contiguous()` in `_flash_attn_backward` before calling the CUDA backward.",
    "Medium-high: v0.2-era interface shape (packed QKV function, `_flash_attn_backward`, `flash_attn_cuda.bwd`); the attention math is a reference implementation; q/k/v/dq strides honored as in the real kernel, dout/out checked.",
    "guard (TORCH_CHECK in extension)", "2 (torch.cat backward slice -> FlashAttnQKVPackedFunc.backward -> _flash_attn_backward -> flash_attn_cuda.bwd)")

add("17_flashattn_bwd_dout_strides", "Dao-AILab/flash-attention",
    [("issue #355", "https://github.com/Dao-AILab/flash-attention/issues/355"),
     ("maintainer note in #1149", "https://github.com/Dao-AILab/flash-attention/issues/1149")],
    "Incorrect backward pass for non-contiguous output grads",
    "\"When I uncomment the `dout=dout.contiguous()` however I get the correct output\" (tensor dumps show `out` stride (16384, 512, 128, 1)).",
    "The layer returns `out.transpose(1, 2)`, so autograd delivers a transposed dout with stride(-1) == 1; `maybe_contiguous` leaves it alone and the backward walks dO with `out`'s row/head strides -> silent wrong dq/dk/dv.",
    "`dout = dout.contiguous()` in `_flash_attn_backward` (the workaround confirmed in the thread).",
    "Medium: the symptom and the fix are from the thread; the exact kernel mechanism (dO addressed with O's strides) is a model of how a dout with a layout different from out is misread.",
    "kernel (extension, silent)", "2 (attention_layer transpose -> FlashAttnFunc.backward -> _flash_attn_backward -> flash_attn_cuda_bwd)")

add("18_xformers_mem_eff_grad_out_expanded", "facebookresearch/xformers",
    [("fix PR #282", "https://github.com/facebookresearch/xformers/pull/282")],
    "Handle non-contiguous grad_out and add checks for qkv",
    "\"Fixes cases where we do `attention().sum().backward()`, which has a non-contiguous `grad_out`\".",
    "`memory_efficient_attention(q, k, v).sum().backward()`: `MemoryEfficientAttentionOp.backward` passes the stride-0 grad to `efficient_attention_backward`, which reads grad_out densely from its pointer.",
    "`grad.contiguous()` before the backward op.",
    "Medium-high: 2022 legacy [B, M, K] op pair and autograd.Function; math via the reference attention.",
    "kernel (custom op, silent)", "1 (.sum() expand -> MemoryEfficientAttentionOp.backward -> efficient_attention_backward)")

add("19_te_layernorm_noncontig_input", "NVIDIA/TransformerEngine",
    [("fix PR #1017", "https://github.com/NVIDIA/TransformerEngine/pull/1017")],
    "[pyTorch] Fix wrong results for noncontiguous input",
    "\"A bug fix for LayerNorm and Linear modules when given noncontiguous input. The Linear fix is more of a workaround for the common library not accepting strides. ... Ensured the input to LayerNorm is contiguous\".",
    "A QK-norm applies `te.LayerNorm` to `q` from `qkv.split(...)` (column slice, strides (3h, 1)); `_LayerNorm.forward` does `inp.view(-1, h)` (succeeds without copy) and calls `layernorm_fwd`, which walks dense rows.",
    "`inputmat = inputmat.contiguous()` before `layernorm_fwd`.",
    "Medium: the PR states the bug and fix; the QK-norm caller is an invented but common source of a viewable non-contiguous input.",
    "kernel (extension, silent)", "2 (split in QKNormAttentionInput.forward -> LayerNorm.forward -> _LayerNorm.forward -> layernorm_fwd)")

add("20_mmcv_roi_align_grad_output", "open-mmlab/mmcv",
    [("fix PR #737", "https://github.com/open-mmlab/mmcv/pull/737")],
    "fix grad_output uncontiguous",
    "\"Some complex head architecture may cause grad_output uncontiguous, eg.dii head in sparsercnn\"; diff in mmcv/ops/roi_align.py backward: `+        grad_output = grad_output.contiguous()`.",
    "The DII head permutes RoI features (`view(N, C, -1).permute(2, 0, 1)`); `RoIAlignFunction.backward` passes the permuted grad_output to `ext_module.roi_align_backward`, which reads it densely.",
    "`grad_output = grad_output.contiguous()` in `RoIAlignFunction.backward` (#737).",
    "Medium-high: autograd.Function shape and fix from the PR; RoIAlign simplified to average pooling over integer boxes.",
    "kernel (extension)", "1 (dii_head permute -> autograd -> RoIAlignFunction.backward -> roi_align_backward)")

add("21_fbgemm_pack_segments_backward", "pytorch/FBGEMM",
    [("fix PR #3006", "https://github.com/pytorch/FBGEMM/pull/3006")],
    "Fix pack_segments backward when grad is non-contig",
    "\"`pack_segments` backward ops works incorrectly, i.e., the input's gradient will be incorrect when the backward input grad_out is not contiguous. This diff ensures the gradients are contiguous.\"",
    "The packed [B, T, D] output is consumed sequence-first (`.transpose(0, 1)`); `PackSegments.backward` hands the transposed grad to `pack_segments_backward_cuda`, which reads it densely.",
    "Make grad contiguous before the backward kernel.",
    "Medium: fbgemm's op is C++ autograd; here a Python autograd.Function with the same forward/backward split; the sequence-first consumer is invented.",
    "custom op", "1 (sequence_model transpose -> PackSegments.backward -> pack_segments_backward_cuda)")

add("22_comfyui_channels_last_safetensors", "Comfy-Org/ComfyUI",
    [("issue #3923", "https://github.com/Comfy-Org/ComfyUI/issues/3923"),
     ("fix PR #3932", "https://github.com/Comfy-Org/ComfyUI/pull/3932")],
    "Forcing channels last breaks model saving",
    "\"!!! Exception during processing!!! You are trying to save a non contiguous tensor: `model.diffusion_model.input_blocks.0.0.weight` which is not allowed.\" PR #3932: \"This change forces all tensors to be contiguous when saving.\"",
    "`--force-channels-last` moves the UNet to channels_last; `save_checkpoint` -> `save_torch_file` -> `safetensors.torch.save_file` (real safetensors 0.8.0) rejects the 4-D weights.",
    "Make every tensor contiguous in `save_torch_file` before `save_file` (#3932).",
    "High: real safetensors call and message; a two-conv UNet stand-in.",
    "safetensors", "2 (ModelPatcher channels_last -> state_dict_for_saving -> save_checkpoint -> save_torch_file)")

add("23_torchtitan_llama4_to_hf_transpose", "pytorch/torchtitan",
    [("PR #3514", "https://github.com/pytorch/torchtitan/pull/3514")],
    "[tests] Add HF checkpoint round-trip test + per-model adapter fixes",
    "torchtitan/models/llama4/state_dict_adapter.py: `-                    value = value.transpose(-1, -2)` / `+                    # .contiguous() so safetensors can serialize the view.` `+                    value = value.transpose(-1, -2).contiguous()`; author: \"Yes the tensor needs to be contiguous in order to be saved\".",
    "`Llama4StateDictAdapter.to_hf` returns the transposed expert weight view; the HF checkpoint writer calls `safetensors.torch.save_file` -> ValueError.",
    "`.contiguous()` on the transposed expert weight in `to_hf` (bug-line = that line, where the fix went).",
    "High for the adapter branch; key map trimmed to two entries.",
    "safetensors", "1 (to_hf transpose -> returned to save_hf_checkpoint -> save_file)")

add("24_sglang_eplb_p2p_transposed_experts", "sgl-project/sglang",
    [("fix PR #32001", "https://github.com/sgl-project/sglang/pull/32001"),
     ("PR #31947", "https://github.com/sgl-project/sglang/pull/31947")],
    "[NPU][Fix Issue]: Send expert weights contiguous tensor across cards during EPLB rebalance",
    "\"Fix the `RuntimeError: Tensors must be contiguous` caused by the previous PR(#25663) during EPLB expert rebalancing ... The logical layout of the transposed expert weights must be materialized into contiguous memory(`.contiguous()`) so that HCCL P2P communication can execute properly.\"",
    "EPLB builds `P2POp(dist.isend, w[src_expert], dst)` from transposed expert weights and runs `batch_isend_irecv`.",
    "Send `w[src_expert].contiguous()`.",
    "Medium: HCCL raised; under the emulated NCCL the P2P path only warns and sends raw bytes, so the receiver gets a scrambled expert (same failure class as #62283). Two real processes.",
    "p2p (batch_isend_irecv, silent)", "2 (transposed weights -> _create_p2p_send_ops -> batch_isend_irecv -> send)")

add("25_pt_scatter_transposed_list", "pytorch/pytorch",
    [("issue #107352", "https://github.com/pytorch/pytorch/issues/107352")],
    "dist.scatter is incompatible with transpose/permute operation",
    "\"Expected result of dst: rank0 [[0,2],[1,3]] rank1 [[4,6],[5,7]] / Real result of dst: rank0 [[0,2],[1,3]] rank1 [[4,5],[6,7]]\" (backend=nccl).",
    "Root scatters `[a.T, b.T]`; ProcessGroupNCCL checks only the output, torch::cuda::nccl::scatter ncclSend()s `inputs[r].data_ptr()` for r != root and copy_()s its own block.",
    "Scatter contiguous blocks (`[t.contiguous() for t in blocks]`) - the user-side fix; the issue is open upstream.",
    "High: the issue's tensors and outcome reproduced exactly with two real processes.",
    "nccl collective (scatter, silent)", "1 (make_blocks transpose -> scatter_blocks -> dist.scatter)")

add("26_vllm_flashinfer_trtllm_decode_query", "vllm-project/vllm",
    [("fix PR #21133", "https://github.com/vllm-project/vllm/pull/21133")],
    "[Bugfix] Fix the tensor non-contiguous issue for Flashinfer TRT-LLM backend attention kernel",
    "\"Fix the non-contiguous tensor `decode_query` used in Flashinfer TRT-LLM attention kernel\"; before: gsm8k flexible-extract 0.640.",
    "`query` comes from `qkv.split(...)` and `.view(-1, H, D)`; `decode_query = query[num_prefill_tokens:]` goes to `trtllm_batch_decode_with_kv_cache`, modeled as reading a dense [tokens, H, D] block.",
    "`decode_query = decode_query.contiguous()` before the kernel call.",
    "Medium: fix location per the PR; the split origin of the view and the kernel's dense read are modeled.",
    "kernel (custom op)", "2 (split in attention_layer -> FlashInferImpl.forward (view+slice) -> trtllm kernel)")

add("27_fbgemm_triton_fp8_row_out_strides", "pytorch/FBGEMM",
    [("fix PR #2919", "https://github.com/pytorch/FBGEMM/pull/2919"),
     ("issue #2713", "https://github.com/pytorch/FBGEMM/issues/2713")],
    "Fix triton fp8 handling of non-contiguous inputs",
    "\"they write to the output tensor using the same strides as the input, when the output is always allocated as contiguous. This resulted in the output being unintentionally transposed in some cases. ... Adding explicit output strides to the kernel resolves the issue.\"",
    "`quantize_fp8_row(grad_out.t())` -> `triton_quantize_fp8_row` launches `_kernel_quantize_fp8_row` with only the input strides, used for both load and store.",
    "Pass `a_fp8.stride(0), a_fp8.stride(1)` and store with them (kernel + launch change).",
    "High for the bug mechanism; kernel reduced to row absmax scaling.",
    "triton (missing strides)", "2 (caller .t() -> quantize_fp8_row -> triton_quantize_fp8_row -> launch)")

add("28_pt_fake_quantize_chunk", "pytorch/pytorch",
    [("issue #75009", "https://github.com/pytorch/pytorch/issues/75009"),
     ("downstream note NVIDIA/TensorRT#2210", "https://github.com/NVIDIA/TensorRT/issues/2210")],
    "torch.fake_quantize_per_tensor_affine will affect the results of the model if the input memory is not contiguous",
    "\"When I use `torch.fake_quantize_per_tensor_affine` for `x2` it gives completely wrong result, But if I do contiguous operation on `x2`, the result is correct. To get around this problem, I recommend always adding the `contiguous` action\" (ShuffleNetV2 `x1, x2 = x.chunk(2, dim=1)`).",
    "QAT ShuffleNetV2 block: `branch2(x2)` starts with FakeQuantize, whose forward calls the fake-quant kernel on the channel-chunk view; the 1.8.1-era kernel is modeled as a raw pointer walk.",
    "`X.contiguous()` at the FakeQuantize call (the workaround recommended in the issue at torch/ao/quantization/fake_quantize.py); upstream later fixed the kernel itself.",
    "Medium: code path from the issue; the buggy kernel is emulated (today's torch op is correct, the reference uses it).",
    "kernel (ATen op)", "2 (chunk in InvertedResidual.forward -> branch2 Sequential -> FakeQuantize.forward -> op)")

add("29_vllm_silu_and_mul_split", "vllm-project/vllm",
    [("PR #3324", "https://github.com/vllm-project/vllm/pull/3324")],
    "silu_and_mul kernel only supports contiguous tensors",
    "\"Non-contiguous tensors can also be run, but they will output incorrect results ... When splitting the 'Fused Tensor' in two (`tensor.split`) and using it as input to the MLP and Attention modules respectively, the 'MLP Tensor' became non-contiguous. ... 2. use `ops.silu_and_mul(x.contiguous())` as in this PR\".",
    "A parallel attention+MLP block splits one fused projection; `SiluAndMul` passes the `gate_up` view to `silu_and_mul`, whose kernel indexes `input[token*2*d + i]`.",
    "`silu_and_mul(out, x.contiguous())` (option 2 of the PR). The PR was closed without merge.",
    "High for the kernel indexing and the split; the block is a minimal GPT-J-style parallel block.",
    "custom op (kernel)", "1 (split in ParallelAttnMLPBlock.forward -> SiluAndMul.forward -> silu_and_mul)")

add("30_rlinf_chunked_trajectory_p2p", "RLinf/RLinf",
    [("issue #832", "https://github.com/RLinf/RLinf/issues/832"),
     ("same class, issue #971", "https://github.com/RLinf/RLinf/issues/971")],
    "[Bug]: Non-contiguous tensors from to_splited_trajectories cause P2P communication failure",
    "\"split_dict_to_chunk() ... use torch.chunk() along dim=1, which returns non-contiguous tensor views. When these tensors are sent via P2P communication in send_rollout_trajectories, _check_tensor_contiguous raises: ValueError: All tensors must be contiguous when using P2P communication.\" Fix: \"Add .contiguous() to the chunked tensors\".",
    "`split_dict_to_chunk` stores `torch.chunk(v, n, dim=1)` views; `send_rollout_trajectories` -> `p2p_send_tensors` -> `_check_tensor_contiguous` raises before `dist.send`.",
    "`.contiguous()` on each chunk in `split_dict_to_chunk` (bug-line there, where the fix went).",
    "High for the guard and the chunking; two real processes, the receiver gets both env-groups.",
    "guard (wrapper assert before p2p)", "2 (chunk in split_dict_to_chunk -> send_rollout_trajectories -> p2p_send_tensors guard)")

add("31_megatron_generate_log_probs_broadcast", "NVIDIA/Megatron-LM",
    [("PR #570", "https://github.com/NVIDIA/Megatron-LM/pull/570")],
    "Fix not contiguous error when generation with return_output_log_probs=True",
    "\"In `generation.generate_tokens_probs_and_return_on_first_stage`, when `return_output_log_probs=True`, `output_log_probs[:, :context_length]` makes it not contiguous, which raise none-contiguous error in the following `broadcast_from_last_to_first_pipeline_stage`, which requires the tensor to be contiguous.\"",
    "The last stage trims `output_log_probs[:, :context_length]` and hands it to `broadcast_from_last_to_first_pipeline_stage`, whose `_is_cuda_contiguous` assertion fires before `dist.broadcast`.",
    "`output_log_probs[:, :context_length].contiguous()` (bug-line = the slice, where the fix went). PR closed as stale.",
    "High for the slice/broadcast pair; the generation loop is reduced to computing per-token log-probs.",
    "guard (assert) before nccl broadcast", "1 (slice -> broadcast_from_last_to_first_pipeline_stage -> assert / dist.broadcast)")

add("32_sglang_usp_gather_sharded_sequence", "sgl-project/sglang",
    [("fix PR #39291", "https://github.com/sgl-project/sglang/pull/39291")],
    "[Diffusion] Make the SP sequence gather pass contiguous shards",
    "\"With a batched pass (B>1) both branches hand a non-contiguous view to `all_gather_into_tensor`, which raises `ValueError: Tensors must be contiguous`. ... `_gather_sharded_sequence -> sequence_model_parallel_all_gather -> GroupCoordinator.all_gather -> ValueError: Tensors must be contiguous`\"; \"Materialize the shard before the collective, in both branches.\"",
    "`USPAttention._gather_sharded_sequence` slices `x[:, p:]` (B=2) and calls `sequence_model_parallel_all_gather` -> `GroupCoordinator.all_gather` -> `dist.all_gather_into_tensor`.",
    "`shard.contiguous()` before the gather.",
    "High: call chain named in the PR; GroupCoordinator.all_gather follows sglang/vLLM's implementation; ulysses degree 2 simulated in one process.",
    "nccl collective (all_gather_into_tensor)", "2 (slice in _gather_sharded_sequence -> sequence_model_parallel_all_gather -> GroupCoordinator.all_gather -> dist)")
