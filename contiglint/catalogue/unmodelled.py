"""Torch's public ops that the catalogue does not model, each with the reason.

tests/test_catalogue.py requires every public op of torch (`coverage.torch_ops()`, drawn from
torch 2.13) to be in the catalogue or here. `MEASURED` groups ops by what torch was measured to
return for a transposed input (`tests/catalogue_probe.py`; the test measures them again and
fails when an op's group is wrong); they are not in the layout table yet, so the static model
still treats their results as unknown. `NOT_PROBED` groups the ops that need other arguments,
by why they are left out.
"""
from __future__ import annotations

TORCH = "2.13"  # the torch version whose op list these groups were drawn from

# why: "<what torch returned> <the arguments after the transposed tensor>" -> its meaning
WHY = {
    "keeps-layout x":
        "elementwise on one tensor (measured: on a transposed input the result has the input's "
        "strides)",
    "keeps-layout x,y":
        "elementwise on two tensors (measured: with a transposed first operand and a contiguous "
        "second one of the same shape, the result has the first operand's strides)",
    "keeps-layout x,0":
        "the input's layout with a dim argument (measured: on a transposed input with dim 0 the "
        "result has the input's strides)",
    "contiguous x":
        "a fresh contiguous result (measured: on a transposed input the result is contiguous)",
    "contiguous x,y":
        "a fresh contiguous result of two tensors (measured: with a transposed first operand the "
        "result is contiguous)",
    "contiguous x,0":
        "a fresh contiguous result with a dim or count argument (measured: on a transposed input "
        "with 0 the result is contiguous)",
    "non-contiguous x":
        "a result of its own non-contiguous layout (measured on a transposed input: LAPACK-ordered"
        " factors, strided parts) or a tensor of a non-strided layout (sparse, mkldnn)",
    "non-contiguous x,y":
        "a result of its own non-contiguous layout with a second tensor (measured on a transposed "
        "input)",
    "no-tensor x":
        "returns no tensor (measured: a bool, number, string, list or other object)",
    "no-tensor x,y":
        "returns no tensor for two tensors (measured: a bool or number)",
}
MEASURED: dict[str, frozenset[str]] = {
    "keeps-layout x": frozenset({
        "absolute", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asinh",
        "atanh", "cdouble", "cfloat", "chalf", "deg2rad", "dequantize", "erfc", "fix", "frexp",
        "hardshrink", "i0", "isneginf", "isposinf", "isreal", "negative", "rad2deg", "signbit",
        "sinc", "to_dense", "torch.absolute", "torch.acos", "torch.acosh",
        "torch.angle", "torch.arccos", "torch.arccosh", "torch.arcsin", "torch.arcsinh",
        "torch.arctan", "torch.arctanh", "torch.asin", "torch.asinh", "torch.atan", "torch.atanh",
        "torch.atleast_1d", "torch.atleast_2d", "torch.celu", "torch.chain_matmul",
        "torch.conj_physical", "torch.cosh", "torch.deg2rad", "torch.dequantize", "torch.digamma",
        "torch.erfc", "torch.erfinv", "torch.exp2", "torch.expm1", "torch.fft.fft2",
        "torch.fft.fftn", "torch.fft.ifft2", "torch.fft.ifftn", "torch.fix", "torch.frac",
        "torch.frexp", "torch.hardshrink", "torch.i0", "torch.isfinite", "torch.isinf",
        "torch.isneginf", "torch.isposinf", "torch.isreal", "torch.lgamma", "torch.log10",
        "torch.log1p", "torch.log2", "torch.logit", "torch.msort", "torch.negative",
        "torch.nn.functional.hardshrink", "torch.nn.functional.softshrink", "torch.rad2deg",
        "torch.selu", "torch.sgn", "torch.signbit",
        "torch.sinc", "torch.sinh", "torch.special.airy_ai", "torch.special.bessel_j0",
        "torch.special.bessel_j1", "torch.special.bessel_y0", "torch.special.bessel_y1",
        "torch.special.digamma", "torch.special.entr", "torch.special.erf", "torch.special.erfc",
        "torch.special.erfcx", "torch.special.erfinv", "torch.special.exp2", "torch.special.expit",
        "torch.special.expm1", "torch.special.gammaln", "torch.special.i0", "torch.special.i0e",
        "torch.special.i1", "torch.special.i1e", "torch.special.log1p", "torch.special.log_ndtr",
        "torch.special.logit", "torch.special.modified_bessel_i0",
        "torch.special.modified_bessel_i1", "torch.special.modified_bessel_k0",
        "torch.special.modified_bessel_k1", "torch.special.ndtr", "torch.special.ndtri",
        "torch.special.psi", "torch.special.round", "torch.special.scaled_modified_bessel_k0",
        "torch.special.scaled_modified_bessel_k1", "torch.special.sinc",
        "torch.special.spherical_bessel_j0", "torch.sym_sum", "torch.tan", "torch.trunc"}),
    "keeps-layout x,y": frozenset({
        "arctan2", "float_power", "greater", "greater_equal", "heaviside", "igamma", "igammac",
        "isclose", "ldexp", "less", "less_equal", "logaddexp", "logaddexp2", "module_load",
        "nextafter", "not_equal", "slice_scatter", "torch.arctan2", "torch.clamp_max",
        "torch.clamp_min", "torch.copysign", "torch.float_power", "torch.floor_divide",
        "torch.fmax", "torch.fmin", "torch.greater", "torch.greater_equal", "torch.heaviside",
        "torch.hypot", "torch.igamma", "torch.igammac", "torch.isclose", "torch.ldexp",
        "torch.less", "torch.less_equal", "torch.logaddexp", "torch.logaddexp2",
        "torch.logical_xor", "torch.nextafter", "torch.not_equal", "torch.slice_scatter",
        "torch.special.chebyshev_polynomial_t", "torch.special.chebyshev_polynomial_u",
        "torch.special.chebyshev_polynomial_v", "torch.special.chebyshev_polynomial_w",
        "torch.special.gammainc", "torch.special.gammaincc", "torch.special.hermite_polynomial_h",
        "torch.special.hermite_polynomial_he", "torch.special.laguerre_polynomial_l",
        "torch.special.legendre_polynomial_p", "torch.special.shifted_chebyshev_polynomial_t",
        "torch.special.shifted_chebyshev_polynomial_u",
        "torch.special.shifted_chebyshev_polynomial_v",
        "torch.special.shifted_chebyshev_polynomial_w", "torch.special.xlog1py",
        "torch.special.xlogy", "torch.special.zeta", "torch.xlogy"}),
    "keeps-layout x,0": frozenset({
        "polygamma"}),
    "contiguous x": frozenset({
        "aminmax", "bernoulli", "corrcoef", "cov", "diag", "diag_embed", "diagflat", "hash_tensor",
        "histc", "histogram", "nanmedian", "pinverse", "rot90", "torch.alias_copy", "torch.aminmax",
        "torch.block_diag", "torch.corrcoef", "torch.cov", "torch.cumulative_trapezoid",
        "torch.detach_copy", "torch.diag", "torch.diag_embed", "torch.diagflat",
        "torch.diagonal_copy", "torch.fbgemm_pack_gemm_matrix_fp16", "torch.fft.fftshift",
        "torch.fft.hfft2", "torch.fft.hfftn",
        "torch.fft.ifftshift", "torch.fft.irfft2", "torch.fft.irfftn", "torch.fft.rfft2",
        "torch.fft.rfftn", "torch.gradient", "torch.hash_tensor", "torch.histc", "torch.histogram",
        "torch.linalg.cond", "torch.linalg.lu", "torch.linalg.matrix_norm",
        "torch.linalg.matrix_rank", "torch.linalg.norm", "torch.linalg.pinv",
        "torch.linalg.svdvals", "torch.linalg.vander", "torch.linalg.vector_norm", "torch.nanmean",
        "torch.nanmedian", "torch.nansum", "torch.nn.functional.pdist", "torch.norm_except_dim",
        "torch.nuclear_norm", "torch.pca_lowrank", "torch.pdist", "torch.pinverse", "torch.rot90",
        "torch.rrelu", "torch.slice_copy", "torch.squeeze_copy", "torch.std_mean",
        "torch.svd_lowrank", "torch.t_copy", "torch.trace", "torch.trapezoid", "torch.trapz",
        "torch.unbind_copy", "torch.unique", "torch.unique_consecutive", "torch.var_mean", "trace",
        "unique", "unique_consecutive"}),
    "contiguous x,y": frozenset({
        "dist", "resize_as", "slice_inverse", "torch.binary_cross_entropy_with_logits",
        "torch.binomial", "torch.cosine_similarity", "torch.cross", "torch.dist",
        "torch.hinge_embedding_loss", "torch.isin", "torch.kl_div", "torch.linalg.cross",
        "torch.linalg.vecdot", "torch.nn.functional.hinge_embedding_loss",
        "torch.nn.functional.multilabel_soft_margin_loss", "torch.nn.functional.poisson_nll_loss",
        "torch.nn.functional.soft_margin_loss", "torch.pairwise_distance", "torch.searchsorted",
        "torch.slice_inverse"}),
    "contiguous x,0": frozenset({
        "cummax", "cummin", "logcumsumexp", "nanquantile", "quantile", "torch.adaptive_avg_pool1d",
        "torch.adaptive_max_pool1d", "torch.cummax", "torch.cummin", "torch.frobenius_norm",
        "torch.logcumsumexp", "torch.nanquantile",
        "torch.nn.functional.adaptive_max_pool1d_with_indices", "torch.quantile",
        "torch.special.log_softmax", "torch.special.logsumexp", "torch.special.softmax",
        "torch.unsqueeze_copy"}),
    "non-contiguous x": frozenset({
        "argwhere", "diff", "geqrf", "lu", "qr", "svd", "to_mkldnn", "to_sparse", "torch.argwhere",
        "torch.atleast_3d", "torch.diff", "torch.fft.ihfft2", "torch.fft.ihfftn", "torch.geqrf",
        "torch.linalg.diagonal", "torch.linalg.lu_factor", "torch.linalg.lu_factor_ex",
        "torch.linalg.qr", "torch.linalg.svd", "torch.lu", "torch.qr", "torch.svd"}),
    "non-contiguous x,y": frozenset({
        "torch.linalg.lstsq"}),
    "no-tensor x": frozenset({
        "const_data_ptr", "dense_dim", "dim_order", "is_complex", "is_conj", "is_distributed",
        "is_floating_point", "is_inference", "is_neg", "is_pinned", "is_shared", "is_signed",
        "sparse_dim", "storage_type", "torch.fbgemm_linear_quantize_weight", "torch.get_device"}),
    "no-tensor x,y": frozenset({
        "allclose", "equal", "is_same_size", "is_set_to", "torch.allclose", "torch.equal"}),
}

# reason -> ops
NOT_PROBED: dict[str, frozenset[str]] = {
    (
        "ops that need arguments besides one tensor (indices, sizes, a second operand of another "
        "shape): not modelled, the result is unknown to the static model"
    ): frozenset({
        "bincount", "bitwise_left_shift", "bitwise_right_shift", "broadcast_to", "gcd", "index",
        "index_put", "index_reduce", "is_nonzero", "lcm", "multinomial", "mvlgamma",
        "nonzero_static", "put", "renorm", "resize", "scatter_reduce", "sum_to_size",
        "torch.bincount", "torch.bitwise_and", "torch.bitwise_left_shift", "torch.bitwise_not",
        "torch.bitwise_or", "torch.bitwise_right_shift", "torch.bitwise_xor", "torch.bucketize",
        "torch.cartesian_prod", "torch.combinations", "torch.gcd", "torch.index_add",
        "torch.index_put", "torch.index_reduce", "torch.lcm", "torch.mvlgamma",
        "torch.nonzero_static", "torch.polygamma", "torch.put", "torch.renorm", "torch.scatter",
        "torch.scatter_add", "torch.scatter_reduce", "torch.unravel_index"}),
    (
        "out-of-place copies of view ops and scatter variants (`transpose_copy`, `select_scatter`,"
        " `unsafe_split`): not modelled, the result is unknown to the static model"
    ): frozenset({
        "as_strided_scatter", "diagonal_scatter", "narrow_copy", "select_scatter",
        "torch.as_strided_copy", "torch.as_strided_scatter", "torch.diagonal_scatter",
        "torch.expand_copy", "torch.index_copy", "torch.masked_scatter", "torch.narrow_copy",
        "torch.permute_copy", "torch.select_copy", "torch.select_scatter", "torch.split_copy",
        "torch.split_with_sizes_copy", "torch.transpose_copy", "torch.unfold_copy",
        "torch.unsafe_chunk", "torch.unsafe_split", "torch.unsafe_split_with_sizes",
        "torch.view_as_complex_copy", "torch.view_as_real_copy", "torch.view_copy", "unsafe_chunk",
        "unsafe_split", "unsafe_split_with_sizes"}),
    (
        "spectral ops (torch.fft, stft/istft; complex results): not modelled, the result is "
        "unknown to the static model"
    ): frozenset({
        "istft", "stft", "torch.istft"}),
    (
        "backend kernels and internals (miopen, native_*, batch_norm_* statistics, grid_sampler): "
        "called by torch itself, rarely by user code; not modelled"
    ): frozenset({
        "torch.affine_grid_generator", "torch.batch_norm_backward_elemt",
        "torch.batch_norm_backward_reduce", "torch.batch_norm_elemt",
        "torch.batch_norm_gather_stats", "torch.batch_norm_gather_stats_with_counts",
        "torch.batch_norm_stats", "torch.batch_norm_update_stats", "torch.constant_pad_nd",
        "torch.conv_tbc", "torch.convolution", "torch.feature_dropout", "torch.grid_sampler",
        "torch.grid_sampler_2d", "torch.grid_sampler_3d", "torch.max_pool1d_with_indices",
        "torch.miopen_batch_norm", "torch.miopen_convolution", "torch.miopen_convolution_add_relu",
        "torch.miopen_convolution_relu", "torch.miopen_convolution_transpose",
        "torch.miopen_depthwise_convolution", "torch.miopen_rnn", "torch.native_batch_norm",
        "torch.native_channel_shuffle", "torch.native_dropout", "torch.native_group_norm",
        "torch.native_layer_norm", "torch.native_norm", "torch.nn.functional.conv_tbc",
        "torch.nn.functional.max_pool1d_with_indices",
        "torch.nn.functional.native_channel_shuffle"}),
    (
        "linear algebra and matrix products (LAPACK/BLAS results, often column-major): not "
        "modelled, so the static model leaves the result unknown"
    ): frozenset({
        "addmv", "addr", "cholesky", "cholesky_inverse", "cholesky_solve", "det", "ger", "inverse",
        "logdet", "lu_solve", "matrix_exp", "matrix_power", "orgqr", "ormqr", "slogdet", "smm",
        "sspaddmm", "torch.addbmm", "torch.addmv", "torch.addr", "torch.cholesky",
        "torch.cholesky_inverse", "torch.cholesky_solve", "torch.det", "torch.dsmm", "torch.ger",
        "torch.histogramdd", "torch.hsmm", "torch.hspmm", "torch.inverse", "torch.linalg.cholesky",
        "torch.linalg.cholesky_ex", "torch.linalg.det", "torch.linalg.eig", "torch.linalg.eigh",
        "torch.linalg.eigvals", "torch.linalg.eigvalsh", "torch.linalg.householder_product",
        "torch.linalg.inv", "torch.linalg.inv_ex", "torch.linalg.ldl_factor",
        "torch.linalg.ldl_factor_ex", "torch.linalg.ldl_solve", "torch.linalg.lu_solve",
        "torch.linalg.matmul", "torch.linalg.matrix_exp", "torch.linalg.matrix_power",
        "torch.linalg.multi_dot", "torch.linalg.slogdet", "torch.linalg.solve",
        "torch.linalg.solve_ex", "torch.linalg.solve_triangular", "torch.linalg.tensorinv",
        "torch.linalg.tensorsolve", "torch.lobpcg", "torch.logdet", "torch.lu_solve",
        "torch.lu_unpack", "torch.matrix_exp", "torch.matrix_power", "torch.orgqr", "torch.ormqr",
        "torch.saddmm", "torch.slogdet", "torch.smm", "torch.spmm", "torch.sspaddmm",
        "torch.triangular_solve", "torch.vdot", "triangular_solve", "vdot"}),
    (
        "nn kernels that need weights, targets or sizes (losses, pooling with indices, RNN cells, "
        "convolutions spelled as torch.*): not modelled in this spelling, the result is unknown to"
        " the static model"
    ): frozenset({
        "prelu", "torch.alpha_dropout", "torch.avg_pool1d", "torch.batch_norm", "torch.bilinear",
        "torch.channel_shuffle", "torch.conv1d", "torch.conv2d", "torch.conv3d",
        "torch.conv_transpose1d", "torch.conv_transpose2d", "torch.conv_transpose3d",
        "torch.cosine_embedding_loss", "torch.ctc_loss", "torch.dropout", "torch.embedding",
        "torch.embedding_bag", "torch.feature_alpha_dropout", "torch.group_norm", "torch.gru",
        "torch.gru_cell", "torch.instance_norm", "torch.layer_norm", "torch.lstm",
        "torch.lstm_cell", "torch.margin_ranking_loss", "torch.max_pool1d", "torch.max_pool2d",
        "torch.max_pool3d", "torch.nn.functional.adaptive_max_pool2d_with_indices",
        "torch.nn.functional.adaptive_max_pool3d_with_indices",
        "torch.nn.functional.channel_shuffle", "torch.nn.functional.cosine_embedding_loss",
        "torch.nn.functional.ctc_loss", "torch.nn.functional.embedding_bag",
        "torch.nn.functional.fractional_max_pool2d",
        "torch.nn.functional.fractional_max_pool2d_with_indices",
        "torch.nn.functional.fractional_max_pool3d",
        "torch.nn.functional.fractional_max_pool3d_with_indices",
        "torch.nn.functional.gaussian_nll_loss", "torch.nn.functional.linear_cross_entropy",
        "torch.nn.functional.lp_pool1d", "torch.nn.functional.lp_pool3d",
        "torch.nn.functional.margin_ranking_loss", "torch.nn.functional.max_pool2d_with_indices",
        "torch.nn.functional.max_pool3d_with_indices", "torch.nn.functional.max_unpool1d",
        "torch.nn.functional.max_unpool2d", "torch.nn.functional.max_unpool3d",
        "torch.nn.functional.multi_head_attention_forward", "torch.nn.functional.multi_margin_loss",
        "torch.nn.functional.multilabel_margin_loss", "torch.nn.functional.prelu",
        "torch.nn.functional.triplet_margin_loss",
        "torch.nn.functional.triplet_margin_with_distance_loss", "torch.pixel_shuffle",
        "torch.pixel_unshuffle", "torch.poisson_nll_loss", "torch.prelu", "torch.rms_norm",
        "torch.rnn_relu", "torch.rnn_relu_cell", "torch.rnn_tanh", "torch.rnn_tanh_cell",
        "torch.threshold", "torch.triplet_margin_loss"}),
    (
        "quantized tensors and their parameters: outside the layout model (quantized layouts), the"
        " result is unknown"
    ): frozenset({
        "int_repr", "q_per_channel_axis", "q_per_channel_scales", "q_per_channel_zero_points",
        "q_scale", "q_zero_point", "qscheme", "torch.choose_qparams_optimized",
        "torch.fake_quantize_per_channel_affine", "torch.fake_quantize_per_tensor_affine",
        "torch.fbgemm_linear_fp16_weight", "torch.fbgemm_linear_fp16_weight_fp32_activation",
        "torch.fbgemm_linear_int8_weight", "torch.fbgemm_linear_int8_weight_fp32_activation",
        "torch.fbgemm_pack_quantized_matrix", "torch.fused_moving_avg_obs_fake_quant",
        "torch.int_repr", "torch.q_per_channel_axis", "torch.q_per_channel_scales",
        "torch.q_per_channel_zero_points", "torch.q_scale", "torch.q_zero_point",
        "torch.quantize_per_channel", "torch.quantize_per_tensor",
        "torch.quantize_per_tensor_dynamic", "torch.quantized_batch_norm",
        "torch.quantized_gru_cell", "torch.quantized_lstm_cell", "torch.quantized_max_pool1d",
        "torch.quantized_max_pool2d", "torch.quantized_max_pool3d", "torch.quantized_rnn_relu_cell",
        "torch.quantized_rnn_tanh_cell"}),
    (
        "autograd, hooks and device contexts (`backward`, `register_post_accumulate_grad_hook`, "
        "`autocast`, `ipu`/`mtia`): no layout result"
    ): frozenset({
        "backward", "ipu", "mtia", "register_post_accumulate_grad_hook", "torch.autocast"}),
    (
        "sparse tensors (COO/CSR/CSC parts, coalescing): outside the strided layout model, the "
        "result is unknown"
    ): frozenset({
        "ccol_indices", "coalesce", "is_coalesced", "row_indices", "sparse_mask",
        "torch.ccol_indices_copy", "torch.col_indices_copy", "torch.crow_indices_copy",
        "torch.indices_copy", "torch.row_indices_copy", "torch.values_copy"}),
    (
        "torch.special functions taking more than one tensor or a non-float input: not modelled, "
        "the result is unknown to the static model"
    ): frozenset({
        "torch.special.multigammaln", "torch.special.polygamma"}),
    (
        "symbolic shape helpers (torch.sym_*): they act on ints, not tensors"
    ): frozenset({
        "torch.sym_float", "torch.sym_int", "torch.sym_ite", "torch.sym_max", "torch.sym_min",
        "torch.sym_not"}),
}
NAMES: frozenset[str] = frozenset().union(*MEASURED.values(), *NOT_PROBED.values())
