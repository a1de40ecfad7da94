# The tests of the local notebook runtime (docker/lab.mk; included by the root Makefile after it).
#
#   make test-notebooks   execute every notebook headless + clean-notebook check + checker self-test
#                         + answers hidden until predicted (docker/test/predictions_test.py, which
#                           executes the gated notebooks again with predictions filled in: out/notebooks-predicted)
#                         + notebook 09's real-engine A/B comparison, as that filled-in run shows it,
#                           well formed (docker/test/comparison_test.py)
#   make test-browser     every notebook in a real JupyterLab driven by headless Chromium
#                         (docker/test/browser, playwright-core from its package-lock.json), and the
#                         chart renderer against every course chart and hostile options (renderer.test.mjs)

BROWSER_DIR := $(LAB_REPO)/docker/test/browser
LAB_NPM_KEY := $(call lab_hash,$(BROWSER_DIR)/package-lock.json)


.PHONY: test-notebooks test-browser browser-setup test-setup

# Inside `make test` (IN_MAKE_TEST=1) the lab is set up once, by test-setup, before anything
# else of its lane; the targets then leave it alone: `lab-setup` rewrites the kernelspec, and a
# kernel starting in the other lane at that moment could read it half written.
LAB_READY := $(if $(filter 1,$(IN_MAKE_TEST)),,lab-setup)

# Everything the lab's tests install (venv, tools, extension, engine, playwright-core), as one
# step of make test's timing table.
test-setup: lab-setup browser-setup

# Every notebook is executed headless once (out/notebooks/), and every check that reads an
# executed notebook reads that copy: the predictions and output-text checks, and the browser's
# "reopen the executed copy". The stamp is keyed on what the notebooks run (the notebooks,
# coursekit, data, the kernel and its proxy); `make test` always removes it, so each test run
# executes them once.
NB_EXECUTED := $(LAB_REPO)/out/notebooks
# The gated notebooks executed with their predictions filled in, by predictions_test.py within
# test-notebooks; comparison_test.py, the next step, reads 09's comparison there.
NB_PREDICTED := $(LAB_REPO)/out/notebooks-predicted
NB_INPUTS := $(shell cd $(LAB_REPO) && git ls-files -co --exclude-standard -- notebooks coursekit data course.go go.mod go.sum docker/nbrun.py docker/kernel_proxy.py docker/kernel_hints.py docker/install-kernel.sh 2>/dev/null | sed 's|^|$(LAB_REPO)/|')

# Within one `make test` (IN_MAKE_TEST=1) a failed execution is not repeated by each target that
# needs it: they fail at once, pointing at the first failure.
$(NB_EXECUTED)/.stamp: $(NB_INPUTS) | $(LAB_READY)
	@if [ "$(IN_MAKE_TEST)" = 1 ] && [ -f $(LAB_REPO)/out/notebooks.failed ]; then \
	  echo "the notebooks failed to execute earlier in this run (see notebooks-executed above)" >&2; exit 1; fi
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/nbrun.py --check-clean $(LAB_NOTEBOOKS)
	cd $(LAB_REPO) && rm -rf $(NB_EXECUTED) && { $(LAB_ENV) $(LAB_PY) docker/nbrun.py --out $(NB_EXECUTED) $(LAB_NOTEBOOKS) || { touch out/notebooks.failed; exit 1; }; }
	touch $@

.PHONY: notebooks-executed
notebooks-executed: $(NB_EXECUTED)/.stamp

test-notebooks: $(NB_EXECUTED)/.stamp
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/test/nbrun_test.py
	@# The comparison check runs even when a gate check failed: it needs only the filled-in run.
	cd $(LAB_REPO) && { $(LAB_ENV) $(LAB_PY) docker/test/predictions_test.py $(NB_EXECUTED) --out $(NB_PREDICTED); p=$$?; \
	  $(LAB_PY) docker/test/comparison_test.py $(NB_PREDICTED); c=$$?; [ $$p = 0 ] && [ $$c = 0 ]; }
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/test/kernel_proxy_test.py

$(BROWSER_DIR)/node_modules/.stamp-$(LAB_NPM_KEY):
	@command -v npm >/dev/null 2>&1 || { echo "test-browser: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
	cd $(BROWSER_DIR) && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
	@rm -f $(BROWSER_DIR)/node_modules/.stamp-* && touch $@

browser-setup: $(BROWSER_DIR)/node_modules/.stamp-$(LAB_NPM_KEY)

test-browser: $(NB_EXECUTED)/.stamp browser-setup
	@test -x /usr/bin/chromium || { echo "test-browser: /usr/bin/chromium is missing: run 'bash docker/host-setup.sh test' as root (apt-get install chromium fonts-noto-cjk)" >&2; exit 1; }
	cd $(LAB_REPO) && $(LAB_ENV) LAB_VENV=$(LAB_VENV) node --test --test-concurrency=1 docker/test/browser/browser.test.mjs docker/test/browser/deliverable.test.mjs docker/test/browser/formula.test.mjs docker/test/browser/culling.test.mjs docker/test/browser/kernel-memory.test.mjs docker/test/browser/renderer.test.mjs

# The culling test alone, CULLING_REPEAT times in a row, while stress-ng keeps CULLING_STRESS CPU
# workers busy (0: none): how the culling test was proven under load.
CULLING_REPEAT ?= 1
CULLING_STRESS ?= 2
.PHONY: test-culling
test-culling: lab-setup browser-setup
	@bash docker/host-setup.sh load
	@if [ "$(CULLING_STRESS)" != 0 ]; then stress-ng --cpu $(CULLING_STRESS) --timeout 2h --quiet & load=$$!; trap 'kill $$load 2>/dev/null' EXIT; fi; \
	pass=0; for i in $$(seq $(CULLING_REPEAT)); do \
	  cd $(LAB_REPO) && $(LAB_ENV) LAB_VENV=$(LAB_VENV) node --test docker/test/browser/culling.test.mjs >out/culling-$$i.log 2>&1 \
	    && pass=$$((pass+1)) || { echo "test-culling: run $$i failed:"; cat out/culling-$$i.log; }; \
	  echo "test-culling: run $$i of $(CULLING_REPEAT): $$pass passed so far; load average $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	done; \
	echo "test-culling: $$pass passed, $$(( $(CULLING_REPEAT) - pass )) failed"; [ $$pass = $(CULLING_REPEAT) ]
