# The tests of the local notebook runtime (docker/lab.mk; included by the root Makefile after it).
#
#   make test-notebooks   execute every notebook headless + clean-notebook check + checker self-test
#                         + answers hidden until predicted (docker/test/predictions_test.py)
#   make test-browser     every notebook in a real JupyterLab driven by headless Chromium
#                         (docker/test/browser, playwright-core from its package-lock.json), and the
#                         chart renderer against every course chart and hostile options (renderer.test.mjs)

BROWSER_DIR := $(LAB_REPO)/docker/test/browser
LAB_NPM_KEY := $(call lab_hash,$(BROWSER_DIR)/package-lock.json)

TESTS += test-notebooks test-browser

.PHONY: test-notebooks test-browser browser-setup

# Every notebook is executed headless once (out/notebooks/), and every check that reads an
# executed notebook reads that copy: the predictions and output-text checks, and the browser's
# "reopen the executed copy". The stamp is keyed on what the notebooks run (the notebooks,
# coursekit, data, the kernel and its proxy); `make test` always removes it, so each test run
# executes them once.
NB_EXECUTED := $(LAB_REPO)/out/notebooks
NB_INPUTS := $(shell cd $(LAB_REPO) && git ls-files -co --exclude-standard -- notebooks coursekit data course.go go.mod go.sum docker/nbrun.py docker/kernel_proxy.py docker/kernel_hints.py docker/install-kernel.sh 2>/dev/null | sed 's|^|$(LAB_REPO)/|')

$(NB_EXECUTED)/.stamp: $(NB_INPUTS) | lab-setup
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/nbrun.py --check-clean $(LAB_NOTEBOOKS)
	cd $(LAB_REPO) && rm -rf $(NB_EXECUTED) && $(LAB_ENV) $(LAB_PY) docker/nbrun.py --out $(NB_EXECUTED) $(LAB_NOTEBOOKS)
	touch $@

.PHONY: notebooks-executed
notebooks-executed: $(NB_EXECUTED)/.stamp

test-notebooks: $(NB_EXECUTED)/.stamp
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/test/nbrun_test.py
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/test/predictions_test.py $(NB_EXECUTED)
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/test/kernel_proxy_test.py

$(BROWSER_DIR)/node_modules/.stamp-$(LAB_NPM_KEY):
	@command -v npm >/dev/null 2>&1 || { echo "test-browser: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
	cd $(BROWSER_DIR) && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
	@rm -f $(BROWSER_DIR)/node_modules/.stamp-* && touch $@

browser-setup: $(BROWSER_DIR)/node_modules/.stamp-$(LAB_NPM_KEY)

test-browser: lab-setup browser-setup
	@test -x /usr/bin/chromium || { echo "test-browser: /usr/bin/chromium is missing: run 'bash docker/host-setup.sh test' as root (apt-get install chromium fonts-noto-cjk)" >&2; exit 1; }
	cd $(LAB_REPO) && $(LAB_ENV) LAB_VENV=$(LAB_VENV) node --test --test-concurrency=1 docker/test/browser/browser.test.mjs docker/test/browser/deliverable.test.mjs docker/test/browser/formula.test.mjs docker/test/browser/kernel-memory.test.mjs docker/test/browser/renderer.test.mjs
