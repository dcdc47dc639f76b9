"""Writes a small Llama-architecture GGUF with random weights and the tokenizer of a vocab-only GGUF.

The weights are random (seeded, so every build writes the same model): the text is gibberish.
Every token that is not plain text gets a zero output row, so that its logit is 0 where the
others' maximum is several standard deviations above it and greedy decoding never picks it:
- the byte-fallback tokens (<0x..>): half a UTF-8 character would fail llama-server's chat
  parser inside the stream;
- <unk> and <s>: they have no text, so the engine streamed a chunk with empty content for them
  (seen once in 14,400 greedy tokens; a test that counts one text chunk per token failed on it);
- </s>: the model never stops before max_tokens, so output lengths are exact for tests.
Run with PYTHONPATH pointing at llama.cpp's gguf-py.
"""
import argparse

import numpy as np
from gguf import GGUFReader, GGUFWriter, TokenType

N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, N_FF, N_CTX = 8, 512, 8, 4, 1408, 2048


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", required=True, help="a vocab-only GGUF (llama.cpp's models/ggml-vocab-llama-spm.gguf)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    vocab = GGUFReader(args.vocab)
    tokens = vocab.fields["tokenizer.ggml.tokens"].contents()
    scores = vocab.fields["tokenizer.ggml.scores"].contents()
    types = vocab.fields["tokenizer.ggml.token_type"].contents()
    n_vocab = len(tokens)

    w = GGUFWriter(args.out, "llama")
    w.add_name("goodput-tiny-llama2-random")
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(n_vocab)
    w.add_file_type(1)  # mostly F16
    w.add_tokenizer_model(vocab.fields["tokenizer.ggml.model"].contents())
    w.add_tokenizer_pre(vocab.fields["tokenizer.ggml.pre"].contents())
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(vocab.fields["tokenizer.ggml.bos_token_id"].contents())
    w.add_eos_token_id(vocab.fields["tokenizer.ggml.eos_token_id"].contents())
    w.add_unk_token_id(vocab.fields["tokenizer.ggml.unknown_token_id"].contents())
    w.add_add_bos_token(bool(vocab.fields["tokenizer.ggml.add_bos_token"].contents()))
    w.add_add_eos_token(bool(vocab.fields["tokenizer.ggml.add_eos_token"].contents()))

    rng = np.random.default_rng(20261203)

    def mat(rows: int, cols: int) -> np.ndarray:
        return (rng.standard_normal((rows, cols), dtype=np.float32) / np.sqrt(cols)).astype(np.float16)

    kv = N_EMBD // N_HEAD * N_HEAD_KV
    w.add_tensor("token_embd.weight", mat(n_vocab, N_EMBD))
    for i in range(N_LAYER):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        w.add_tensor(f"blk.{i}.attn_q.weight", mat(N_EMBD, N_EMBD))
        w.add_tensor(f"blk.{i}.attn_k.weight", mat(kv, N_EMBD))
        w.add_tensor(f"blk.{i}.attn_v.weight", mat(kv, N_EMBD))
        w.add_tensor(f"blk.{i}.attn_output.weight", mat(N_EMBD, N_EMBD))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", mat(N_FF, N_EMBD))
        w.add_tensor(f"blk.{i}.ffn_up.weight", mat(N_FF, N_EMBD))
        w.add_tensor(f"blk.{i}.ffn_down.weight", mat(N_EMBD, N_FF))
    w.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    out = mat(n_vocab, N_EMBD)
    for t, ty in enumerate(types):
        if ty != TokenType.NORMAL:
            out[t, :] = 0
    w.add_tensor("output.weight", out)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
