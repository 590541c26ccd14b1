"""Mutants drawn from monai, torch-geometric, speechbrain and segmentation-models-pytorch
(tuning corpus). Run: python benchmarks/mutants_repro/monai_pyg_sb_smp.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import run_all


def monai_complex_normalize_3d(mutant, b, c, h, w, d):
    # monai/apps/reconstruction/networks/nets/utils.py complex_normalize; its caller
    # (complex_unet.py) passes reshape_complex_to_channel_dim(x): permute(...).contiguous().view
    x = torch.randn(b, c // 2, h, w, d, 2).permute(0, 5, 1, 2, 3, 4).contiguous()
    x = x.view(b, c, h, w, d)
    return (x if mutant else x.contiguous()).view(b, 2, c // 2 * h * w * d)


def monai_swin_window_reverse(mutant, b, h, w, ws, c):
    # monai/networks/nets/swin_unetr.py window_reverse, 2-D branch
    windows = torch.randn(b * (h // ws) * (w // ws), ws * ws, c)
    x = windows.view(b, h // ws, w // ws, ws, ws, -1).permute(0, 1, 3, 2, 4, 5)
    return (x if mutant else x.contiguous()).view(b, h, w, -1)


def monai_anchor_centers(mutant, size, stride):
    # monai/apps/detection/utils/anchor_utils.py AnchorGenerator.grid_anchors
    centers = [torch.arange(0, size[a], dtype=torch.int32) * stride[a] + stride[a] // 2
               for a in range(len(size))]
    centers = list(torch.meshgrid(centers, indexing="ij"))
    return [c.view(-1) if mutant else c.reshape(-1) for c in centers]


def monai_cam_split(mutant, b, c, spatial):
    # monai/visualize/class_activation_maps.py CAM.compute_map: acti is a conv layer's output
    acti = torch.nn.Conv2d(3, c, 3, padding=1)(torch.randn(b, 3, *spatial)) if len(
        spatial) == 2 else torch.nn.Conv3d(3, c, 3, padding=1)(torch.randn(b, 3, *spatial))
    acti = acti.view(b, c, -1) if mutant else acti.reshape(b, c, -1)
    return torch.split(acti, 1, dim=2)


def pyg_rgat_block(mutant, E, heads, out_channels, in_channels, num_blocks):
    # torch_geometric/nn/conv/rgat_conv.py RGATConv.message, block-diagonal decomposition:
    # weight (num_relations, num_blocks, in/num_blocks, heads*out/num_blocks); outi and outj
    # are the same lines on x_i and x_j, the (E, in) features gathered per edge
    w = torch.randn(3, num_blocks, in_channels // num_blocks,
                    heads * out_channels // num_blocks)
    x = torch.randn(E, in_channels).view(-1, 1, w.size(1), w.size(2))
    w = torch.index_select(w, 0, torch.randint(0, 3, (E,)))
    out = torch.einsum("abcd,acde->ace", x, w)
    return (out if mutant else out.contiguous()).view(-1, heads * out_channels)


def pyg_dense_gat(mutant, B, N, H, C):
    # torch_geometric/nn/dense/dense_gat_conv.py DenseGATConv.forward (concat=True)
    x = torch.randn(B, N, H, C)
    alpha = torch.randn(B, N, N, H).softmax(dim=2)
    out = torch.matmul(alpha.movedim(3, 1), x.movedim(2, 1)).movedim(1, 2)
    return out.view(B, N, H * C) if mutant else out.reshape(B, N, H * C)


def pyg_visnet_k(mutant, nodes, hidden, heads):
    # torch_geometric/nn/models/visnet.py ViS_MP.forward: k_proj(layernorm(x))
    x = F.layer_norm(torch.randn(nodes, hidden), (hidden,))
    k = torch.nn.Linear(hidden, hidden)(x)
    shape = (-1, heads, hidden // heads)
    return k.view(*shape) if mutant else k.reshape(*shape)


def sb_resepformer_mem(mutant, directions, B, S, H):
    # speechbrain/lobes/models/resepformer.py MemLSTM.forward: (h, c) of the SegLSTM's
    # nn.LSTM, (d, B*S, H); ResourceEfficientSeparator builds it bidirectional unless causal
    lstm = torch.nn.LSTM(8, H, batch_first=True, bidirectional=directions == 2)
    _, (h, c) = lstm(torch.randn(B * S, 5, 8))
    d, BS, H = c.shape
    c = c.transpose(1, 0)
    return (c if mutant else c.contiguous()).view(B, S, d * H)


def sb_over_add(mutant, B, N, K, S):
    # speechbrain/lobes/models/dual_path.py Dual_Path_Model._over_add: input [B, N, K, S]
    inp = torch.randn(B, N, K, S).transpose(2, 3)
    return (inp if mutant else inp.contiguous()).view(B, N, -1, K * 2)


def sb_qligru_hidden(mutant, B, T, hidden, layers):
    # speechbrain/nnet/quaternion_networks/q_RNN.py QLiGRU._forward_ligru, bidirectional:
    # h is torch.stack of each layer's x[:, -1, :]
    xs = [torch.randn(B, T, 2 * hidden) for _ in range(layers)]
    h = torch.stack([x[:, -1, :] for x in xs], dim=1)
    shape = (h.shape[1] * 2, h.shape[0], hidden)
    return h.view(*shape) if mutant else h.reshape(*shape)


def sb_beam_log_probs(mutant, batch, beam, vocab):
    # speechbrain/decoders/seq2seq.py S2SBeamSearcher._update_hyp_and_scores
    log_probs = torch.randn(batch, beam * vocab).log_softmax(-1)
    candidates = torch.randint(0, beam * vocab, (batch, beam))
    x = log_probs[torch.arange(batch).unsqueeze(1), candidates]
    return x.view(batch * beam) if mutant else x.reshape(batch * beam)


def smp_lovasz_binary_scores(mutant, B, H, W, per_image):
    # segmentation_models_pytorch/losses/lovasz.py _flatten_binary_scores; LovaszLoss passes
    # the model's logits, per image as log.unsqueeze(0)
    logits = torch.nn.Conv2d(4, 1, 1)(torch.randn(B, 4, H, W)).squeeze(1)
    scores = [log.unsqueeze(0) for log in logits] if per_image else [logits]
    return [s.view(-1) if mutant else s.reshape(-1) for s in scores]


def smp_lovasz_probas(mutant, B, H, W):
    # segmentation_models_pytorch/losses/lovasz.py _flatten_probas for 3-D probas
    probas = torch.randn(B, 1, H, W).sigmoid().squeeze(1)
    return probas.view(B, 1, H, W) if mutant else probas.reshape(B, 1, H, W)


def smp_jaccard_multilabel(mutant, bs, C, H, W):
    # segmentation_models_pytorch/losses/jaccard.py JaccardLoss.forward, multilabel mode:
    # y_true is the target mask (bs, C, H, W)
    y_true = (torch.rand(bs, C, H, W) > 0.5).float()
    return y_true.view(bs, C, -1) if mutant else y_true.reshape(bs, C, -1)


def smp_focal_binary(mutant, B, H, W, from_logits):
    # segmentation_models_pytorch/losses/focal.py FocalLoss.forward, binary mode
    y_pred = torch.nn.Conv2d(4, 1, 1)(torch.randn(B, 4, H, W))
    if not from_logits:
        y_pred = torch.clamp(y_pred, 1e-7, 1 - 1e-7)
        y_pred = torch.log(y_pred / (1 - y_pred))
    return y_pred.view(-1) if mutant else y_pred.reshape(-1)


CASES = {
    "monai_complex_normalize_3d": (monai_complex_normalize_3d, [
        dict(b=1, c=2, h=8, w=8, d=4), dict(b=2, c=4, h=16, w=12, d=6)]),
    "monai_swin_window_reverse": (monai_swin_window_reverse, [
        dict(b=1, h=14, w=14, ws=7, c=24), dict(b=2, h=7, w=7, ws=7, c=24)]),
    "monai_anchor_centers": (monai_anchor_centers, [dict(size=(4, 5), stride=(8, 8)),
                                                    dict(size=(4, 5, 6), stride=(4, 4, 2))]),
    "monai_cam_split": (monai_cam_split, [dict(b=2, c=8, spatial=(6, 6)),
                                          dict(b=1, c=4, spatial=(4, 4, 4))]),
    "pyg_rgat_block_outj": (pyg_rgat_block, [
        dict(E=10, heads=2, out_channels=8, in_channels=16, num_blocks=4),
        dict(E=5, heads=1, out_channels=4, in_channels=4, num_blocks=2)]),
    "pyg_rgat_block_outi": (pyg_rgat_block, [
        dict(E=10, heads=2, out_channels=8, in_channels=16, num_blocks=4),
        dict(E=5, heads=1, out_channels=4, in_channels=4, num_blocks=2)]),
    "pyg_dense_gat": (pyg_dense_gat, [dict(B=2, N=5, H=2, C=8), dict(B=1, N=3, H=1, C=4)]),
    "pyg_visnet_k": (pyg_visnet_k, [dict(nodes=12, hidden=128, heads=8)]),
    "sb_resepformer_mem": (sb_resepformer_mem, [dict(directions=1, B=2, S=3, H=16),
                                                dict(directions=2, B=2, S=3, H=16)]),
    "sb_over_add": (sb_over_add, [dict(B=2, N=8, K=10, S=6), dict(B=1, N=4, K=250, S=3)]),
    "sb_qligru_hidden": (sb_qligru_hidden, [dict(B=2, T=5, hidden=8, layers=2),
                                            dict(B=1, T=3, hidden=4, layers=4)]),
    "sb_beam_log_probs": (sb_beam_log_probs, [dict(batch=2, beam=3, vocab=10),
                                              dict(batch=1, beam=1, vocab=5)]),
    "smp_lovasz_binary_scores": (smp_lovasz_binary_scores, [
        dict(B=2, H=8, W=8, per_image=False), dict(B=2, H=8, W=8, per_image=True)]),
    "smp_lovasz_probas": (smp_lovasz_probas, [dict(B=2, H=8, W=6), dict(B=1, H=4, W=4)]),
    "smp_jaccard_multilabel": (smp_jaccard_multilabel, [dict(bs=2, C=3, H=8, W=8)]),
    "smp_focal_binary": (smp_focal_binary, [dict(B=2, H=8, W=8, from_logits=True),
                                            dict(B=2, H=8, W=8, from_logits=False)]),
}

if __name__ == "__main__":
    run_all(CASES)
