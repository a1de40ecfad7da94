# The course image, built and tested for real with podman (no registry, no Docker engine needed):
#   make test-image        build docker/Dockerfile from local base-image stand-ins and test it
#   make test-image COLD=1 the same with a cold build (--no-cache), to measure the cold build time
# Needs root, podman, podman-compose, debootstrap: bash docker/host-setup.sh image
.PHONY: test-image image-standins
test-image:
	COLD=$(COLD) bash docker/test/test-image.sh

image-standins:
	bash docker/test/standins.sh
