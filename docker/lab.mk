# The local notebook runtime, no Docker: `make lab` (included by the root Makefile).
#
#   make lab-setup        venv (.lab/venv), Go tools (.lab/bin), the course's JupyterLab extension
#                         (docker/labextension, built from source), gonb kernelspec (.lab/jupyter),
#                         warm Go caches; idempotent, stamps keyed on the pin files' content; each
#                         step is named and timed, its output in .lab/logs/
#   make lab              lab-setup, checks, then JupyterLab on 127.0.0.1:$(LAB_PORT), token auth, notebooks/
#                         (in Chinese; idle kernels stop after LAB_KERNEL_IDLE_TIMEOUT s, default 1800)
#   make lab-clean        remove .lab/ (the user's own Jupyter and Go caches are untouched)
#
# The tests of this runtime (make test-notebooks, make test-browser) are in docker/test/lab.mk.
#
# Everything lives in ignored folders: .lab/ and out/. JUPYTER_DATA_DIR, JUPYTER_CONFIG_DIR and
# JUPYTER_RUNTIME_DIR point into .lab/, so the user's own Jupyter setup is neither used nor changed.

LAB_REPO    := $(abspath $(dir $(abspath $(lastword $(MAKEFILE_LIST))))..)
LAB_DIR     := $(LAB_REPO)/.lab
LAB_VENV    := $(LAB_DIR)/venv
LAB_BIN     := $(LAB_DIR)/bin
LAB_JUPYTER := $(LAB_DIR)/jupyter
LAB_STAMPS  := $(LAB_DIR)/stamps
LAB_PORT    ?= 8888
LAB_PYTHON  ?= python3
LAB_PY      := $(LAB_VENV)/bin/python
LAB_ENV     := JUPYTER_DATA_DIR=$(LAB_JUPYTER) JUPYTER_CONFIG_DIR=$(LAB_DIR)/config \
               JUPYTER_RUNTIME_DIR=$(LAB_DIR)/runtime JUPYTER_PLATFORM_DIRS=1
LAB_NOTEBOOKS := $(LAB_REPO)/notebooks
# The notebook run at setup time that fills the build cache (gonbui, gota, go-echarts, coursekit).
LAB_WARM_NB ?= $(firstword $(wildcard $(LAB_NOTEBOOKS)/00-runtime-check.ipynb) $(sort $(wildcard $(LAB_NOTEBOOKS)/*.ipynb)))
LABEXT_DIR  := $(LAB_REPO)/docker/labextension
LAB_LOGS    := $(LAB_DIR)/logs
LAB_STEP    := bash $(LAB_REPO)/docker/lab-step.sh
LAB_KERNEL_IDLE_TIMEOUT ?= 1800

# Stamp names carry a hash of what they were built from (file contents, Python and Go versions),
# so a changed pin rebuilds only its part, and a fresh checkout (new mtimes) rebuilds nothing.
lab_hash = $(shell cat $(1) 2>/dev/null | sha256sum | cut -c1-12)
LAB_VENV_KEY  := $(call lab_hash,$(LAB_REPO)/docker/requirements.txt)-py$(shell $(LAB_PYTHON) -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)
LAB_TOOLS_KEY := $(call lab_hash,$(LAB_REPO)/docker/tools/go.mod $(LAB_REPO)/docker/tools/go.sum)-$(shell $(GO) env GOVERSION 2>/dev/null)
LAB_WARM_KEY  := $(call lab_hash,$(LAB_REPO)/go.mod $(LAB_REPO)/go.sum $(LAB_REPO)/docker/install-kernel.sh)
LAB_EXT_KEY   := $(call lab_hash,$(LABEXT_DIR)/package.json $(LABEXT_DIR)/package-lock.json $(sort $(wildcard $(LABEXT_DIR)/src/*.js)) $(LAB_REPO)/docker/requirements.txt)

.PHONY: lab lab-setup lab-check-host lab-kernel lab-clean

lab-check-host:
	@command -v $(GO) >/dev/null 2>&1 || { echo "lab: Go is not installed (or not on PATH). Install Go 1.26 or newer and retry." >&2; exit 1; }
	@v=$$($(GO) env GOVERSION); case "$$v" in go1.2[6-9]*|go1.[3-9]*) ;; *) echo "lab: $$v is too old: this course needs Go 1.26 or newer (GOTOOLCHAIN=local)." >&2; exit 1;; esac
	@command -v $(LAB_PYTHON) >/dev/null 2>&1 || { echo "lab: Python 3 is not installed ($(LAB_PYTHON) not found). Install Python 3.10+ (Debian/Ubuntu: apt-get install python3 python3-venv) or set LAB_PYTHON=/path/to/python3." >&2; exit 1; }
	@$(LAB_PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "lab: $$($(LAB_PYTHON) --version 2>&1) is too old: JupyterLab 4 needs Python 3.10+. Set LAB_PYTHON=/path/to/python3.1x." >&2; exit 1; }
	@$(LAB_PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { echo "lab: Python's venv module is missing. Debian/Ubuntu: apt-get install python3-venv" >&2; exit 1; }

# The Python kernel that comes with ipykernel is removed: the course offers only its Go kernel.
$(LAB_STAMPS)/venv-$(LAB_VENV_KEY): | lab-check-host
	@rm -rf $(LAB_VENV)
	@$(LAB_STEP) 1/5 "JupyterLab venv from docker/requirements.txt (pip, about 2 min cold)" $(LAB_LOGS)/1-venv.log -- \
	  sh -c '$(LAB_PYTHON) -m venv $(LAB_VENV) && $(LAB_VENV)/bin/pip install --disable-pip-version-check --progress-bar off -r $(LAB_REPO)/docker/requirements.txt && rm -rf $(LAB_VENV)/share/jupyter/kernels/python3'
	@mkdir -p $(LAB_STAMPS) && rm -f $(LAB_STAMPS)/venv-* $(LAB_STAMPS)/labext-* && touch $@

$(LAB_STAMPS)/tools-$(LAB_TOOLS_KEY): | lab-check-host
	@$(LAB_STEP) 2/5 "gonb, goimports and gopls into $(LAB_BIN) (go install, pinned in docker/tools/go.mod)" $(LAB_LOGS)/2-tools.log -- \
	  sh -c 'cd $(LAB_REPO)/docker/tools && GOBIN=$(LAB_BIN) $(GO) install tool'
	@mkdir -p $(LAB_STAMPS) && rm -f $(LAB_STAMPS)/tools-* $(LAB_STAMPS)/warm-* && touch $@

# The course's JupyterLab extension (charts from data, light restore), built from source with
# JupyterLab's own tooling (jupyter-builder from the venv, @jupyter/builder from npm), installed
# as a prebuilt extension: no rebuild of JupyterLab, works offline afterwards.
$(LAB_STAMPS)/labext-$(LAB_EXT_KEY): $(LAB_STAMPS)/venv-$(LAB_VENV_KEY)
	@command -v npm >/dev/null 2>&1 || { echo "lab-setup: npm is not installed (Debian: apt-get install npm); it builds the course's JupyterLab extension" >&2; exit 1; }
	@node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' 2>/dev/null || { \
	  echo "lab-setup: Node.js $$(node --version 2>/dev/null || echo '(none)') is too old: the extension build (rspack) needs Node 20.19+ or 22.12+" >&2; exit 1; }
	@$(LAB_STEP) 3/5 "the course's JupyterLab extension (npm ci, jupyter-builder build)" $(LAB_LOGS)/3-labextension.log -- \
	  sh -c 'cd $(LABEXT_DIR) && npm ci --no-audit --no-fund --ignore-scripts && rm -rf labextension && PATH=$(LAB_VENV)/bin:$$PATH jupyter-builder build . && rm -rf $(LAB_VENV)/share/jupyter/labextensions/coursekit-jupyterlab && cp -r labextension $(LAB_VENV)/share/jupyter/labextensions/coursekit-jupyterlab'
	@mkdir -p $(LAB_STAMPS) && rm -f $(LAB_STAMPS)/labext-* && touch $@

# Cheap (about 0.1 s) and idempotent, so it always runs: the kernelspec always matches this checkout.
# The overrides stop JupyterLab asking to fetch news or check for updates: the lab works offline.
# docker/jupyter holds the server configuration (one kernel, idle culling, no kernel per restored
# tab) and the lab's default settings (Chinese, wrapped code lines).
lab-kernel: $(LAB_STAMPS)/venv-$(LAB_VENV_KEY) $(LAB_STAMPS)/tools-$(LAB_TOOLS_KEY) $(LAB_STAMPS)/labext-$(LAB_EXT_KEY)
	@echo "lab-setup [4/5] gonb kernelspec and Jupyter configuration"
	@GOBIN=$(LAB_BIN) KERNEL_PREFIX=$(LAB_JUPYTER) REPO_DIR=$(LAB_REPO) PYTHON=$(LAB_PY) \
	  KERNEL_PYTHON=$(LAB_PY) KERNEL_LOG_DIR=$(LAB_LOGS) bash $(LAB_REPO)/docker/install-kernel.sh
	@mkdir -p $(LAB_DIR)/config $(LAB_VENV)/share/jupyter/lab/settings
	@cp $(LAB_REPO)/docker/jupyter/jupyter_server_config.py $(LAB_REPO)/docker/jupyter/jupyter_config.json $(LAB_DIR)/config/
	@cp $(LAB_REPO)/docker/jupyter/overrides.json $(LAB_VENV)/share/jupyter/lab/settings/overrides.json

# Fill the module and build caches once (online), so that the kernel works with GOPROXY=off.
$(LAB_STAMPS)/warm-$(LAB_WARM_KEY): | lab-kernel
	@$(LAB_STEP) 5/5 "warming the Go caches (go mod download, go build, one notebook run)" $(LAB_LOGS)/5-warm.log -- \
	  sh -c 'cd $(LAB_REPO) && $(GO) mod download && { $(GO) build ./... || echo "lab-setup: warning: go build ./... failed; notebooks that import the broken package will fail too" >&2; } && $(LAB_ENV) $(LAB_PY) docker/nbrun.py --out $(LAB_DIR)/warm $(LAB_WARM_NB)'
	@rm -f $(LAB_STAMPS)/warm-* && touch $@

lab-setup: lab-kernel $(LAB_STAMPS)/warm-$(LAB_WARM_KEY)
	@echo "lab-setup: ready (venv $(LAB_VENV), tools $(LAB_BIN), kernelspec $(LAB_JUPYTER)/kernels/gonb)"

lab: lab-setup
	@$(LAB_PY) -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' $(LAB_PORT) 2>/dev/null || { \
	  echo "lab: port $(LAB_PORT) on 127.0.0.1 is already in use (another Jupyter?). Stop it, or pick another port: make lab LAB_PORT=8890" >&2; exit 1; }
	@cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/nbrun.py --smoke || { \
	  echo "lab: the Go kernel (gonb) did not start or could not run a cell; see the lines above." >&2; \
	  echo "lab: try 'make lab-clean lab-setup' (rebuilds .lab/), and check that 'go version' works in this shell." >&2; exit 1; }
	@echo "lab: starting JupyterLab on http://127.0.0.1:$(LAB_PORT)/ (open the URL with ?token=... printed below; Ctrl-C stops it)"
	cd $(LAB_NOTEBOOKS) && exec env $(LAB_ENV) COURSE_KERNEL_IDLE_TIMEOUT=$(LAB_KERNEL_IDLE_TIMEOUT) $(LAB_VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 \
	  --ServerApp.port=$(LAB_PORT) --ServerApp.port_retries=0 --ServerApp.root_dir=$(LAB_NOTEBOOKS) \
	  --LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
	  --LabApp.extension_manager=readonly $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)

lab-clean:
	rm -rf $(LAB_DIR)
