#!/usr/bin/env bash
# Builds a real inference engine for Goodput's engine tests: upstream llama.cpp's llama-server,
# from the source that npm's node-llama-cpp carries (a git bundle in its tarball), and a small
# Llama-architecture GGUF with random weights and the real Llama-2 tokenizer (the tree's own
# vocab-only GGUF), written with the tree's gguf-py. Built once into the cache folder, reused
# when present. Prints the cache folder last.
#
#   engine/llama-server.sh            build what is missing, print the cache folder
#   engine/llama-server.sh --where    print the cache folder only
#
# GOODPUT_ENGINE_CACHE moves the cache (default ~/.cache/goodput/engine). The engine tests read
# the same variable and skip, saying how to run this script, when the cache is not complete.
set -euo pipefail

NODE_LLAMA_CPP=3.21.1
cache="${GOODPUT_ENGINE_CACHE:-$HOME/.cache/goodput/engine}"
here="$(cd "$(dirname "$0")" && pwd)"

if [ "${1:-}" = "--where" ]; then echo "$cache"; exit 0; fi

log() { echo "engine: $*" >&2; }
mkdir -p "$cache"

# 1. llama.cpp's source, from the npm package's git bundle
src="$cache/src/llama.cpp"
if [ ! -f "$src/tools/server/server.cpp" ]; then
  command -v npm >/dev/null || { log "npm is needed (apt-get install nodejs npm)"; exit 1; }
  tmp="$(mktemp -d)"
  log "npm pack node-llama-cpp@$NODE_LLAMA_CPP"
  (cd "$tmp" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP" >/dev/null)
  tar -xzf "$tmp"/node-llama-cpp-*.tgz -C "$tmp" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json
  rm -rf "$src"; mkdir -p "$cache/src"
  git -c advice.detachedHead=false clone -q "$tmp/package/llama/gitRelease.bundle" "$src"
  cp "$tmp/package/llama/llama.cpp.info.json" "$cache/src/llama.cpp.info.json"
  rm -rf "$tmp"
fi

# 2. llama-server, portable across this kind's CPUs (GGML_NATIVE=OFF keeps AVX2/FMA, not AVX-512)
bin="$cache/bin/llama-server"
if [ ! -x "$bin" ]; then
  command -v cmake >/dev/null || { log "cmake is needed (apt-get install cmake)"; exit 1; }
  log "building llama-server (10-17 minutes on 2 cores)"
  start=$(date +%s)
  cmake -S "$src" -B "$cache/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF >"$cache/cmake.log" 2>&1 \
    || { tail -30 "$cache/cmake.log"; exit 1; }
  cmake --build "$cache/build" --target llama-server -j "$(nproc)" >"$cache/build.log" 2>&1 \
    || { tail -40 "$cache/build.log"; exit 1; }
  mkdir -p "$cache/bin"
  cp "$cache/build/bin/llama-server" "$bin.tmp" && mv "$bin.tmp" "$bin"
  log "llama-server built in $(( $(date +%s) - start )) s"
fi

# 3. the model: random weights, the real Llama-2 tokenizer
# (rewritten when tiny_llama_gguf.py changes: its hash is stamped beside the model)
model="$cache/models/tiny-llama2.gguf"
stamp="$(sha256sum "$here/tiny_llama_gguf.py" | cut -c1-16)"
if [ ! -f "$model" ] || [ "$(cat "$model.stamp" 2>/dev/null)" != "$stamp" ]; then
  py="${PYTHON:-python3}"
  "$py" -c 'import numpy' 2>/dev/null || PIP_RETRIES="${PIP_RETRIES:-0}" "$py" -m pip install -q numpy
  mkdir -p "$cache/models"
  PYTHONPATH="$src/gguf-py" "$py" "$here/tiny_llama_gguf.py" \
    --vocab "$src/models/ggml-vocab-llama-spm.gguf" --out "$model.tmp"
  mv "$model.tmp" "$model"
  echo "$stamp" > "$model.stamp"
fi

# 4. the same tokenizer as a Hugging Face tokenizer.json, for the contract's file tokenizer
tok="$cache/models/llama2-tokenizer.json"
if [ ! -f "$tok" ]; then
  py="${PYTHON:-python3}"
  "$py" -c "import tokenizers" 2>/dev/null || PIP_RETRIES="${PIP_RETRIES:-0}" "$py" -m pip install -q tokenizers || log "no tokenizers package: the vocab check is skipped"
  PYTHONPATH="$src/gguf-py" "$py" "$here/spm_tokenizer_json.py" \
    --vocab "$src/models/ggml-vocab-llama-spm.gguf" --out "$tok.tmp"
  mv "$tok.tmp" "$tok"
fi

echo "$cache"
