# The test of the real engine (docker/engine.mk; included by the root Makefile after it).
#
#   make test-engine     coursekit bench against the real engine on 1 thread: properties, not timings;
#                        card and report of its runs agree on every number; the same bounded capacity
#                        search twice gives the same answer, or one within its resolution, or says why not


.PHONY: test-engine

# The engine's own start-up checks (taken port, missing model, Ctrl-C: docker/test/engine/serve_test.py), then coursekit bench against it
# (coursekit/lab/engine_real_test.go, build tag "engine": without the engine it fails, never skips).
test-engine: engine-setup
	cd $(LAB_REPO)/docker/engine && $(ENGINE_PY) ../test/engine/serve_test.py
	cd $(LAB_REPO) && COURSE_ENGINE_PYTHON=$(ENGINE_PY) $(GO) test -tags engine -count=1 -timeout 5m -run '^TestRealEngine' -v ./coursekit/lab/ ./coursekit/cmd/coursekit/
