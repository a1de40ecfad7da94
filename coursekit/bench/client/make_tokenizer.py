"""Build a tiny tokenizer for the benchmark clients, offline.

AIPerf (and guidellm) want a Hugging Face tokenizer to count and
synthesise tokens. Nothing may come from a model hub, so this trains a
small WordLevel tokenizer with the `tokenizers` package on generated text
(the simulator's output words plus a few hundred made-up words) and saves
it as a folder that transformers' AutoTokenizer loads by path:

    python make_tokenizer.py OUT_DIR [HF_CACHE_DIR REPO_ID]

With HF_CACHE_DIR and REPO_ID it also lays the same files out as a local
Hugging Face hub cache entry (models--OWNER--NAME/snapshots/REV/…, refs/main),
so a tool run with HF_HUB_OFFLINE=1 and HF_HUB_CACHE=HF_CACHE_DIR finds
REPO_ID there without any network: AIPerf 0.13.0 in offline mode resolves
every tokenizer name, even a folder path, through the hub cache.
"""

import hashlib
import json
import os
import random
import shutil
import sys

from tokenizers import Tokenizer, models, pre_tokenizers, trainers


def corpus(seed=42, lines=2000):
    rng = random.Random(seed)
    sim_words = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "."]
    letters = "abcdefghijklmnopqrstuvwxyz"
    made_up = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 8))) for _ in range(500)]
    vocab = sim_words + made_up + ["hello"]
    for _ in range(lines):
        yield " ".join(rng.choice(vocab) for _ in range(rng.randint(5, 30)))


def main(out):
    os.makedirs(out, exist_ok=True)
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    special = ["[UNK]", "<s>", "</s>", "[PAD]"]
    tok.train_from_iterator(corpus(), trainers.WordLevelTrainer(special_tokens=special, min_frequency=1))
    tok.save(os.path.join(out, "tokenizer.json"))
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({
            "tokenizer_class": "PreTrainedTokenizerFast",
            "unk_token": "[UNK]", "bos_token": "<s>", "eos_token": "</s>", "pad_token": "[PAD]",
            "model_max_length": 1 << 20,
        }, f, indent=1)
    with open(os.path.join(out, "special_tokens_map.json"), "w") as f:
        json.dump({"unk_token": "[UNK]", "bos_token": "<s>", "eos_token": "</s>", "pad_token": "[PAD]"}, f, indent=1)
    print(f"tokenizer: {tok.get_vocab_size()} words in {out}")


def hub_cache(out, cache, repo_id):
    """Copy the folder into a hub-cache snapshot of repo_id."""
    files = sorted(os.listdir(out))
    h = hashlib.sha1()
    for name in files:
        with open(os.path.join(out, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    rev = h.hexdigest()
    repo = os.path.join(cache, "models--" + repo_id.replace("/", "--"))
    snap = os.path.join(repo, "snapshots", rev)
    os.makedirs(snap, exist_ok=True)
    for name in files:
        shutil.copyfile(os.path.join(out, name), os.path.join(snap, name))
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(rev)
    print(f"tokenizer: also {repo_id} in the local hub cache {cache}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tokenizer")
    if len(sys.argv) > 3:
        hub_cache(sys.argv[1], sys.argv[2], sys.argv[3])
