# A class on JupyterHub, tested for real (included by the root Makefile):
#   make test-hub       JupyterHub 5 + DockerSpawner + the idle culler on podman's Docker API, with
#                       the image from `make test-image`; proves spawn, proxy, isolation, culling,
#                       limits, the internal network, collect -> grade, and the z2jh values schema
#   make hub-capacity   N learners (HUB_LEARNERS, default 3) run the unit's notebooks through the
#                       hub at once; prints memory and CPU seconds per learner (README's sizing table)
#   make hub-setup      the hub's venv (.hub/venv, docker/hub/requirements.txt) and
#                       configurable-http-proxy and playwright-core (docker/hub/node_modules, package-lock.json)
# Needs root, podman and chromium (bash docker/host-setup.sh image test); Python 3.10+ with venv, npm.
HUB_REPO  := $(abspath $(dir $(abspath $(lastword $(MAKEFILE_LIST))))../..)
HUB_VENV  := $(HUB_REPO)/.hub/venv
HUB_NODE  := $(HUB_REPO)/docker/hub/node_modules
HUB_PYTHON ?= python3
HUB_VENV_KEY := $(shell cat $(HUB_REPO)/docker/hub/requirements.txt 2>/dev/null | sha256sum | cut -c1-12)-$(shell $(HUB_PYTHON) -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)
HUB_NPM_KEY  := $(shell cat $(HUB_REPO)/docker/hub/package-lock.json 2>/dev/null | sha256sum | cut -c1-12)

.PHONY: test-hub hub-capacity hub-setup

$(HUB_REPO)/.hub/stamps/venv-$(HUB_VENV_KEY):
	@echo "hub-setup: creating $(HUB_VENV) from docker/hub/requirements.txt"
	rm -rf $(HUB_VENV)
	$(HUB_PYTHON) -m venv $(HUB_VENV)
	$(HUB_VENV)/bin/pip install --disable-pip-version-check -q -r $(HUB_REPO)/docker/hub/requirements.txt
	@mkdir -p $(dir $@) && rm -f $(dir $@)venv-* && touch $@

$(HUB_NODE)/.stamp-$(HUB_NPM_KEY):
	@command -v npm >/dev/null 2>&1 || { echo "hub-setup: npm is not installed (Debian: apt-get install npm)" >&2; exit 1; }
	cd $(HUB_REPO)/docker/hub && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
	@rm -f $(HUB_NODE)/.stamp-* && touch $@

hub-setup: $(HUB_REPO)/.hub/stamps/venv-$(HUB_VENV_KEY) $(HUB_NODE)/.stamp-$(HUB_NPM_KEY)

test-hub: hub-setup
	bash $(HUB_REPO)/docker/host-setup.sh image test
	HUB_VENV=$(HUB_VENV) bash $(HUB_REPO)/docker/test/test-hub.sh

hub-capacity: hub-setup
	bash $(HUB_REPO)/docker/host-setup.sh image
	HUB_VENV=$(HUB_VENV) bash $(HUB_REPO)/docker/test/hub/capacity.sh
