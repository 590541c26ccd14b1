"""CTG101 findings on the real-code corpus: does the flagged `.view()` raise for realistic input?

Each case copies the few lines from the flagged function that shape the tensor (cited by
package/path), feeds them realistic sizes, and prints whether the view raises.
Run: python benchmarks/realcode_repro/ctg101_views.py
"""
import torch
import torch.nn.functional as F

from common import outcome


def tacotron2_parse_decoder_inputs(n_frames_per_step):
    # speechbrain/lobes/models/Tacotron2.py Decoder.parse_decoder_inputs
    decoder_inputs = torch.randn(2, 80, 12)            # (B, n_mel_channels, T_out)
    decoder_inputs = decoder_inputs.transpose(1, 2)
    decoder_inputs = decoder_inputs.view(
        decoder_inputs.size(0), int(decoder_inputs.size(1) / n_frames_per_step), -1)
    return tuple(decoder_inputs.shape)


def beats_tpu_masking():
    # speechbrain/lobes/models/beats.py: the is_tpu branch transposes twice around masked_fill
    bsz, heads, tgt, src = 2, 4, 5, 5
    attn_weights = torch.randn(bsz, heads, tgt, src)
    key_padding_mask = torch.zeros(bsz, src, dtype=torch.bool)
    attn_weights = attn_weights.transpose(0, 2)
    attn_weights = attn_weights.masked_fill(key_padding_mask, float("-inf"))
    attn_weights = attn_weights.transpose(0, 2)
    return tuple(attn_weights.view(bsz * heads, tgt, src).shape)


def smiles_edge_index():
    # torch_geometric/utils/smiles.py from_rdmol: edge_indices is a list of [i, j] pairs
    edge_indices = [[0, 1], [1, 0], [1, 2], [2, 1]]
    edge_index = torch.tensor(edge_indices)
    return tuple(edge_index.t().to(torch.long).view(2, -1).shape)  # the shape it already has


def dia_embeddings(seq_len):
    # transformers/models/dia: decoder_input_ids (bsz, channels, seq) -> transpose(1, 2), then
    # DiaMultiChannelEmbedding.forward adds the (C,) offsets and views (B, S*C)
    bsz, channels, vocab = 2, 9, 1028
    codes = torch.randint(0, vocab, (bsz, channels, seq_len)).transpose(1, 2)
    offsets = torch.arange(channels) * vocab
    return tuple((codes + offsets).view(-1, codes.shape[1] * codes.shape[2]).shape)


def llava_onevision_pool():
    # transformers/models/llava_onevision: apply_pooling
    batch_frames, height, width, dim = 2, 6, 6, 16
    image_features = torch.randn(batch_frames, height * width, dim)
    image_features = image_features.view(batch_frames, height, width, -1)
    image_features = image_features.permute(0, 3, 1, 2).contiguous()
    image_features = F.interpolate(image_features, size=[3, 3], mode="bilinear")
    image_features = image_features.permute(0, 2, 3, 1)
    return tuple(image_features.view(batch_frames, -1, dim).shape)


def phi4_unfold_tensor(batch, seq_len, max_seq_len=4):
    # transformers/models/phi4_multimodal: unfold_tensor, called when seq_len > max_seq_len
    tensor = torch.randn(batch, seq_len, 8)
    _, _, D = tensor.shape
    tensor = tensor.transpose(-1, -2)
    tensor = F.unfold(tensor[..., None, :], kernel_size=(1, max_seq_len), stride=(1, max_seq_len))
    new_bsz, _, slen = tensor.shape
    tensor = tensor.view(new_bsz, -1, max_seq_len, slen)
    tensor = tensor.permute(0, 3, 2, 1)
    return tuple(tensor.view(-1, max_seq_len, D).shape)


def seamless_input_ids():
    # transformers/models/seamless_m4t_v2: the text decoder views input_ids sequences[:, :-1]
    sequences = torch.randint(0, 100, (3, 7))
    input_ids = sequences[:, :-1]
    return tuple(input_ids.view(-1, input_ids.size(-1)).shape)  # the shape it already has


def univnet_local_conv(dilation=1):
    # transformers/models/univnet: UnivNetLvcBlock.location_variable_convolution; its only
    # call passes no dilation (default 1). einsum's output layout depends on whether the
    # window letter `d` (of size dilation) is 1: with 1 the view succeeds, with 3 it raises
    batch, in_channels, out_channels, kernel_size, hop_size = 2, 4, 8, 3, 5
    kernel_length = 3
    hidden_states = torch.randn(batch, in_channels, kernel_length * hop_size)
    kernel = torch.randn(batch, in_channels, out_channels, kernel_size, kernel_length)
    bias = torch.randn(batch, out_channels, kernel_length)
    padding = dilation * int((kernel_size - 1) / 2)
    hidden_states = F.pad(hidden_states, (padding, padding), "constant", 0)
    hidden_states = hidden_states.unfold(2, hop_size + 2 * padding, hop_size)
    if hop_size < dilation:
        hidden_states = F.pad(hidden_states, (0, dilation), "constant", 0)
    hidden_states = hidden_states.unfold(3, dilation, dilation)
    hidden_states = hidden_states[:, :, :, :, :hop_size]
    hidden_states = hidden_states.transpose(3, 4)
    hidden_states = hidden_states.unfold(4, kernel_size, 1)
    out = torch.einsum("bildsk,biokl->bolsd", hidden_states, kernel)
    out = out + bias.unsqueeze(-1).unsqueeze(-1)
    return tuple(out.view(batch, out_channels, -1).shape)


if __name__ == "__main__":
    outcome("speechbrain Tacotron2.py:899 n_frames_per_step=1 (default)",
            lambda: tacotron2_parse_decoder_inputs(1))
    outcome("speechbrain Tacotron2.py:899 n_frames_per_step=2",
            lambda: tacotron2_parse_decoder_inputs(2))
    outcome("speechbrain beats.py:1676 is_tpu path", beats_tpu_masking)
    outcome("torch-geometric smiles.py:124", smiles_edge_index)
    outcome("transformers dia modeling_dia.py:95 seq_len=1 (generation step)",
            lambda: dia_embeddings(1))
    outcome("transformers dia modeling_dia.py:95 seq_len=5 (prefill, 2-D decoder_input_ids)",
            lambda: dia_embeddings(5))
    outcome("transformers llava_onevision modeling_llava_onevision.py:580", llava_onevision_pool)
    outcome("transformers phi4_multimodal modeling_phi4_multimodal.py:876 batch=1",
            lambda: phi4_unfold_tensor(1, 8))
    outcome("transformers phi4_multimodal modeling_phi4_multimodal.py:876 batch=2",
            lambda: phi4_unfold_tensor(2, 8))
    outcome("transformers seamless_m4t_v2 modeling_seamless_m4t_v2.py:1772", seamless_input_ids)
    outcome("transformers univnet modeling_univnet.py:329 (the call: dilation=1)",
            univnet_local_conv)
    outcome("transformers univnet modeling_univnet.py:329 (dilation=3, not passed)",
            lambda: univnet_local_conv(3))
